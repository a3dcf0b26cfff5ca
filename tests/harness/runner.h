/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The test runner shared by the host unit tests (tests/unit) and the guest
 * suite (tests/guest). Each test runs in a process group of its own and
 * either returns (pass) or calls fail() with a reason; helpers it leaves
 * behind are killed with the group. The runner prints "START name" before a
 * test, "RUNNING name for N s" every 30 s while it runs, "PASS name (N.N s)"
 * or "FAIL name (N.N s): reason" after it, and "N passed, N failed" last.
 * A test's timeout is scaled by PFPROF_TIMEOUT_SCALE (at least 1).
 *
 * A test binary: [--list] [TEST...] runs the named tests (all by default).
 * Exit status: 0 all passed, 1 a test failed, 2 usage error.
 */
#ifndef PFPROF_TEST_RUNNER_H
#define PFPROF_TEST_RUNNER_H

#include <stdbool.h>
#include <stddef.h>

struct test {
	const char *name;
	void (*run)(void);
	const char *params;	/* for the suite's hooks: the guest's module parameters */
	unsigned int timeout_s;	/* 0: none; times PFPROF_TIMEOUT_SCALE */
};

struct test_suite {
	const char *prog;
	const struct test *tests;
	size_t nr_tests;
	/*
	 * Optional hooks. before() and after() run in the runner's process
	 * around each test and return 0, or -1 with the reason in why (the test
	 * fails); after() is also told the failure so far (why is not empty).
	 * enter() runs in the test's process before run().
	 */
	int (*before)(const struct test *t, char *why, size_t size);
	int (*after)(const struct test *t, char *why, size_t size);
	void (*enter)(const struct test *t);
};

/* The test binary's main(). */
int test_main(const struct test_suite *suite, int argc, char **argv);

/*
 * A timeout is a hang detector, not a verdict on speed: the tests' limits
 * (the table's and their waits') are multiplied by this, PFPROF_TIMEOUT_SCALE
 * (a slower kernel, a busier host), at least 1.
 */
double timeout_scale(void);

/* Ends the running test as failed with a reason (printf format). */
__attribute__((noreturn, format(printf, 1, 2)))
void fail(const char *fmt, ...);

#define expect(cond, ...) do { if (!(cond)) fail(__VA_ARGS__); } while (0)

#endif /* PFPROF_TEST_RUNNER_H */
