/* SPDX-License-Identifier: GPL-2.0 */
/* heatmap --record --tree PID | --unit NAME: the processes a target has now. */
#ifndef PFPROF_HEATMAP_TARGETPIDS_H
#define PFPROF_HEATMAP_TARGETPIDS_H

#include <stddef.h>
#include <sys/types.h>

/*
 * The processes of a tree (root and its descendants) or of a unit's cgroups
 * now: the first max into pids, *count of them, *seen the number in all.
 * 0, -ESRCH (no such root), -ENOENT (the unit is not running) or -errno.
 */
int heatmap_tree_pids(pid_t root, pid_t *pids, size_t max, size_t *count, size_t *seen);
int heatmap_unit_pids(const char *unit, pid_t *pids, size_t max, size_t *count, size_t *seen);

#endif /* PFPROF_HEATMAP_TARGETPIDS_H */
