// SPDX-License-Identifier: GPL-2.0
/* lib/psi: parsing /proc/pressure/memory, and reading it at most once a second. */
#include <errno.h>
#include <string.h>

#include "psi.h"
#include "unit.h"

#define PRESSURE "some avg10=1.50 avg60=0.40 avg300=0.10 total=123456\n" \
		 "full avg10=0.75 avg60=0.20 avg300=0.05 total=65432\n"
#define LATER "some avg10=9.00 avg60=0.40 avg300=0.10 total=223456\n" \
	      "full avg10=4.00 avg60=0.20 avg300=0.05 total=165432\n"

static void test_read(void)
{
	struct psi_memory psi;
	int err;

	unit_write_file("memory", PRESSURE);
	err = psi_read("memory", &psi);
	expect(!err, "psi_read: %s", strerror(-err));
	expect(psi.some_avg10 == 1.5 && psi.full_avg10 == 0.75 && psi.some_total_us == 123456 &&
	       psi.full_total_us == 65432, "read %.2f %.2f %llu %llu", psi.some_avg10,
	       psi.full_avg10, (unsigned long long)psi.some_total_us,
	       (unsigned long long)psi.full_total_us);
}

static void test_read_errors(void)
{
	static const char *const bad[] = {
		"",
		"some avg10=1.50 avg60=0.40 avg300=0.10 total=123456\n",	/* no full line */
		"some avg10=x avg60=0.40 avg300=0.10 total=1\nfull avg10=1 avg60=0 avg300=0 total=1\n",
	};
	struct psi_memory psi;
	int err = psi_read("missing", &psi);

	expect(err == -ENOENT, "a missing file gave %d, want -ENOENT", err);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		unit_write_file("memory", bad[i]);
		err = psi_read("memory", &psi);
		expect(err == -EPROTO, "text %zu gave %d, want -EPROTO", i, err);
	}
}

/* The file changes between readings; the cache reads it at 5 s, 6 s and 7 s only. */
static void test_cache_once_a_second(void)
{
	static const struct {
		const char *text;	/* the file from this step on */
		uint64_t now_ns;
		bool reads;
		double some;		/* what the cache holds after the step */
	} steps[] = {
		{ PRESSURE, 5000000000ULL, true, 1.5 },
		{ LATER, 5500000000ULL, false, 1.5 },
		{ LATER, 5999999999ULL, false, 1.5 },
		{ LATER, 6000000000ULL, true, 9.0 },
		{ PRESSURE, 6500000000ULL, false, 9.0 },
		{ PRESSURE, 7000000000ULL, true, 1.5 },
	};
	struct psi_cache cache = { 0 };

	for (size_t i = 0; i < sizeof(steps) / sizeof(steps[0]); i++) {
		bool read;

		unit_write_file("memory", steps[i].text);
		read = psi_cache_refresh(&cache, "memory", steps[i].now_ns);
		expect(read == steps[i].reads, "step %zu: read %d, want %d", i, read, steps[i].reads);
		expect(!cache.err && cache.value.some_avg10 == steps[i].some,
		       "step %zu: err %d, some %.2f, want %.2f", i, cache.err,
		       cache.value.some_avg10, steps[i].some);
	}
}

/* Without PSI the error is kept like a value, and asked again a second later. */
static void test_cache_error(void)
{
	struct psi_cache cache = { 0 };

	expect(psi_cache_refresh(&cache, "missing", 1) && cache.err == -ENOENT,
	       "first reading: err %d", cache.err);
	expect(!psi_cache_refresh(&cache, "missing", 2), "read again within the second");
	unit_write_file("missing", PRESSURE);
	expect(psi_cache_refresh(&cache, "missing", 1 + PSI_CACHE_NS) && !cache.err,
	       "a second later: err %d", cache.err);
}

UNIT_TESTS(
	UNIT_TEST(read),
	UNIT_TEST(read_errors),
	UNIT_TEST(cache_once_a_second),
	UNIT_TEST(cache_error),
);
