/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The host unit tests of libpfprof and pfprofd. Each test binary lists its
 * tests with UNIT_TESTS() and gets main() from unit.c, on the shared runner
 * (tests/harness/runner.h): every test runs in its own process with a fresh
 * temporary directory as its working directory, kept if the test fails.
 */
#ifndef PFPROF_UNIT_H
#define PFPROF_UNIT_H

#include <stdbool.h>
#include <stddef.h>

#include "runner.h"

extern const struct test unit_tests[];
extern const size_t unit_tests_count;

/* The test named id is the function test_<id>. */
#define UNIT_TEST(id) { .name = #id, .run = test_##id }
#define UNIT_TESTS(...) \
	const struct test unit_tests[] = { __VA_ARGS__ }; \
	const size_t unit_tests_count = sizeof(unit_tests) / sizeof(unit_tests[0])

/* The test's own empty temporary directory (also its working directory). */
const char *unit_dir(void);

/* Writes text to path (relative paths are inside unit_dir()), or fails. */
void unit_write_file(const char *path, const char *text);
/* Reads a whole file into a malloc()ed NUL-terminated string, or fails. */
char *unit_read_file(const char *path);

/*
 * Fails unless path is a regular file (not followed if a symbolic link) with
 * mode (e.g. 0640) and, if group is true, pfprof's group: the group pfprof
 * if it exists and this process may give it, else its own (privfile.h).
 */
void unit_expect_mode(const char *path, unsigned int mode, bool group);

/* Collects what a config_report_fn / targetsfile_report_fn is told. */
#define UNIT_MAX_REPORTS 16

struct unit_report {
	char file[64];
	unsigned int line;
	char message[256];
};

struct unit_reports {
	size_t count;
	struct unit_report r[UNIT_MAX_REPORTS];
};

/* The report callback; ctx is a struct unit_reports. Fails on overflow. */
void unit_record_report(void *ctx, const char *file, unsigned int line, const char *message);

#endif /* PFPROF_UNIT_H */
