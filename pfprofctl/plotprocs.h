/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pfprofctl plot's per-process curves: the processes with the most faults
 * in the per-process logs, each split into a file of its own for gnuplot.
 */
#ifndef PFPROF_PLOTPROCS_H
#define PFPROF_PLOTPROCS_H

#include <limits.h>

#include "config.h"

#define PLOTPROCS_MAX 8		/* curves drawn; the others are left out */

struct plot_procs {
	int n;				/* processes split out */
	char files[PLOTPROCS_MAX * (PATH_MAX / 8)];	/* their files, space-separated */
	char titles[PLOTPROCS_MAX * 48];	/* "name/pid" each, space-separated */
};

/*
 * Reads every per-process log of config (oldest first) and writes, into
 * dir, the lines "<wall_time_s> <minor_faults> <major_faults>" of each of
 * the PLOTPROCS_MAX processes with the most faults. 0 or -errno.
 */
int plotprocs_split(const struct pfprof_config *config, const char *dir, struct plot_procs *out);

#endif /* PFPROF_PLOTPROCS_H */
