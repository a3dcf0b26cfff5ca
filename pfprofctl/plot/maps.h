/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pfprofctl plot's panel of faults per mapping: the mappings with the most
 * major faults (or faults, if none had a major one) in the faults logs of
 * the processes added with --maps, each split into a file of its own for
 * gnuplot.
 */
#ifndef PFPROF_PLOTMAPS_H
#define PFPROF_PLOTMAPS_H

#include <stdbool.h>

#include "config.h"
#include "words.h"

#define PLOTMAPS_MAX 8		/* curves of mappings; the others are left out */

/* Named as the gnuplot script's variables that they become. */
struct plot_maps {
	int n;				/* mappings drawn */
	int seen;			/* of those in the logs */
	bool majors;			/* the curves are major faults (else minor + major) */
	struct plot_words mapfiles, maptitles;	/* titles: "name:comm/pid" */
};

/*
 * Reads every faults log of config and writes into dir the lines
 * "<wall_time_s> <minor_faults> <major_faults>" of each mapping drawn.
 * 0 or -errno (out is then empty); no faults logs: 0 and nothing drawn.
 */
int plotmaps_split(const struct pfprof_config *config, const char *dir, struct plot_maps *out);
void plotmaps_free(struct plot_maps *maps);

#endif /* PFPROF_PLOTMAPS_H */
