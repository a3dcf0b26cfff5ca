/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A target's pages read back from swap by refault distance (lib/refaults.h)
 * in bytes: how much more memory would have kept each of them in. Two
 * buckets an octave (1, 1.5, 2, 3, 4, 6 ... MiB) from 1 MiB to 64 GiB, then
 * one without bound, for dashboards and sums over hosts: exported as
 * pfprof_target_swap_refault_distance_bytes (promrefaults.h). Its quantiles
 * are coarse: histogram_quantile() spreads a bucket's pages evenly over it,
 * so that a loop's distances, all just above 32 MiB, read as 46 MiB at 90 %
 * (the guest test daemon_refault_distances). The quantiles pfprofd tells are
 * refaultwindow.h's.
 */
#ifndef PFPROF_REFAULTDIST_H
#define PFPROF_REFAULTDIST_H

#include <stdint.h>

#define REFAULT_DIST_BUCKETS 34

struct refault_dist {
	uint64_t pages[REFAULT_DIST_BUCKETS];	/* read back, by bucket */
	uint64_t bytes;				/* their distances summed, each page's */
};

/* pages read back at distance_bytes. */
void refaultdist_add(struct refault_dist *h, uint64_t distance_bytes, uint32_t pages);

/* Bucket b's upper bound in bytes; UINT64_MAX for the last, which has none. */
uint64_t refaultdist_bound_bytes(unsigned int bucket);

#endif /* PFPROF_REFAULTDIST_H */
