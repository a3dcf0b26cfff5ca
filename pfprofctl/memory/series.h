/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A target's cgroup over time, from pfprofd's memory log (pfprof-memory.log,
 * logformat.h): what the thrash timeline draws beside the target's pages,
 * its memory and limit, its file refaults and its memory.pressure.
 */
#ifndef PFPROF_MEMORYSERIES_H
#define PFPROF_MEMORYSERIES_H

#include <stddef.h>
#include <stdint.h>

/*
 * Writes to path, for each line of target's in the memory logs of dir
 * between from_ns and to_ns (wall clock) after the first, "unix_s
 * current_MiB max_MiB refault_file/s refault_anon/s some_% full_%": the
 * rates and pressure since the line before, "NaN" for what is not known
 * (no limit, a value the kernel did not give). *points: the lines written.
 * 0 or -errno.
 */
int memory_series_write(const char *dir, unsigned int keep, uint32_t target, uint64_t from_ns,
			uint64_t to_ns, const char *path, size_t *points);

#endif /* PFPROF_MEMORYSERIES_H */
