/* SPDX-License-Identifier: GPL-2.0 */
/* pfprofctl heatmap --watch: a heatmap log drawn in the terminal as it grows. */
#ifndef PFPROF_HEATMAP_WATCH_H
#define PFPROF_HEATMAP_WATCH_H

/* pfprofctl heatmap --watch [-d SECS] LOG: its exit status. */
int heatmap_watch_command(const char *log_path, int delay_ms);

#endif /* PFPROF_HEATMAP_WATCH_H */
