// SPDX-License-Identifier: GPL-2.0
/* pfprofctl heatmap's picture: the address axis without its gaps, and the cells' accesses. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "heatmap/data.h"
#include "heatmap/log.h"
#include "unit.h"

/*
 * A program's two segments (touching: one band), 16 KiB of anonymous memory
 * and a stack page, far apart: 32 KiB mapped, 8 rows of 4 KiB. The first
 * snapshot has the program hot, the anonymous memory's first half warm,
 * the rest cold, in a region that spans the gaps; the second has all at 5.
 */
#define LOG HEATMAP_LOG_MAGIC "\n" \
	"# pid 1234 comm Web Content sample_us 5000 aggr_us 100000\n" \
	"map\t1000\t10000\t12000\t/usr/bin/x\n" \
	"map\t1000\t12000\t13000\t/usr/bin/x\n" \
	"map\t1000\t7f0000000000\t7f0000004000\t\n" \
	"map\t1000\t7ffff0000000\t7ffff0001000\t[stack]\n" \
	"region\t1000\t10000\t13000\t20\t1\n" \
	"region\t1000\t7f0000000000\t7f0000002000\t10\t1\n" \
	"region\t1000\t7f0000002000\t7ffff0001000\t0\t1\n" \
	"region\t2000\t10000\t7ffff0001000\t5\t3\n"

static int read_log(const char *text, size_t rows, struct heatmap_data *d, unsigned long *line)
{
	FILE *f;
	int err;

	unit_write_file("log", text);
	f = fopen("log", "re");
	expect(f != NULL, "opening the log");
	err = heatmap_data_read(f, rows, d, line);
	fclose(f);
	return err;
}

static void test_axis_without_gaps(void)
{
	struct heatmap_data d;
	unsigned long line;
	int err = read_log(LOG, 8, &d, &line);

	expect(!err, "reading the log: %s (line %lu)", strerror(-err), line);
	expect(d.pid == 1234 && !strcmp(d.comm, "Web Content") && d.sample_us == 5000 &&
	       d.aggr_us == 100000, "header: pid %d comm '%s' %llu/%llu", (int)d.pid, d.comm,
	       (unsigned long long)d.sample_us, (unsigned long long)d.aggr_us);
	expect(d.nr_bands == 3 && d.mapped == 0x8000, "%zu bands, %llu bytes", d.nr_bands,
	       (unsigned long long)d.mapped);
	expect(d.bands[0].start == 0x10000 && d.bands[0].end == 0x13000 &&
	       d.bands[0].row_from == 0 && d.bands[0].row_to == 3 &&
	       !strcmp(d.bands[0].name, "/usr/bin/x"), "the program's band");
	expect(d.bands[1].row_from == 3 && d.bands[1].row_to == 7 && !d.bands[1].name[0],
	       "the anonymous band");
	expect(d.bands[2].row_from == 7 && d.bands[2].row_to == 8 &&
	       !strcmp(d.bands[2].name, "[stack]"), "the stack");
	expect(heatmap_data_row(&d, 0x7f0000002000) == 5 && heatmap_data_row(&d, 0x7ffff0000fff) == 7,
	       "rows %ld and %ld", heatmap_data_row(&d, 0x7f0000002000),
	       heatmap_data_row(&d, 0x7ffff0000fff));
	expect(heatmap_data_row(&d, 0x20000) == -1, "an address in a gap has a row");
	heatmap_data_free(&d);
}

static void test_cells(void)
{
	static const double first[8] = { 20, 20, 20, 10, 10, 0, 0, 0 };
	struct heatmap_data d;
	unsigned long line;
	int err = read_log(LOG, 8, &d, &line);

	expect(!err && d.nr_times == 2 && d.times[0] == 1000 && d.times[1] == 2000,
	       "%d, %zu snapshots", err, d.nr_times);
	for (size_t r = 0; r < 8; r++) {
		expect(d.cells[r] == first[r], "first snapshot, row %zu: %g, want %g", r, d.cells[r],
		       first[r]);
		expect(d.cells[8 + r] == 5, "second snapshot, row %zu: %g, want 5", r, d.cells[8 + r]);
	}
	heatmap_data_free(&d);
}

/*
 * 1 GiB of heap and a stack page on 100 rows: the stack gets the least a
 * band may have (2 rows), the heap the rest, each linear within itself.
 */
static void test_least_rows(void)
{
	struct heatmap_data d;
	unsigned long line;
	int err = read_log(HEATMAP_LOG_MAGIC "\n"
			   "map\t1\t10000000\t50000000\t[heap]\n"
			   "map\t1\t7ffff0000000\t7ffff0001000\t[stack]\n"
			   "region\t1\t10000000\t30000000\t20\t0\n"
			   "region\t1\t30000000\t7ffff0001000\t4\t0\n", 100, &d, &line);

	expect(!err, "reading the log: %s", strerror(-err));
	expect(d.bands[0].row_to == 98 && d.bands[1].row_from == 98 && d.bands[1].row_to == 100,
	       "heap rows 0 to %g, stack %g to %g", d.bands[0].row_to, d.bands[1].row_from,
	       d.bands[1].row_to);
	expect(d.cells[0] == 20 && d.cells[48] == 20 && d.cells[49] == 4 && d.cells[99] == 4,
	       "cells %g %g %g %g", d.cells[0], d.cells[48], d.cells[49], d.cells[99]);
	heatmap_data_free(&d);
}

/* A row no region covers has no value (-1), not 0: cold and unseen differ. */
static void test_uncovered_row(void)
{
	struct heatmap_data d;
	unsigned long line;
	int err = read_log(HEATMAP_LOG_MAGIC "\n"
			   "map\t1\t1000\t3000\t\n"
			   "region\t1\t1000\t2000\t7\t0\n", 2, &d, &line);

	expect(!err && d.cells[0] == 7 && d.cells[1] == -1, "%d: cells %g %g", err,
	       err ? 0 : d.cells[0], err ? 0 : d.cells[1]);
	heatmap_data_free(&d);
}

static void test_bad_logs(void)
{
	static const struct {
		const char *text;
		int err;
		unsigned long line;
	} cases[] = {
		{ "# pfprof samples log 2\n", -EPROTO, 1 },
		{ HEATMAP_LOG_MAGIC "\n# pid x comm y\n", -EPROTO, 2 },
		{ HEATMAP_LOG_MAGIC "\nmap\t1\t2000\t1000\tx\n", -EPROTO, 2 },
		{ HEATMAP_LOG_MAGIC "\nmap\t1\t1000\t2000\tx\nregion\t1\t1000\n", -EPROTO, 3 },
		{ HEATMAP_LOG_MAGIC "\nmap\t1\t1000\t2000\tx\nregion\t2\t1000\t2000\t1\t1\n"
		  "region\t1\t1000\t2000\t1\t1\n", -EPROTO, 4 },
		{ HEATMAP_LOG_MAGIC "\nmap\t1\t1000\t2000\tx\n", -ENODATA, 0 },
		{ HEATMAP_LOG_MAGIC "\nregion\t1\t1000\t2000\t1\t1\n", -ENODATA, 0 },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct heatmap_data d;
		unsigned long line;
		int err = read_log(cases[i].text, 4, &d, &line);

		expect(err == cases[i].err && (!cases[i].line || line == cases[i].line),
		       "log %zu: %d at line %lu, want %d at line %lu", i, err, line, cases[i].err,
		       cases[i].line);
	}
}

UNIT_TESTS(
	UNIT_TEST(axis_without_gaps),
	UNIT_TEST(cells),
	UNIT_TEST(least_rows),
	UNIT_TEST(uncovered_row),
	UNIT_TEST(bad_logs),
);
