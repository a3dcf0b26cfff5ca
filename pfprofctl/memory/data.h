/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pfprofctl memory's data: the pages logs (logformat.h) replayed, oldest
 * line first, into refault distances (refaults.h) over a window, and what
 * each owner had: a target's cgroup and its memory.max.
 */
#ifndef PFPROF_MEMORYDATA_H
#define PFPROF_MEMORYDATA_H

#include <stdbool.h>
#include <stdint.h>

#include "files.h"
#include "refaults.h"

struct memory_log {
	struct refault_replay replay;
	struct refault_files files;	/* the window's refaults, by owner and file */
	uint64_t lines, bad_lines;	/* data lines replayed, and those that were none */
	uint64_t first_ns, last_ns;	/* the window's first and last event, wall clock */
	bool foreign;			/* a file that is not a pages log */
	int err;			/* the replay's first error, -errno */
};

/*
 * Replays the pages logs in dir (keep rotated files) counting the events
 * at or after since_ns (wall clock, 0: all), the distances on the
 * machine's clock of evictions if machine_clock (lib/refaults.h). 0, or
 * -errno (-EPROTO: a file of that name is not a pages log).
 */
int memory_log_read(struct memory_log *m, const char *dir, unsigned int keep, uint64_t since_ns,
		    bool machine_clock);
void memory_log_free(struct memory_log *m);

/* Whether a comment line is another log's first line: a file that is not a pages log. */
bool memory_log_foreign(const char *line);

/* Says what a failure of memory_log_read() (or of another reader of the pages logs) was. */
void memory_log_failed(const char *log_dir, int err);

#endif /* PFPROF_MEMORYDATA_H */
