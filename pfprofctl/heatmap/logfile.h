/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Where pfprofctl heatmap's logs are, and what went wrong reading one, said:
 * what the drawing, the recording and the watching share.
 */
#ifndef PFPROF_HEATMAP_LOGFILE_H
#define PFPROF_HEATMAP_LOGFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "ctl.h"

/* The default log of pid: heatmap-<pid>.log in the configured log_dir; false (said) if too long. */
bool heatmap_log_of(const struct ctl *ctl, pid_t pid, char *buf, size_t size);

/* The log an operand names: a PID's in log_dir, or a file; false (said) if too long. */
bool heatmap_log_named(const struct ctl *ctl, const char *operand, char *path, size_t size);

/* What went wrong reading the heatmap log at path (heatmap_data_read()'s err, *line_no), said. */
void heatmap_log_failed(const char *path, int err, unsigned long line);

#endif /* PFPROF_HEATMAP_LOGFILE_H */
