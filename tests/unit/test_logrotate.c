// SPDX-License-Identifier: GPL-2.0
/*
 * lib/logrotate's renames for any file (heatmap logs): the current file to
 * .1, .N to .N+1, the oldest beyond keep deleted, a gap filled; keep 0
 * deletes. pfprofd's logs go through the same code (test_logwriter).
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "logrotate.h"
#include "unit.h"

static void expect_text(const char *path, const char *want)
{
	char *text = unit_read_file(path);

	expect(text && !strcmp(text, want), "%s holds '%s', want '%s'", path,
	       text ? text : "(none)", want);
	free(text);
}

static void expect_missing(const char *path)
{
	expect(access(path, F_OK), "%s is there", path);
}

/* Three rotations with keep 2: the two newest kept, in order. */
static void test_shift_keeps(void)
{
	const char *texts[] = { "first", "second", "third" };

	for (int i = 0; i < 3; i++) {
		unit_write_file("h.log", texts[i]);
		expect(!logrotate_shift_path("h.log", 2), "rotation %d failed", i);
	}
	expect_missing("h.log");
	expect_text("h.log.1", "third");
	expect_text("h.log.2", "second");
	expect_missing("h.log.3");
}

/* A gap at .1 (a crash between renames): the current file fills it, .2 stays. */
static void test_shift_fills_gap(void)
{
	unit_write_file("g.log", "new");
	unit_write_file("g.log.2", "old");
	expect(!logrotate_shift_path("g.log", 3), "rotation failed");
	expect_text("g.log.1", "new");
	expect_text("g.log.2", "old");
	expect_missing("g.log.3");
}

/* keep 0: nothing is kept; a file that is not there is fine. */
static void test_shift_keep_none(void)
{
	unit_write_file("z.log", "gone");
	expect(!logrotate_shift_path("z.log", 0), "keep 0 failed");
	expect_missing("z.log");
	expect_missing("z.log.1");
	expect(!logrotate_shift_path("z.log", 0), "keep 0 of no file failed");
}

UNIT_TESTS(UNIT_TEST(shift_keeps), UNIT_TEST(shift_fills_gap), UNIT_TEST(shift_keep_none));
