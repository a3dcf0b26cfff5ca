/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A small unit-test runner for the daemon's host tests. Each test binary
 * defines unit_tests[] and gets main() from unit.c: every test runs in its own
 * process with a fresh temporary directory as its working directory, and the
 * binary prints "PASS name" or "FAIL name: reason" per test, then
 * "N passed, N failed". Exit status 0 if all passed, 1 otherwise.
 */
#ifndef PFPROF_UNIT_H
#define PFPROF_UNIT_H

#include <stddef.h>

struct unit_test {
	const char *name;
	void (*run)(void);
};

extern const struct unit_test unit_tests[];
extern const size_t unit_tests_count;

#define UNIT_TESTS(...) \
	const struct unit_test unit_tests[] = { __VA_ARGS__ }; \
	const size_t unit_tests_count = sizeof(unit_tests) / sizeof(unit_tests[0])

/* Ends the running test as failed (printf format). */
__attribute__((noreturn, format(printf, 1, 2)))
void unit_fail(const char *fmt, ...);

#define UNIT_CHECK(cond, ...) do { if (!(cond)) unit_fail(__VA_ARGS__); } while (0)

/* The test's own empty temporary directory (also its working directory). */
const char *unit_dir(void);

/* Writes text to path (relative paths are inside unit_dir()), or fails. */
void unit_write_file(const char *path, const char *text);
/* Reads a whole file into a malloc()ed NUL-terminated string, or fails. */
char *unit_read_file(const char *path);

/* Collects what a config_report_fn / pidlist_report_fn is told. */
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
