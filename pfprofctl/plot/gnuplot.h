/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Running gnuplot for plot and heatmap: its inputs in a temporary directory,
 * its output atomically, in a format told by the file's name.
 */
#ifndef PFPROF_GNUPLOT_H
#define PFPROF_GNUPLOT_H

#include <stdio.h>
#include <sys/types.h>

/*
 * gnuplot on script, with expr (gnuplot -e) run before it if not NULL: 0,
 * its exit status (127: not installed), or -errno.
 */
int gnuplot_run(const char *expr, const char *script);

/* name as a single-quoted gnuplot string's inside: quotes doubled. */
void gnuplot_quote(FILE *f, const char *name);

/* Reports what a failed gnuplot_run() (rc != 0) of script means, with a hint. */
void gnuplot_failed(int rc, const char *script);

/* Removes a temporary directory and every file in it. */
void gnuplot_remove_dir(const char *dir);

/* What a new file gets: 0666 less the umask. */
mode_t gnuplot_new_file_mode(void);

/* The picture formats pfprofctl draws, by the file's extension. */
enum ctl_picture { CTL_PICTURE_OTHER, CTL_PICTURE_PNG, CTL_PICTURE_SVG };
enum ctl_picture ctl_picture_of(const char *path);

#endif /* PFPROF_GNUPLOT_H */
