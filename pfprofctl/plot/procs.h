/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pfprofctl plot's per-process curves: the processes and targets with the
 * most faults in the per-process logs, each split into a file of its own
 * for gnuplot.
 */
#ifndef PFPROF_PLOTPROCS_H
#define PFPROF_PLOTPROCS_H

#include "config.h"
#include "words.h"
#include "targets.h"

#define PLOTPROCS_MAX 8		/* curves of processes without a target; the others are left out */
#define PLOTPROCS_TARGETS_MAX 6	/* targets' panels; the others are left out */
#define PLOTPROCS_PER_TARGET 5	/* process curves beneath each target's total */

/* Named as the gnuplot script's variables that they become. */
struct plot_procs {
	int n;				/* processes without a target split out */
	int targets, targets_seen;	/* targets split out, of those in the logs */
	struct plot_words procfiles, proctitles;	/* "name/pid" titles */
	struct plot_words targetfiles, targettitles;	/* labels: target_label() */
	struct plot_words targetprocs;	/* how many of targetprocfiles are each target's */
	struct plot_words targetprocfiles, targetproctitles;
};

/*
 * Reads every per-process log of config (oldest first) and writes into dir
 * the lines "<wall_time_s> <minor_faults> <major_faults>" of each process
 * drawn: the PLOTPROCS_MAX without a target that have the most faults, and
 * the PLOTPROCS_PER_TARGET with the most of each of the PLOTPROCS_TARGETS_MAX
 * targets with the most; and, per target drawn, all its processes' lines in
 * one file. targets names them. 0 or -errno (out is then empty).
 */
int plotprocs_split(const struct pfprof_config *config, const struct target_list *targets,
		    const char *dir, struct plot_procs *out);
void plotprocs_free(struct plot_procs *procs);

/*
 * The faults per second of the process pid named comm from from_s to to_s
 * (wall clock, seconds) in the per-process logs of config, in one-second
 * bins: into path, "<seconds from from_s> <minor/s> <major/s>" for each bin
 * in which the logs have a line of it. The number of those bins, or -errno.
 */
int plotprocs_rates(const struct pfprof_config *config, pid_t pid, const char *comm,
		    double from_s, double to_s, const char *path);

#endif /* PFPROF_PLOTPROCS_H */
