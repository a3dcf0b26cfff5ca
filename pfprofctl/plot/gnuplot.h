/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Running gnuplot for plot and heatmap: its inputs in a temporary directory,
 * its output atomically, in a format told by the file's name.
 */
#ifndef PFPROF_GNUPLOT_H
#define PFPROF_GNUPLOT_H

#include <stdbool.h>
#include <stdio.h>
#include <sys/types.h>

/*
 * gnuplot on script, with expr (gnuplot -e) run before it if not NULL: 0,
 * its exit status (127: not installed), or -errno.
 */
int gnuplot_run(const char *expr, const char *script);

/* name as a single-quoted gnuplot string's inside: quotes doubled. */
void gnuplot_quote(FILE *f, const char *name);

/* A script's first lines: the terminal (SVG or PNG) of width x height, drawing into path. */
void gnuplot_set_output(FILE *f, bool svg, int width, int height, const char *path);

/*
 * Draws a picture into out, replaced only once drawn: write_inputs(dir,
 * temp, script, ctx) writes gnuplot's inputs in a new temporary directory
 * dir (made from dir_template) and a script drawing into temp, whose path
 * it puts in script (PATH_MAX bytes), and returns 0 or -errno; gnuplot
 * runs it. 0, or -1 with the failure said.
 */
int gnuplot_draw(const char *out, const char *dir_template,
		 int (*write_inputs)(const char *dir, const char *temp, char *script, void *ctx),
		 void *ctx);

/* Reports what a failed gnuplot_run() (rc != 0) of script means, with a hint. */
void gnuplot_failed(int rc, const char *script);

/* Removes a temporary directory and every file in it. */
void gnuplot_remove_dir(const char *dir);

/* What a new file gets: 0666 less the umask. */
mode_t gnuplot_new_file_mode(void);

/* The picture formats pfprofctl draws, by the file's extension. */
enum ctl_picture { CTL_PICTURE_OTHER, CTL_PICTURE_PNG, CTL_PICTURE_SVG };
enum ctl_picture ctl_picture_of(const char *path);

struct ctl_command;
struct ctl_call;
/*
 * Whether call's option opt (a picture to draw into) is not given or names a
 * .png or .svg file; if not, says so as a usage error of cmd.
 */
bool ctl_picture_option_ok(const struct ctl_command *cmd, const struct ctl_call *call, int opt);

#endif /* PFPROF_GNUPLOT_H */
