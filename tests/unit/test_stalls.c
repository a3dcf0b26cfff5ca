// SPDX-License-Identifier: GPL-2.0
/* lib/stalls: whether delay accounting is on, and the words of the kinds of wait. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "stalls.h"
#include "unit.h"

/* delayacct_read() of a file holding text; the file is removed after. */
static int read_text(const char *text)
{
	char path[] = "/tmp/pfprof-delayacct-XXXXXX";
	int fd = mkstemp(path), got;

	expect(fd >= 0, "mkstemp: %s", strerror(errno));
	expect(write(fd, text, strlen(text)) == (ssize_t)strlen(text), "write failed");
	close(fd);
	got = delayacct_read(path);
	unlink(path);
	return got;
}

static void test_delayacct_read(void)
{
	int got;

	expect((got = read_text("1\n")) == 1, "on read as %d", got);
	expect((got = read_text("0\n")) == 0, "off read as %d", got);
	expect((got = read_text("")) == -EPROTO, "an empty file read as %d", got);
	expect((got = read_text("yes\n")) == -EPROTO, "'yes' read as %d", got);
	expect((got = delayacct_read("/nonexistent/task_delayacct")) == -ENOENT,
	       "a missing file read as %d", got);
}

/* The logs' column names and the metrics' labels come from these words. */
static void test_words(void)
{
	static const char *const want[STALL_KINDS] = { "swapin", "thrashing", "reclaim",
						       "compact", "blkio" };

	for (int k = 0; k < STALL_KINDS; k++)
		expect(!strcmp(stall_kind_word(k), want[k]), "kind %d is '%s'", k,
		       stall_kind_word(k));
	expect(!strcmp(stall_kind_word(STALL_KINDS), "?"), "past the kinds: '%s'",
	       stall_kind_word(STALL_KINDS));
}

UNIT_TESTS(UNIT_TEST(delayacct_read), UNIT_TEST(words));
