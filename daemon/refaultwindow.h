/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A target's refault distances of the last REFAULT_WINDOW_MINUTES minutes
 * (the minute now and those before it, of the wall clock),
 * fine enough that their quantiles are within 1/32 of what pfprofctl memory
 * computes from the pages log: a histogram per minute, in pages, exact
 * below 32 pages and 32 buckets an octave above. The answer pfprofd
 * exports as pfprof_target_swap_memory_short_bytes (promrefaults.h);
 * Prometheus' histogram_quantile() over the coarse histogram (refaultdist.h)
 * puts a distance anywhere in its bucket, up to half as much again.
 */
#ifndef PFPROF_REFAULTWINDOW_H
#define PFPROF_REFAULTWINDOW_H

#include <stdint.h>

#define REFAULT_WINDOW_MINUTES 10
/* 32 exact, then 32 an octave from 2^5 to 2^40 pages; larger distances in the last. */
#define REFAULT_WINDOW_BUCKETS (32 + 35 * 32)

struct refault_window {
	uint64_t minute[REFAULT_WINDOW_MINUTES];	/* which minute (s / 60) each row holds */
	uint32_t pages[REFAULT_WINDOW_MINUTES][REFAULT_WINDOW_BUCKETS];
};

/* pages read back at distance (in pages) at at_s (wall clock, seconds). */
void refaultwindow_add(struct refault_window *w, uint64_t at_s, uint64_t distance,
		       uint32_t pages);

/* The pages read back in the window that ends at now_s. */
uint64_t refaultwindow_pages(const struct refault_window *w, uint64_t now_s);

/*
 * The distance in pages at or under which share (0 to 1) of the pages read
 * back in the window ending at now_s lie: the upper end of its bucket, at
 * most 1/32 above the exact one. 0 without pages.
 */
uint64_t refaultwindow_quantile(const struct refault_window *w, uint64_t now_s, double share);

#endif /* PFPROF_REFAULTWINDOW_H */
