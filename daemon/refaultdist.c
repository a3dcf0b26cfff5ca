// SPDX-License-Identifier: GPL-2.0
#include "refaultdist.h"

#define MIB (1ULL << 20)

uint64_t refaultdist_bound_bytes(unsigned int bucket)
{
	uint64_t octave;

	if (bucket >= REFAULT_DIST_BUCKETS - 1)
		return UINT64_MAX;
	/* Even buckets end at 2^k MiB, odd ones at 1.5 times that. */
	octave = MIB << (bucket / 2);
	return bucket % 2 ? octave + octave / 2 : octave;
}

void refaultdist_add(struct refault_dist *h, uint64_t distance_bytes, uint32_t pages)
{
	unsigned int b = 0;

	while (distance_bytes > refaultdist_bound_bytes(b))
		b++;
	h->pages[b] += pages;
	h->bytes += distance_bytes * pages;
}
