// SPDX-License-Identifier: GPL-2.0
/*
 * daemon/delayacct: kernel.task_delayacct turned on at start and off at
 * stop only when pfprofd turned it on, with plain files for the sysctl and
 * the marker.
 */
#include <errno.h>
#include <linux/capability.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "delayacct.h"
#include "unit.h"

#define SYSCTL "task_delayacct"
#define MARKER "delayacct"

static bool exists(const char *path)
{
	return !access(path, F_OK);
}

/* The sysctl file holds want ("0\n" or "1\n"). */
static void expect_sysctl(const char *want)
{
	char *got = unit_read_file(SYSCTL);

	expect(!strcmp(got, want), "the sysctl holds '%s', want '%s'", got, want);
	free(got);
}

/*
 * Makes path readable only, for this test's process (each test has its own):
 * mode 0444, which root obeys too once CAP_DAC_OVERRIDE is out of its
 * effective set, as a sysctl that only CAP_SYS_ADMIN may write.
 */
static void read_only(const char *path)
{
	struct __user_cap_header_struct header = { .version = _LINUX_CAPABILITY_VERSION_3 };
	struct __user_cap_data_struct caps[2];

	expect(!chmod(path, 0444), "chmod %s: %s", path, strerror(errno));
	expect(!syscall(SYS_capget, &header, caps), "capget: %s", strerror(errno));
	caps[0].effective &= ~(1U << CAP_DAC_OVERRIDE);
	expect(!syscall(SYS_capset, &header, caps), "capset: %s", strerror(errno));
}

/* delayacct_start(), and failed set exactly when it fails. */
static int start(const char **failed)
{
	int r;

	*failed = "unset";
	r = delayacct_start(SYSCTL, MARKER, failed);
	expect((r < 0) == (*failed != NULL), "start: %d with failed '%s'", r,
	       *failed ? *failed : "(null)");
	return r;
}

static int stop(const char **failed)
{
	int r;

	*failed = "unset";
	r = delayacct_stop(SYSCTL, MARKER, failed);
	expect((r < 0) == (*failed != NULL), "stop: %d with failed '%s'", r,
	       *failed ? *failed : "(null)");
	return r;
}

/* Off before pfprofd: on while it runs, off again after, and the marker in between. */
static void test_off_before_restored(void)
{
	const char *failed;
	int r;

	unit_write_file(SYSCTL, "0\n");
	r = start(&failed);
	expect(r == DELAYACCT_TURNED_ON, "start: %d (%s)", r, failed ? failed : "");
	expect_sysctl("1\n");
	expect(exists(MARKER), "no marker after turning it on");
	r = stop(&failed);
	expect(r == DELAYACCT_TURNED_OFF, "stop: %d (%s)", r, failed ? failed : "");
	expect_sysctl("0\n");
	expect(!exists(MARKER), "the marker is left after the stop");
}

/* On before pfprofd (an administrator, the boot parameter, iotop's user): on after. */
static void test_on_before_kept(void)
{
	const char *failed;
	int r;

	unit_write_file(SYSCTL, "1\n");
	r = start(&failed);
	expect(r == DELAYACCT_WAS_ON, "start: %d", r);
	expect(!exists(MARKER), "a marker for someone else's setting");
	r = stop(&failed);
	expect(r == DELAYACCT_NOT_OURS, "stop: %d", r);
	expect_sysctl("1\n");
}

/*
 * A restart (pfprofd.service's Restart=, or a crash and a new start): the
 * marker of the first start keeps it pfprofd's, so the last stop restores.
 */
static void test_marker_survives_restart(void)
{
	const char *failed;
	int r;

	unit_write_file(SYSCTL, "0\n");
	expect(start(&failed) == DELAYACCT_TURNED_ON, "first start");
	r = start(&failed);
	expect(r == DELAYACCT_STILL_OURS, "second start: %d", r);
	expect_sysctl("1\n");
	expect(stop(&failed) == DELAYACCT_TURNED_OFF, "stop");
	expect_sysctl("0\n");
	/* A second stop (the unit's after pfprofd's own) finds nothing of pfprofd's. */
	r = stop(&failed);
	expect(r == DELAYACCT_NOT_OURS, "second stop: %d", r);
	expect_sysctl("0\n");
}

/* Turned off by someone while the marker says pfprofd's: the next start turns it on again. */
static void test_marker_with_sysctl_off(void)
{
	const char *failed;
	int r;

	unit_write_file(SYSCTL, "0\n");
	unit_write_file(MARKER, "");
	r = start(&failed);
	expect(r == DELAYACCT_STILL_OURS, "start: %d", r);
	expect_sysctl("1\n");
	expect(exists(MARKER), "the marker went");
}

/* A kernel without delay accounting: the sysctl's path in the error, no marker left. */
static void test_no_sysctl(void)
{
	const char *failed;
	int r = start(&failed);

	expect(r == -ENOENT, "start: %d, want -ENOENT", r);
	expect(failed && !strcmp(failed, SYSCTL), "failed names '%s'", failed ? failed : "");
	expect(!exists(MARKER), "a marker without a sysctl");
}

/* The sysctl can be read but not written (not root): the marker made first is removed. */
static void test_unwritable_sysctl(void)
{
	const char *failed;
	int r;

	unit_write_file(SYSCTL, "0\n");
	read_only(SYSCTL);
	r = start(&failed);
	expect(r == -EACCES, "start: %d, want -EACCES", r);
	expect(failed && !strcmp(failed, SYSCTL), "failed names '%s'", failed ? failed : "");
	expect(!exists(MARKER), "a marker, though the sysctl was not written");
	expect_sysctl("0\n");
}

/* A sysctl that cannot be read either: the error and its path, no marker. */
static void test_unreadable_sysctl(void)
{
	const char *failed;
	int r;

	expect(!mkdir(SYSCTL, 0755), "mkdir");
	r = start(&failed);
	expect(r == -EISDIR, "start: %d, want -EISDIR", r);
	expect(failed && !strcmp(failed, SYSCTL), "failed names '%s'", failed ? failed : "");
	expect(!exists(MARKER), "a marker, though the sysctl was not read");
}

/* The marker cannot be made (runtime_dir missing): the sysctl stays off, the marker's path said. */
static void test_marker_unwritable(void)
{
	const char *failed = NULL;
	int r;

	unit_write_file(SYSCTL, "0\n");
	r = delayacct_start(SYSCTL, "no-such-dir/" MARKER, &failed);
	expect(r == -ENOENT, "start: %d, want -ENOENT", r);
	expect(failed && !strcmp(failed, "no-such-dir/" MARKER), "failed names '%s'",
	       failed ? failed : "");
	expect_sysctl("0\n");
}

/*
 * Something that is not a file where the marker goes (a FIFO, which an open
 * would wait on; a symbolic link): not pfprofd's, refused by start and stop.
 */
static void test_marker_not_a_file(void)
{
	const char *failed;

	unit_write_file(SYSCTL, "0\n");
	expect(!mkfifo(MARKER, 0600), "mkfifo: %s", strerror(errno));
	expect(start(&failed) == -EINVAL && !strcmp(failed, MARKER), "start beside a FIFO");
	expect(stop(&failed) == -EINVAL && !strcmp(failed, MARKER), "stop beside a FIFO");
	expect_sysctl("0\n");
	expect(!unlink(MARKER) && !symlink(SYSCTL, MARKER), "symlink: %s", strerror(errno));
	expect(start(&failed) == -EINVAL && !strcmp(failed, MARKER), "start beside a symlink");
	expect_sysctl("0\n");
}

/* A stop that cannot write the sysctl keeps the marker, for a later stop to try again. */
static void test_stop_failure_keeps_marker(void)
{
	const char *failed;
	int r;

	unit_write_file(SYSCTL, "1\n");
	unit_write_file(MARKER, "");
	read_only(SYSCTL);
	r = stop(&failed);
	expect(r == -EACCES && failed && !strcmp(failed, SYSCTL), "stop: %d", r);
	expect_sysctl("1\n");
	expect(exists(MARKER), "the marker went though the sysctl was not written");
}

UNIT_TESTS(
	UNIT_TEST(off_before_restored),
	UNIT_TEST(on_before_kept),
	UNIT_TEST(marker_survives_restart),
	UNIT_TEST(marker_with_sysctl_off),
	UNIT_TEST(no_sysctl),
	UNIT_TEST(unwritable_sysctl),
	UNIT_TEST(unreadable_sysctl),
	UNIT_TEST(marker_unwritable), UNIT_TEST(marker_not_a_file),
	UNIT_TEST(stop_failure_keeps_marker)
);
