/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pfprofctl memory --timeline: one owner's paging on one time axis, drawn
 * by gnuplot: its pages out and read back, each page's refault distance,
 * and the time the swap-ins stalled it.
 */
#ifndef PFPROF_MEMORYTIMELINE_H
#define PFPROF_MEMORYTIMELINE_H

#include <stdint.h>

#include "config.h"
#include "refaults.h"

/* Whose timeline, and over which window (wall clock ns). */
struct memory_timeline {
	const char *label;
	struct refault_owner *owner;	/* its refaults: in the order they came */
	uint64_t from_ns, to_ns;
	uint64_t needs_bytes;		/* the memory that keeps 90 % in: a line on the distances */
};

/*
 * Draws t into out (.png or .svg, replaced only once drawn), its rates from
 * config's pages logs. 0, or -1 with the failure said.
 */
int memory_timeline_draw(const struct pfprof_config *config, const char *out,
			 const struct memory_timeline *t);

#endif /* PFPROF_MEMORYTIMELINE_H */
