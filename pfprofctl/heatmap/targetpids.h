/* SPDX-License-Identifier: GPL-2.0 */
/* heatmap --record: the processes it records, a target's (--tree PID, --unit NAME) or given. */
#ifndef PFPROF_HEATMAP_TARGETPIDS_H
#define PFPROF_HEATMAP_TARGETPIDS_H

#include <stddef.h>
#include <sys/types.h>

#include "ctl.h"

/*
 * The processes of a tree (root and its descendants) or of a unit's cgroups
 * now: the first max into pids, *count of them, *seen the number in all.
 * 0, -ESRCH (no such root), -ENOENT (the unit is not running) or -errno.
 */
int heatmap_tree_pids(pid_t root, pid_t *pids, size_t max, size_t *count, size_t *seen);
int heatmap_unit_pids(const char *unit, pid_t *pids, size_t max, size_t *count, size_t *seen);

/*
 * The processes heatmap --record records: its operands, or the target's of
 * --tree or --unit, at most DAMON_MAX_PROCESSES into pids, *nr of them. -1
 * to go on, else the exit status (the failure said).
 */
int heatmap_pids_to_record(const struct ctl_call *call, const struct ctl_command *cmd,
			   pid_t *pids, size_t *nr);

#endif /* PFPROF_HEATMAP_TARGETPIDS_H */
