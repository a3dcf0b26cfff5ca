// SPDX-License-Identifier: GPL-2.0
/*
 * mp3-tests [--list] [TEST...]: runs the named tests (all by default), each
 * in its own process group against a freshly loaded mp3.ko, and prints
 * "PASS name" or "FAIL name: reason" per test and "N passed, N failed" last.
 * Exit status: 0 all passed, 1 a test failed, 2 usage error.
 */
#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "harness.h"

#define REASON_MAX 512

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

/* The module must unload once the test's processes are gone. */
static int release_module(char *why, size_t size)
{
	int err = 0;

	for (int i = 0; i < 200; i++) {
		err = module_unload();
		if (err != -EAGAIN && err != -EBUSY)
			break;
		sleep_ms(10);
		while (waitpid(-1, NULL, WNOHANG) > 0)
			;
	}
	if (err && why)
		snprintf(why, size, "mp3 does not unload: %s", strerror(-err));
	return err;
}

/* Loads mp3.ko afresh, unloading a copy a previous test left behind. */
static int prepare_module(const struct test *t, char *why, size_t size)
{
	int err;

	if (module_loaded() && release_module(why, size))
		return -1;
	err = module_load(t->params);
	if (err) {
		snprintf(why, size, "loading mp3.ko %s: %s", t->params, strerror(-err));
		return -1;
	}
	return 0;
}

/* Waits for the test; on timeout kills its group. Returns its wait status. */
static int wait_test(pid_t pid, unsigned int timeout_s, int *timed_out)
{
	uint64_t deadline = now_ns() + (uint64_t)timeout_s * 1000000000ULL;
	int status;

	*timed_out = 0;
	while (waitpid(pid, &status, WNOHANG) == 0) {
		if (now_ns() > deadline) {
			*timed_out = 1;
			kill(-pid, SIGKILL);
			waitpid(pid, &status, 0);
			break;
		}
		sleep_ms(10);
	}
	kill(-pid, SIGKILL);	/* helpers the test left running */
	while (waitpid(-1, NULL, WNOHANG) > 0)
		;
	return status;
}

static int run_one(const struct test *t)
{
	char why[REASON_MAX] = "";
	int fds[2], status, timed_out;
	ssize_t len;
	pid_t pid;

	if (prepare_module(t, why, sizeof(why)))
		goto failed;
	if (pipe(fds)) {
		snprintf(why, sizeof(why), "pipe: %s", strerror(errno));
		goto failed;
	}
	fflush(NULL);
	pid = fork();
	if (pid == 0) {
		setpgid(0, 0);
		close(fds[0]);
		reason_fd = fds[1];
		t->run();
		_exit(0);
	}
	close(fds[1]);
	if (pid < 0) {
		close(fds[0]);
		snprintf(why, sizeof(why), "fork: %s", strerror(errno));
		goto failed;
	}
	setpgid(pid, pid);
	status = wait_test(pid, t->timeout_s, &timed_out);
	len = read(fds[0], why, sizeof(why) - 1);
	why[len > 0 ? len : 0] = '\0';
	close(fds[0]);
	if (timed_out)
		snprintf(why, sizeof(why), "timed out after %u s", t->timeout_s);
	else if (WIFSIGNALED(status))
		snprintf(why, sizeof(why), "killed by signal %d", WTERMSIG(status));
	else if (WEXITSTATUS(status) && !why[0])
		snprintf(why, sizeof(why), "exit status %d", WEXITSTATUS(status));
	/* Even after a failure: the next test needs a fresh module. */
	if (release_module(why[0] ? NULL : why, sizeof(why)) || why[0])
		goto failed;
	printf("PASS %s\n", t->name);
	return 0;
failed:
	printf("FAIL %s: %s\n", t->name, why);
	return 1;
}

static const struct test *find_test(const char *name)
{
	for (size_t i = 0; i < nr_tests; i++)
		if (!strcmp(tests[i].name, name))
			return &tests[i];
	return NULL;
}

int main(int argc, char **argv)
{
	int passed = 0, failed = 0;

	setvbuf(stdout, NULL, _IOLBF, 0);
	/* Orphaned helpers come back to us, so nothing outlives its test. */
	prctl(PR_SET_CHILD_SUBREAPER, 1);
	if (argc == 2 && !strcmp(argv[1], "--list")) {
		for (size_t i = 0; i < nr_tests; i++)
			printf("%s\n", tests[i].name);
		return 0;
	}
	for (int i = 1; i < argc; i++) {
		if (!find_test(argv[i])) {
			fprintf(stderr, "mp3-tests: no test named '%s' (see --list)\n", argv[i]);
			return 2;
		}
	}
	for (size_t i = 0; i < nr_tests; i++) {
		int selected = argc == 1;

		for (int j = 1; j < argc; j++)
			selected |= !strcmp(argv[j], tests[i].name);
		if (!selected)
			continue;
		if (run_one(&tests[i]))
			failed++;
		else
			passed++;
	}
	printf("%d passed, %d failed\n", passed, failed);
	return failed ? 1 : 0;
}
