// SPDX-License-Identifier: GPL-2.0
#include "runner.h"

#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "clock.h"

#define REASON_MAX 1024

static int reason_fd = -1;

void fail(const char *fmt, ...)
{
	char reason[REASON_MAX];
	va_list ap;
	int len;

	va_start(ap, fmt);
	len = vsnprintf(reason, sizeof(reason), fmt, ap);
	va_end(ap);
	if (len < 0)
		len = 0;
	if ((size_t)len >= sizeof(reason))
		len = sizeof(reason) - 1;
	if (reason_fd < 0 || write(reason_fd, reason, len) < 0)
		fprintf(stderr, "%s\n", reason);
	_exit(1);
}

static uint64_t monotonic_ms(void)
{
	return clock_ns(CLOCK_MONOTONIC) / 1000000;
}

/*
 * A test still running says so this often: the host tells a slow guest (it
 * keeps printing) from a hung one (it stops) by these lines alone.
 */
#define HEARTBEAT_MS 30000

double timeout_scale(void)
{
	const char *text = getenv("PFPROF_TIMEOUT_SCALE");
	double scale = text ? strtod(text, NULL) : 1;

	return scale >= 1 ? scale : 1;
}

static uint64_t timeout_ms(const struct test *t)
{
	return (uint64_t)(t->timeout_s * timeout_scale() * 1000);
}

/* Waits for the test, killing its group on timeout; the group goes in any case. */
static int wait_test(pid_t pid, const struct test *t, uint64_t limit_ms, bool *timed_out)
{
	uint64_t start = monotonic_ms(), heartbeat = start + HEARTBEAT_MS;
	struct timespec tick = { 0, 10 * 1000000 };
	int status = 0;

	*timed_out = false;
	while (waitpid(pid, &status, WNOHANG) == 0) {
		uint64_t now = monotonic_ms();

		if (limit_ms && now - start > limit_ms) {
			*timed_out = true;
			kill(-pid, SIGKILL);
			waitpid(pid, &status, 0);
			break;
		}
		if (now >= heartbeat) {
			printf("RUNNING %s for %.0f s\n", t->name, (double)(now - start) / 1000);
			heartbeat += HEARTBEAT_MS;
		}
		nanosleep(&tick, NULL);
	}
	kill(-pid, SIGKILL);	/* helpers the test left running */
	while (waitpid(-1, NULL, WNOHANG) > 0)
		;
	return status;
}

/* Runs the test in its own process group; why stays empty if it passed. */
static void run_child(const struct test_suite *suite, const struct test *t, char *why,
		      size_t size)
{
	uint64_t limit_ms;
	bool timed_out;
	int fds[2], status;
	ssize_t len;
	pid_t pid;

	if (pipe(fds)) {
		snprintf(why, size, "pipe: %s", strerror(errno));
		return;
	}
	fflush(NULL);
	pid = fork();
	if (pid == 0) {
		setpgid(0, 0);
		close(fds[0]);
		reason_fd = fds[1];
		if (suite->enter)
			suite->enter(t);
		t->run();
		_exit(0);
	}
	close(fds[1]);
	if (pid < 0) {
		close(fds[0]);
		snprintf(why, size, "fork: %s", strerror(errno));
		return;
	}
	setpgid(pid, pid);
	limit_ms = timeout_ms(t);
	status = wait_test(pid, t, limit_ms, &timed_out);
	len = read(fds[0], why, size - 1);
	why[len > 0 ? len : 0] = '\0';
	close(fds[0]);
	if (timed_out)
		snprintf(why, size, "timed out after %.0f s", (double)limit_ms / 1000);
	else if (WIFSIGNALED(status))
		snprintf(why, size, "killed by signal %d", WTERMSIG(status));
	else if (WEXITSTATUS(status) && !why[0])
		snprintf(why, size, "exit status %d", WEXITSTATUS(status));
}

/*
 * "START name" before a test and "PASS name (s)" or "FAIL name (s): why"
 * after it: a guest killed for silence names the test it was in, and every
 * finished test says how long it took.
 */
static int run_one(const struct test_suite *suite, const struct test *t)
{
	char why[REASON_MAX] = "";
	uint64_t start_ms = monotonic_ms();
	double took;

	printf("START %s\n", t->name);
	if (!suite->before || !suite->before(t, why, sizeof(why)))
		run_child(suite, t, why, sizeof(why));
	if (suite->after)
		suite->after(t, why, sizeof(why));
	took = (double)(monotonic_ms() - start_ms) / 1000;
	if (!why[0]) {
		printf("PASS %s (%.1f s)\n", t->name, took);
		return 0;
	}
	printf("FAIL %s (%.1f s): %s\n", t->name, took, why);
	return 1;
}

static const struct test *find_test(const struct test_suite *suite, const char *name)
{
	for (size_t i = 0; i < suite->nr_tests; i++)
		if (!strcmp(suite->tests[i].name, name))
			return &suite->tests[i];
	return NULL;
}

static bool selected(const struct test *t, int argc, char **argv)
{
	for (int i = 1; i < argc; i++)
		if (!strcmp(argv[i], t->name))
			return true;
	return argc == 1;
}

int test_main(const struct test_suite *suite, int argc, char **argv)
{
	int passed = 0, failed = 0;

	setvbuf(stdout, NULL, _IOLBF, 0);
	/* Orphaned helpers come back to us, so nothing outlives its test. */
	prctl(PR_SET_CHILD_SUBREAPER, 1);
	if (argc == 2 && !strcmp(argv[1], "--list")) {
		for (size_t i = 0; i < suite->nr_tests; i++)
			printf("%s\n", suite->tests[i].name);
		return 0;
	}
	for (int i = 1; i < argc; i++) {
		if (!find_test(suite, argv[i])) {
			fprintf(stderr, "%s: no test named '%s' (see --list)\n", suite->prog,
				argv[i]);
			return 2;
		}
	}
	for (size_t i = 0; i < suite->nr_tests; i++) {
		if (!selected(&suite->tests[i], argc, argv))
			continue;
		if (run_one(suite, &suite->tests[i]))
			failed++;
		else
			passed++;
	}
	printf("%d passed, %d failed\n", passed, failed);
	return failed ? 1 : 0;
}
