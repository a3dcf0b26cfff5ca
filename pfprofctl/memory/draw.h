/* SPDX-License-Identifier: GPL-2.0 */
/* pfprofctl memory --output: each owner's miss curve, drawn by gnuplot. */
#ifndef PFPROF_MEMORYDRAW_H
#define PFPROF_MEMORYDRAW_H

#include <stddef.h>

#include "refaults.h"

/* One curve: whose, and its refaults. */
struct memory_curve {
	const char *label;
	struct refault_owner *owner;
};

/*
 * Draws the curves (those with refaults) into out, a .png or .svg, of the
 * window (its words, for the axis); out is replaced only once drawn. The curves drawn (at most 8), or
 * -1 with the failure said.
 */
int memory_draw(const char *out, const char *window, const struct memory_curve *curves, size_t n);

#endif /* PFPROF_MEMORYDRAW_H */
