/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pfprofctl heatmap's parts: drawing with gnuplot (heatmap.c), recording
 * (heatmaprecord.c), drawing in the terminal (heatmapwatch.c).
 */
#ifndef PFPROF_CTL_HEATMAP_H
#define PFPROF_CTL_HEATMAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "ctl.h"
#include "data.h"

enum { OPT_RECORD, OPT_SECONDS, OPT_OUTPUT, OPT_TAKE_DAMON, OPT_WATCH, OPT_DELAY, OPT_TREE,
       OPT_UNIT, OPT_LOG, OPT_JSON };

/* The default log of pid: heatmap-<pid>.log in the configured log_dir; false (said) if too long. */
bool heatmap_log_of(const struct ctl *ctl, pid_t pid, char *buf, size_t size);

/* "12 MiB", "4 KiB", "1.5 MiB". */
void heatmap_format_bytes(char *buf, size_t size, uint64_t bytes);

/* What went wrong reading the heatmap log at path (heatmap_data_read()'s err, *line_no), said. */
void heatmap_log_failed(const char *path, int err, unsigned long line);

/* A band's name on the address axis: the file's base name, or what kind of memory. */
const char *heatmap_band_label(const struct heatmap_band *b);

/*
 * The processes of a tree (root and its descendants) or of a unit's cgroups
 * now: the first max into pids, *count of them, *seen the number in all.
 * 0, -ESRCH (no such root), -ENOENT (the unit is not running) or -errno.
 */
int heatmap_tree_pids(pid_t root, pid_t *pids, size_t max, size_t *count, size_t *seen);
int heatmap_unit_pids(const char *unit, pid_t *pids, size_t max, size_t *count, size_t *seen);

/* pfprofctl heatmap --record PID: its exit status. */
int heatmap_record_command(const struct ctl *ctl, const struct ctl_call *call);

/* pfprofctl heatmap --watch [-d SECS] LOG: its exit status. */
int heatmap_watch_command(const char *log_path, int delay_ms);

#endif /* PFPROF_CTL_HEATMAP_H */
