// SPDX-License-Identifier: GPL-2.0
/*
 * lib/logrotate's renames for any file (heatmap logs): the current file to
 * .1, .N to .N+1, the oldest beyond keep deleted, a gap filled; keep 0
 * deletes. pfprofd's logs go through the same code (test_logwriter). And
 * how readers find a log's files: listed from one read of the directory.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
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

/*
 * logrotate_present(): the current file and the rotated ones up to keep,
 * named as the rotation names them, from a directory read; not .0, a
 * leading zero, a file beyond keep or another log's.
 */
static void test_present(void)
{
	static const char *const files[] = { "p/a.log", "p/a.log.1", "p/a.log.3", "p/a.log.03",
					     "p/a.log.0", "p/a.log.6", "p/a.log.2x", "p/a.logx",
					     "p/b.log.2" };
	const bool want[] = { true, true, false, true, false, false };
	bool present[6];

	expect(!mkdir("p", 0755), "mkdir p");
	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++)
		unit_write_file(files[i], "x");
	expect(!logrotate_present("p/a.log", 5, present), "listing p failed");
	for (int n = 0; n <= 5; n++)
		expect(present[n] == want[n], "a.log.%d: present %d, want %d", n, present[n],
		       want[n]);
	expect(logrotate_present("none/a.log", 5, present) == -ENOENT && !present[0],
	       "a directory that is not there");
}

/* What each_seen() saw, and when it stops logrotate_each(). */
struct seen {
	char paths[4][64];
	int count;
	int stop_at;		/* the count at which it returns 7; 0: never */
};

static int each_seen(const char *path, void *arg)
{
	struct seen *s = arg;

	if (s->count < 4)
		snprintf(s->paths[s->count], sizeof(s->paths[0]), "%s", path);
	return ++s->count == s->stop_at ? 7 : 0;
}

static void expect_seen(const struct seen *s, const unsigned int *want, int count,
			const char *what)
{
	char path[64];

	expect(s->count == count, "%s: %d files, want %d", what, s->count, count);
	for (int i = 0; i < count && i < s->count; i++) {
		expect(!logformat_path(path, sizeof(path), "e", LOGKIND_SAMPLES, want[i]),
		       "path of %u", want[i]);
		expect(!strcmp(s->paths[i], path), "%s: file %d is %s, want %s", what, i,
		       s->paths[i], path);
	}
}

/*
 * logrotate_each(): the files there are, in either order, past a gap; fn's
 * non-zero return stops it and is returned; no directory is -ENOENT.
 */
static void test_each(void)
{
	static const unsigned int there[] = { 0, 1, 3 }, oldest[] = { 3, 1, 0 };
	struct seen newest_first = { 0 }, oldest_first = { 0 }, stopped = { .stop_at = 2 },
		    none = { 0 };
	char path[64];

	expect(!mkdir("e", 0755), "mkdir e");
	for (size_t i = 0; i < sizeof(there) / sizeof(there[0]); i++) {
		expect(!logformat_path(path, sizeof(path), "e", LOGKIND_SAMPLES, there[i]),
		       "path of %u", there[i]);
		unit_write_file(path, "x");
	}
	expect(!logrotate_each("e", LOGKIND_SAMPLES, 4, LOGROTATE_NEWEST_FIRST, each_seen,
			       &newest_first), "newest first failed");
	expect_seen(&newest_first, there, 3, "newest first");
	expect(!logrotate_each("e", LOGKIND_SAMPLES, 4, LOGROTATE_OLDEST_FIRST, each_seen,
			       &oldest_first), "oldest first failed");
	expect_seen(&oldest_first, oldest, 3, "oldest first");
	expect(logrotate_each("e", LOGKIND_SAMPLES, 4, LOGROTATE_NEWEST_FIRST, each_seen,
			      &stopped) == 7, "fn's 7 not returned");
	expect_seen(&stopped, there, 2, "stopped at the second");
	expect(logrotate_each("none", LOGKIND_SAMPLES, 4, LOGROTATE_NEWEST_FIRST, each_seen,
			      &none) == -ENOENT && !none.count, "a directory that is not there");
}

UNIT_TESTS(UNIT_TEST(shift_keeps), UNIT_TEST(shift_fills_gap), UNIT_TEST(shift_keep_none),
	   UNIT_TEST(present), UNIT_TEST(each));
