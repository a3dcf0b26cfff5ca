/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Pages pushed out to swap and touched again, round after round, timed:
 * what the waits (section 10) and the page trace (section 12) cost.
 */
#ifndef PFPROF_SWAPROUNDS_H
#define PFPROF_SWAPROUNDS_H

#include <stdint.h>

struct swap_rounds {
	uint64_t out_cpu_ns;	/* the process's CPU time in madvise(MADV_PAGEOUT) */
	uint64_t in_cpu_ns;	/* ... in touching the pages again */
	uint64_t swapouts;	/* /proc/vmstat's pswpout over the push-outs */
	long swapins;		/* the process's major faults over the touches */
};

/*
 * rounds times, pages anonymous pages (THP off: one event a page) pushed
 * out (MADV_PAGEOUT: reclaimed in this process) and touched again, each
 * touch a swap-in. Dies if fewer than half the pages came back from swap
 * (no swap).
 */
struct swap_rounds swap_rounds(unsigned long pages, unsigned int rounds);

#endif
