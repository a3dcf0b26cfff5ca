/* SPDX-License-Identifier: GPL-2.0 */
/*
 * How long faults took (ring version 8, MP3_RECORD_LATENCY): a histogram of
 * durations in the module's buckets, powers of two of nanoseconds, and
 * what it tells: bounds, mean, quantiles.
 */
#ifndef PFPROF_LATENCY_H
#define PFPROF_LATENCY_H

#include <stdint.h>

#include <linux/mp3.h>

/* The kinds a record's major field tells apart. */
enum latency_kind { LATENCY_MINOR, LATENCY_MAJOR, LATENCY_KINDS };

struct latency_hist {
	uint64_t faults[MP3_LATENCY_BUCKETS];	/* completed, by bucket */
	uint64_t time_ns;			/* the time they took, summed */
};

/* "minor", "major": the metrics' and JSON's words. */
const char *latency_kind_word(enum latency_kind kind);

/* Adds an MP3_RECORD_LATENCY record to the histogram of its kind in hist. */
void latency_add_record(struct latency_hist hist[LATENCY_KINDS], const struct mp3_proc_record *r);

/* Adds histogram h to sum. */
void latency_add(struct latency_hist *sum, const struct latency_hist *h);

uint64_t latency_count(const struct latency_hist *h);

/* Bucket b's upper bound in seconds: 2^(MP3_LATENCY_SHIFT + b) ns; INFINITY for the last. */
double latency_bound_seconds(unsigned int bucket);

/* The mean duration in seconds; 0 without faults. */
double latency_mean_seconds(const struct latency_hist *h);

/*
 * The q-quantile (0 <= q <= 1) of the durations in seconds, as Prometheus's
 * histogram_quantile() estimates it from the same buckets, so that
 * pfprofctl and a dashboard agree: linear within the bucket it falls in,
 * the first bucket starting at 0; in the last bucket, which has no upper
 * bound, its lower one. 0 without faults.
 */
double latency_quantile_seconds(const struct latency_hist *h, double q);

#endif /* PFPROF_LATENCY_H */
