// SPDX-License-Identifier: GPL-2.0
/*
 * pfprofctl/memory/series: a target's cgroup over time from the memory log,
 * rates and pressure between its lines, unknowns left out of the picture.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "memory/series.h"
#include "unit.h"

#define HEADER "# pfprof memory log format 1\n# created 1\n# columns: x\n# units: x\n"
#define T0 1700000000000000000ULL
#define SECOND 1000000000ULL

static void test_rates(void)
{
	size_t points = 0;
	char *text;
	int err;

	expect(!mkdir("logs", 0755), "mkdir: %s", strerror(errno));
	unit_write_file("logs/pfprof-memory.log", HEADER
		/* the first line only starts the rates */
		"1\t1700000000.000000\t7\t1048576\tmax\tmax\t-\t0\t0\t100\t1000\n"
		"2\t1700000000.500000\t8\t1\t1\t1\t1\t1\t1\t1\t1\n"	/* another target's */
		"21\t1700000001.000000\t7\t2097152\t33554432\tmax\t-\t500000\t100000\t150\t1200\n"
		/* a cgroup made anew: its counters went back */
		"41\t1700000002.000000\t7\t2097152\t33554432\tmax\t-\t10\t10\t0\t0\n"
		"61\t1700000003.000000\t7\t2097152\t33554432\tmax\t-\t-\t-\t0\t0\n"
		"81\t1700000099.000000\t7\t2097152\t33554432\tmax\t-\t-\t-\t0\t0\n");
	err = memory_series_write("logs", 1, 7, T0, T0 + 10 * SECOND, "series", &points);
	expect(!err && points == 3, "err %d, %zu points", err, points);
	text = unit_read_file("series");
	expect(!strcmp(text, "1700000001.000 2.000 32.000 200.000 50.000 50.000 10.000\n"
			     "1700000002.000 2.000 32.000 NaN NaN NaN NaN\n"
			     "1700000003.000 2.000 32.000 0.000 0.000 NaN NaN\n"),
	       "series:\n%s", text);
	free(text);
}

/* No memory log (a pfprofd before it, a process's owner): no points, no error. */
static void test_no_log(void)
{
	size_t points = 1;
	int err = memory_series_write("logs", 1, 7, T0, T0 + SECOND, "series", &points);

	expect(!err && !points, "err %d, %zu points", err, points);
}

UNIT_TESTS(
	UNIT_TEST(rates),
	UNIT_TEST(no_log),
);
