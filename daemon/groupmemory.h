/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The memory of the cgroups of the unit and cgroup targets added with
 * pages, once a second, into pfprof-memory.log (logformat.h): what the
 * thrash timeline (pfprofctl memory --timeline) draws beside the pages,
 * the cgroup's limit, memory.pressure and file refaults, and what the
 * metrics file tells of them (prommemory.h). Only those
 * targets: their options are an administrator's (pfprofctl add --pages),
 * so the files read a second are bounded by what the administrator asked.
 */
#ifndef PFPROF_GROUPMEMORY_H
#define PFPROF_GROUPMEMORY_H

#include <stdint.h>

#include "counters.h"
#include "logwriter.h"
#include "targets.h"

#define GROUPMEMORY_USEC 1000000ULL

struct groupmemory {
	uint64_t next_usec;	/* CLOCK_MONOTONIC: no reading before this */
};

/*
 * Queues into log a line for each such target of targets whose cgroup
 * exists now, and keeps the reading in its total of counts (one whose
 * cgroup is gone has none), if GROUPMEMORY_USEC have passed since the last
 * time; seq is
 * the last sample the module published. A second whose lines find the
 * queue full (the disk failing for long: LOGQUEUE_MAX lines held) is left
 * out of the log: a gap in its times, not a wrong value.
 */
void groupmemory_log(struct groupmemory *g, const struct target_list *targets,
		     struct counters *counts, struct logwriter *log, uint64_t seq,
		     uint64_t now_usec);

#endif /* PFPROF_GROUPMEMORY_H */
