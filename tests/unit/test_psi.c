// SPDX-License-Identifier: GPL-2.0
/* lib/psi: parsing /proc/pressure/memory, and reading it at most once per PSI_CACHE_NS. */
#include <errno.h>
#include <string.h>
#include <sys/stat.h>

#include "psi.h"
#include "unit.h"

#define PRESSURE "some avg10=1.50 avg60=0.40 avg300=0.10 total=123456\n" \
		 "full avg10=0.75 avg60=0.20 avg300=0.05 total=65432\n"
#define LATER "some avg10=9.00 avg60=0.40 avg300=0.10 total=223456\n" \
	      "full avg10=4.00 avg60=0.20 avg300=0.05 total=165432\n"

static void test_parse(void)
{
	struct psi_memory psi;
	int err = psi_parse(PRESSURE, &psi);

	expect(!err, "psi_parse: %s", strerror(-err));
	expect(psi.some_avg10 == 1.5 && psi.full_avg10 == 0.75 && psi.some_total_us == 123456 &&
	       psi.full_total_us == 65432, "read %.2f %.2f %llu %llu", psi.some_avg10,
	       psi.full_avg10, (unsigned long long)psi.some_total_us,
	       (unsigned long long)psi.full_total_us);
}

static void test_parse_errors(void)
{
	static const char *const bad[] = {
		"",
		"some avg10=1.50 avg60=0.40 avg300=0.10 total=123456\n",	/* no full line */
		"full avg10=1 avg60=0 avg300=0 total=1\n",			/* no some line */
		"some avg10=x avg60=0.40 avg300=0.10 total=1\nfull avg10=1 avg60=0 avg300=0 total=1\n",
		"some avg10=1 avg60=0 avg300=0 total=1\nfull avg10=1 avg60=0 avg300=0\n",
	};
	struct psi_memory psi = { .some_avg10 = 42 };

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		int err = psi_parse(bad[i], &psi);

		expect(err == -EPROTO, "text %zu gave %d, want -EPROTO", i, err);
		expect(psi.some_avg10 == 42, "text %zu changed the reading", i);
	}
}

/* A cgroup's file, in its directory; none without it (a cgroup gone, PSI off). */
static void test_read_cgroup(void)
{
	struct psi_memory psi;
	int err;

	expect(psi_read_cgroup("nocgroup", &psi) == -ENOENT, "a missing cgroup read");
	expect(!mkdir("cg", 0755), "mkdir: %s", strerror(errno));
	expect(psi_read_cgroup("cg", &psi) == -ENOENT, "a cgroup without the file read");
	unit_write_file("cg/memory.pressure", PRESSURE);
	err = psi_read_cgroup("cg", &psi);
	expect(!err && psi.some_total_us == 123456 && psi.full_total_us == 65432,
	       "read %d: %llu %llu", err, (unsigned long long)psi.some_total_us,
	       (unsigned long long)psi.full_total_us);
}

/*
 * The file changes in place between readings (as the kernel's does, behind
 * the descriptor the cache keeps); the cache reads it at 5 s, 7 s and 9 s only.
 */
static void test_cache_once_per_period(void)
{
	static const struct {
		const char *text;	/* the file from this step on */
		uint64_t now_ns;
		bool reads;
		double some;		/* what the cache holds after the step */
	} steps[] = {
		{ PRESSURE, 5000000000ULL, true, 1.5 },
		{ LATER, 5500000000ULL, false, 1.5 },
		{ LATER, 6999999999ULL, false, 1.5 },
		{ LATER, 7000000000ULL, true, 9.0 },
		{ PRESSURE, 8000000000ULL, false, 9.0 },
		{ PRESSURE, 9000000000ULL, true, 1.5 },
	};
	struct psi_cache cache = PSI_CACHE_INIT;

	for (size_t i = 0; i < sizeof(steps) / sizeof(steps[0]); i++) {
		bool read;

		unit_write_file("memory", steps[i].text);
		read = psi_cache_refresh(&cache, "memory", steps[i].now_ns);
		expect(read == steps[i].reads, "step %zu: read %d, want %d", i, read, steps[i].reads);
		expect(!cache.err && cache.value.some_avg10 == steps[i].some,
		       "step %zu: err %d, some %.2f, want %.2f", i, cache.err,
		       cache.value.some_avg10, steps[i].some);
		expect(psi_cache_value(&cache) == &cache.value, "step %zu: no value", i);
	}
	psi_cache_close(&cache);
	expect(cache.fd == -1, "closed, the descriptor is %d", cache.fd);
}

/* Text not understood is an error, not a value; the file stays open for the next reading. */
static void test_cache_bad_text(void)
{
	struct psi_cache cache = PSI_CACHE_INIT;

	unit_write_file("memory", "some avg10=1.50\n");
	expect(psi_cache_refresh(&cache, "memory", 1) && cache.err == -EPROTO,
	       "bad text: err %d", cache.err);
	expect(!psi_cache_value(&cache), "a value from bad text");
	unit_write_file("memory", PRESSURE);
	expect(psi_cache_refresh(&cache, "memory", 1 + PSI_CACHE_NS) && !cache.err &&
	       psi_cache_value(&cache) && psi_cache_value(&cache)->full_avg10 == 0.75,
	       "good text: err %d", cache.err);
	psi_cache_close(&cache);
}

/* Without PSI the error is kept like a value, and asked again a period later. */
static void test_cache_error(void)
{
	struct psi_cache cache = PSI_CACHE_INIT;

	expect(psi_cache_refresh(&cache, "missing", 1) && cache.err == -ENOENT,
	       "first reading: err %d", cache.err);
	expect(!psi_cache_refresh(&cache, "missing", 2), "read again within the period");
	unit_write_file("missing", PRESSURE);
	expect(psi_cache_refresh(&cache, "missing", 1 + PSI_CACHE_NS) && !cache.err,
	       "a period later: err %d", cache.err);
	psi_cache_close(&cache);
}

UNIT_TESTS(
	UNIT_TEST(parse),
	UNIT_TEST(read_cgroup),
	UNIT_TEST(parse_errors),
	UNIT_TEST(cache_once_per_period),
	UNIT_TEST(cache_bad_text),
	UNIT_TEST(cache_error),
);
