// SPDX-License-Identifier: GPL-2.0
/*
 * daemon/refaultwindow: a target's refault distances of the last minutes,
 * whose quantiles must be the exact ones (refaults_extra()'s) or at most
 * 1/32 above, and hold the last 10 minutes only.
 */
#include <stdlib.h>

#include "refaultwindow.h"
#include "unit.h"

#define NOW (1800000000ULL + 30)

static int by_value(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* Distances spread over 1 to 2^30 pages: each quantile at most 1/32 above the exact one. */
static void test_quantiles_near_exact(void)
{
	enum { N = 20000 };
	static const double shares[] = { 0.01, 0.5, 0.9, 0.99, 1 };
	struct refault_window *w = calloc(1, sizeof(*w));
	uint64_t *d = calloc(N, sizeof(*d)), seed = 3;

	expect(w && d, "no memory");
	for (size_t i = 0; i < N; i++) {
		seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
		d[i] = (seed >> 34) >> ((seed >> 8) % 30);
		refaultwindow_add(w, NOW - (seed >> 20) % 540, d[i], 1);
	}
	qsort(d, N, sizeof(*d), by_value);
	expect(refaultwindow_pages(w, NOW) == N, "%llu pages in the window",
	       (unsigned long long)refaultwindow_pages(w, NOW));
	for (size_t s = 0; s < sizeof(shares) / sizeof(shares[0]); s++) {
		uint64_t exact = d[(size_t)(shares[s] * N + 0.999) - 1];
		uint64_t got = refaultwindow_quantile(w, NOW, shares[s]);

		expect(got >= exact && got <= exact + exact / 32, "share %.2f: %llu pages, exact %llu",
		       shares[s], (unsigned long long)got, (unsigned long long)exact);
	}
	free(w);
	free(d);
}

/* Below 32 pages a distance is its own bucket: the quantile is exact. */
static void test_small_exact(void)
{
	struct refault_window w = { 0 };

	refaultwindow_add(&w, NOW, 3, 9);
	refaultwindow_add(&w, NOW, 31, 1);
	expect(refaultwindow_quantile(&w, NOW, 0.9) == 3 &&
	       refaultwindow_quantile(&w, NOW, 1) == 31, "quantiles %llu and %llu",
	       (unsigned long long)refaultwindow_quantile(&w, NOW, 0.9),
	       (unsigned long long)refaultwindow_quantile(&w, NOW, 1));
}

/*
 * The window is the minute now and the 9 before: pages read back 11
 * minutes ago are out of it, and their row is taken by the minute that
 * comes round to it; nothing in it: 0.
 */
static void test_window_moves(void)
{
	struct refault_window w = { 0 };

	expect(!refaultwindow_quantile(&w, NOW, 0.9), "a quantile without pages");
	refaultwindow_add(&w, NOW - 660, 5000, 100);
	refaultwindow_add(&w, NOW - 60, 40, 100);
	expect(refaultwindow_pages(&w, NOW) == 100 && refaultwindow_quantile(&w, NOW, 0.99) == 40,
	       "%llu pages, 99 %% at %llu", (unsigned long long)refaultwindow_pages(&w, NOW),
	       (unsigned long long)refaultwindow_quantile(&w, NOW, 0.99));
	refaultwindow_add(&w, NOW + 480, 7, 1);
	expect(refaultwindow_pages(&w, NOW + 480) == 101, "%llu pages 8 minutes on",
	       (unsigned long long)refaultwindow_pages(&w, NOW + 480));
	expect(refaultwindow_pages(&w, NOW + 600) == 1, "%llu pages 10 minutes on",
	       (unsigned long long)refaultwindow_pages(&w, NOW + 600));
}

/* Beyond 2^40 pages: counted, told as 2^40. */
static void test_huge_distance(void)
{
	struct refault_window w = { 0 };

	refaultwindow_add(&w, NOW, UINT64_MAX, 1);
	expect(refaultwindow_quantile(&w, NOW, 1) == (1ULL << 40) - 1, "%llu",
	       (unsigned long long)refaultwindow_quantile(&w, NOW, 1));
}

UNIT_TESTS(UNIT_TEST(quantiles_near_exact), UNIT_TEST(small_exact), UNIT_TEST(window_moves),
	   UNIT_TEST(huge_distance));
