// SPDX-License-Identifier: GPL-2.0
#include "latency.h"

#include <math.h>

const char *latency_kind_word(enum latency_kind kind)
{
	static const char *const words[LATENCY_KINDS] = { "minor", "major" };

	return kind < LATENCY_KINDS ? words[kind] : "?";
}

void latency_add_record(struct latency_hist hist[LATENCY_KINDS], const struct mp3_proc_record *r)
{
	struct latency_hist *h = &hist[r->latency.major ? LATENCY_MAJOR : LATENCY_MINOR];
	unsigned int b = r->latency.bucket;

	/* Not the module's doing (mp3.h): the last bucket is the one of the longest. */
	if (b >= MP3_LATENCY_BUCKETS)
		b = MP3_LATENCY_BUCKETS - 1;
	h->faults[b] += r->latency.faults;
	h->time_ns += r->latency.time_ns;
}

void latency_add(struct latency_hist *sum, const struct latency_hist *h)
{
	for (int b = 0; b < MP3_LATENCY_BUCKETS; b++)
		sum->faults[b] += h->faults[b];
	sum->time_ns += h->time_ns;
}

uint64_t latency_count(const struct latency_hist *h)
{
	uint64_t count = 0;

	for (int b = 0; b < MP3_LATENCY_BUCKETS; b++)
		count += h->faults[b];
	return count;
}

double latency_bound_seconds(unsigned int bucket)
{
	if (bucket >= MP3_LATENCY_BUCKETS - 1)
		return INFINITY;
	return (double)(1ULL << (MP3_LATENCY_SHIFT + bucket)) / 1e9;
}

double latency_mean_seconds(const struct latency_hist *h)
{
	uint64_t count = latency_count(h);

	return count ? h->time_ns / 1e9 / count : 0;
}

double latency_quantile_seconds(const struct latency_hist *h, double q)
{
	double rank = q * latency_count(h), below = 0;

	if (!rank)
		return 0;
	for (unsigned int b = 0; b < MP3_LATENCY_BUCKETS - 1; b++) {
		double lower = b ? latency_bound_seconds(b - 1) : 0;

		if (below + h->faults[b] >= rank)
			return lower + (latency_bound_seconds(b) - lower) *
				       (rank - below) / h->faults[b];
		below += h->faults[b];
	}
	return latency_bound_seconds(MP3_LATENCY_BUCKETS - 2);
}
