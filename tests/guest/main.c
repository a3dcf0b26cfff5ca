// SPDX-License-Identifier: GPL-2.0
/*
 * mp3-tests [--list] [TEST...]: the guest suite on the shared runner
 * (tests/harness/runner.h), each test against a freshly loaded mp3.ko.
 * Exit status: 0 all passed, 1 a test failed, 2 usage error.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>

#include "harness.h"

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
	if (t->params && !strcmp(t->params, NO_MODULE))
		return 0;
	err = module_load(t->params);
	if (err) {
		snprintf(why, size, "loading mp3.ko %s: %s", t->params ? t->params : "",
			 strerror(-err));
		return -1;
	}
	return 0;
}

/* Even after a failure: the next test needs a fresh module. */
static int unload_module(const struct test *t, char *why, size_t size)
{
	(void)t;
	if (!module_loaded())
		return 0;
	return release_module(why[0] ? NULL : why, size) ? -1 : 0;
}

int main(int argc, char **argv)
{
	const struct test_suite suite = {
		.prog = "mp3-tests",
		.tests = tests,
		.nr_tests = nr_tests,
		.before = prepare_module,
		.after = unload_module,
	};

	return test_main(&suite, argc, argv);
}
