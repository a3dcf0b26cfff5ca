/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pfprofctl swap --output: the swap areas as a picture, the paper's sector
 * view drawn: each page out now at its slot (MiB into its swap area) and
 * its age, coloured by owner, a panel per swap area, drawn by gnuplot.
 */
#ifndef PFPROF_SWAPDRAW_H
#define PFPROF_SWAPDRAW_H

#include <stddef.h>
#include <stdint.h>

#include "refaults.h"

/* An owner with pages out now: its replay index, label, and the share of its pages back. */
struct swap_drawn_owner {
	uint32_t index;
	const char *label;
	size_t out_now;
	double back_percent;		/* negative: none sent out in the logs */
};

/*
 * Draws the pages of replay still out at now_ns, owners first (most pages
 * out first, at most 8 apart, the rest as one), into out, a .png or .svg,
 * replaced only once drawn. 0, or -1 with the failure said.
 */
int swap_draw(const char *out, const struct refault_replay *replay, uint64_t now_ns,
	      const struct swap_drawn_owner *owners, size_t n);

#endif /* PFPROF_SWAPDRAW_H */
