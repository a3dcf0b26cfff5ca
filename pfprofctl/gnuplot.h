/* SPDX-License-Identifier: GPL-2.0 */
/* Running gnuplot for plot and heatmap: its inputs in a temporary directory, its output atomically. */
#ifndef PFPROF_GNUPLOT_H
#define PFPROF_GNUPLOT_H

#include <sys/types.h>

/*
 * gnuplot on script, with expr (gnuplot -e) run before it if not NULL: 0,
 * its exit status (127: not installed), or -errno.
 */
int gnuplot_run(const char *expr, const char *script);

/* Reports what a failed gnuplot_run() (rc != 0) of script means, with a hint. */
void gnuplot_failed(int rc, const char *script);

/* Removes a temporary directory and every file in it. */
void gnuplot_remove_dir(const char *dir);

/* What a new file gets: 0666 less the umask. */
mode_t gnuplot_new_file_mode(void);

#endif /* PFPROF_GNUPLOT_H */
