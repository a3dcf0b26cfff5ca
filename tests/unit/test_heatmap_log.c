// SPDX-License-Identifier: GPL-2.0
/*
 * pfprofctl/heatmap/log: the heatmap log's lines, from regions and from
 * /proc/PID/maps, and read back.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "heatmap/log.h"
#include "unit.h"

/* What f holds, closed; free() it. */
static char *contents(FILE *f)
{
	expect(!fclose(f), "closing the log");
	return unit_read_file("log");
}

static FILE *open_log(void)
{
	FILE *f = fopen("log", "w");

	expect(f != NULL, "opening the log");
	return f;
}

static void test_header_and_regions(void)
{
	const struct damon_attrs attrs = DAMON_ATTRS_DEFAULT;
	const struct damon_region regions[] = {
		{ .start = 0x7f0000000000, .end = 0x7f0000400000, .nr_accesses = 20, .age = 3 },
		{ .start = 0x7f0000400000, .end = 0x7f0004000000, .nr_accesses = 0, .age = 41 },
	};
	FILE *f = open_log();
	char *text;

	expect(!heatmap_log_header(f, 1234, "postgres", &attrs), "the header");
	expect(!heatmap_log_regions(f, 1700000000123456789ULL, regions, 2), "the regions");
	text = contents(f);
	expect(!strcmp(text, HEATMAP_LOG_MAGIC "\n"
		       "# pid 1234 comm postgres sample_us 5000 aggr_us 100000\n"
		       "region\t1700000000123456789\t7f0000000000\t7f0000400000\t20\t3\n"
		       "region\t1700000000123456789\t7f0000400000\t7f0004000000\t0\t41\n"),
	       "the log:\n%s", text);
	free(text);
}

/* Named, anonymous (with and without trailing spaces) and special mappings. */
static void test_maps(void)
{
	static const char maps[] =
		"55d0c0a00000-55d0c0a21000 r--p 00000000 08:01 1048602                    /usr/bin/cat\n"
		"55d0c1b3e000-55d0c1b5f000 rw-p 00000000 00:00 0                          [heap]\n"
		"7f1c2a000000-7f1c2e000000 rw-p 00000000 00:00 0 \n"
		"7f1c2e000000-7f1c2e001000 r--p 00000000 00:00 0\n"
		"7ffd5c3a1000-7ffd5c3c2000 rw-p 00000000 00:00 0                          [stack]";
	FILE *f = open_log();
	char *text;

	expect(!heatmap_log_maps(f, 42, maps), "the maps");
	text = contents(f);
	expect(!strcmp(text, "map\t42\t55d0c0a00000\t55d0c0a21000\t/usr/bin/cat\n"
		       "map\t42\t55d0c1b3e000\t55d0c1b5f000\t[heap]\n"
		       "map\t42\t7f1c2a000000\t7f1c2e000000\t\n"
		       "map\t42\t7f1c2e000000\t7f1c2e001000\t\n"
		       "map\t42\t7ffd5c3a1000\t7ffd5c3c2000\t[stack]\n"),
	       "the log:\n%s", text);
	free(text);
}

static void test_maps_garbage(void)
{
	FILE *f = open_log();
	int err = heatmap_log_maps(f, 42, "not a maps line\n");

	expect(err == -EPROTO, "a line that is no maps line: %d, want -EPROTO", err);
	fclose(f);
}

/* Each kind of line read back as written; what is none of them refused. */
static void test_read_lines(void)
{
	struct heatmap_log_line l;

	expect(heatmap_log_read_line(HEATMAP_LOG_MAGIC "\n", 1, &l) &&
	       l.kind == HEATMAP_LOG_MAGIC_LINE, "the magic");
	expect(!heatmap_log_read_line("# pfprof heatmap log 2\n", 1, &l), "another format taken");
	expect(heatmap_log_read_line("# pid 1234 comm Web Content sample_us 5000 aggr_us 100000\n",
				     2, &l) && l.kind == HEATMAP_LOG_HEADER && l.pid == 1234 &&
	       l.comm_len == 11 && !strncmp(l.comm, "Web Content", 11) && l.sample_us == 5000 &&
	       l.aggr_us == 100000, "the header");
	expect(heatmap_log_read_line("# a comment\n", 3, &l) && l.kind == HEATMAP_LOG_COMMENT,
	       "a comment");
	expect(heatmap_log_read_line("map\t42\t55d0c0a00000\t55d0c0a21000\t/usr/bin/cat\n", 4, &l) &&
	       l.kind == HEATMAP_LOG_MAP && l.wall_ns == 42 && l.start == 0x55d0c0a00000 &&
	       l.end == 0x55d0c0a21000 && l.name_len == 12 && !strncmp(l.name, "/usr/bin/cat", 12),
	       "a map line");
	expect(heatmap_log_read_line("region\t42\t7f0000000000\t7f0000400000\t20\t3\n", 5, &l) &&
	       l.kind == HEATMAP_LOG_REGION && l.start == 0x7f0000000000 &&
	       l.end == 0x7f0000400000 && l.accesses == 20, "a region line");
	expect(!heatmap_log_read_line("region\t42\t7f0000400000\t7f0000000000\t20\t3\n", 5, &l),
	       "a region that ends before it starts taken");
	expect(!heatmap_log_read_line("map\t42\t10\n", 5, &l), "a short map line taken");
}

UNIT_TESTS(
	UNIT_TEST(header_and_regions),
	UNIT_TEST(maps),
	UNIT_TEST(maps_garbage),
	UNIT_TEST(read_lines),
);
