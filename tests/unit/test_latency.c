// SPDX-License-Identifier: GPL-2.0
/* lib/latency: the histogram of how long faults took. */
#include <math.h>
#include <string.h>

#include "latency.h"
#include "unit.h"

static struct mp3_proc_record latency_record(uint16_t major, uint16_t bucket, uint32_t faults,
					     uint64_t time_ns)
{
	struct mp3_proc_record r = { .type = MP3_RECORD_LATENCY };

	r.latency.major = major;
	r.latency.bucket = bucket;
	r.latency.faults = faults;
	r.latency.time_ns = time_ns;
	return r;
}

static bool near(double got, double want)
{
	return fabs(got - want) <= 1e-12 + fabs(want) * 1e-9;
}

/* A record goes to its kind's histogram; a bucket past the last counts in the last. */
static void test_add_record(void)
{
	struct latency_hist h[LATENCY_KINDS] = { 0 };
	struct mp3_proc_record r = latency_record(1, 3, 5, 20000);

	latency_add_record(h, &r);
	r = latency_record(0, 0, 2, 600);
	latency_add_record(h, &r);
	r = latency_record(0, MP3_LATENCY_BUCKETS + 3, 1, 5000000000ULL);
	latency_add_record(h, &r);
	expect(h[LATENCY_MAJOR].faults[3] == 5 && h[LATENCY_MAJOR].time_ns == 20000 &&
	       latency_count(&h[LATENCY_MAJOR]) == 5, "the major record not in its bucket");
	expect(h[LATENCY_MINOR].faults[0] == 2 &&
	       h[LATENCY_MINOR].faults[MP3_LATENCY_BUCKETS - 1] == 1 &&
	       h[LATENCY_MINOR].time_ns == 5000000600ULL && latency_count(&h[LATENCY_MINOR]) == 3,
	       "the minor records not in their buckets");
	latency_add(&h[LATENCY_MINOR], &h[LATENCY_MAJOR]);
	expect(h[LATENCY_MINOR].faults[3] == 5 && latency_count(&h[LATENCY_MINOR]) == 8 &&
	       h[LATENCY_MINOR].time_ns == 5000020600ULL, "latency_add() did not add it all");
}

/* 512 ns for bucket 0, doubling; the last has none (mp3.h). */
static void test_bounds(void)
{
	expect(near(latency_bound_seconds(0), 512e-9), "bucket 0: %g", latency_bound_seconds(0));
	expect(near(latency_bound_seconds(1), 1024e-9), "bucket 1: %g", latency_bound_seconds(1));
	expect(near(latency_bound_seconds(MP3_LATENCY_BUCKETS - 2), 2.147483648),
	       "bucket 22: %g", latency_bound_seconds(MP3_LATENCY_BUCKETS - 2));
	expect(isinf(latency_bound_seconds(MP3_LATENCY_BUCKETS - 1)), "the last bucket is bounded");
	expect(!strcmp(latency_kind_word(LATENCY_MINOR), "minor") &&
	       !strcmp(latency_kind_word(LATENCY_MAJOR), "major"), "the kinds' words");
}

static void test_mean(void)
{
	struct latency_hist h = { .faults = { [2] = 3, [5] = 1 }, .time_ns = 8000 };

	expect(near(latency_mean_seconds(&h), 2e-6), "mean %g", latency_mean_seconds(&h));
	h = (struct latency_hist){ 0 };
	expect(latency_mean_seconds(&h) == 0, "no faults, mean %g", latency_mean_seconds(&h));
}

/* As Prometheus's histogram_quantile(): linear within the bucket, from 0 in the first. */
static void test_quantile(void)
{
	/* 100 faults: 50 in [0, 512 ns), 40 in [512, 1024), 10 in [1024, 2048). */
	struct latency_hist h = { .faults = { 50, 40, 10 } };

	expect(near(latency_quantile_seconds(&h, 0.25), 256e-9), "p25 %g",
	       latency_quantile_seconds(&h, 0.25));
	expect(near(latency_quantile_seconds(&h, 0.7), 768e-9), "p70 %g",
	       latency_quantile_seconds(&h, 0.7));
	expect(near(latency_quantile_seconds(&h, 0.99), 1945.6e-9), "p99 %g",
	       latency_quantile_seconds(&h, 0.99));
	expect(near(latency_quantile_seconds(&h, 1), 2048e-9), "p100 %g",
	       latency_quantile_seconds(&h, 1));
	/* In the last bucket: its lower bound, what is known. */
	h = (struct latency_hist){ 0 };
	h.faults[MP3_LATENCY_BUCKETS - 1] = 4;
	expect(near(latency_quantile_seconds(&h, 0.5), 2.147483648), "in the last bucket: %g",
	       latency_quantile_seconds(&h, 0.5));
	h = (struct latency_hist){ 0 };
	expect(latency_quantile_seconds(&h, 0.99) == 0, "no faults: %g",
	       latency_quantile_seconds(&h, 0.99));
}

UNIT_TESTS(UNIT_TEST(add_record), UNIT_TEST(bounds), UNIT_TEST(mean), UNIT_TEST(quantile));
