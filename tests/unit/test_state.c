// SPDX-License-Identifier: GPL-2.0
/* lib/state: what a running pfprofd tells pfprofctl, and the modes of its files. */
#include "unit.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "state.h"

/* The state is the group pfprof's (privfile.h): 0640 whatever the umask. */
static void test_modes(void)
{
	struct pfprof_state st = { .pid = 42, .logged = 7 }, back;
	pid_t pid;
	int fd, err;

	umask(0);
	err = state_lock(".", &fd);
	expect(!err, "state_lock: %s", strerror(-err));
	unit_expect_mode("pfprofd.pid", 0640, true);
	err = state_write(".", &st);
	expect(!err, "state_write: %s", strerror(-err));
	unit_expect_mode("state", 0640, true);
	expect(!state_read(".", &back) && back.pid == 42 && back.logged == 7, "read back");
	/* The lock is held: pfprofctl's lookup finds the daemon (this process). */
	expect(!state_daemon_pid(".", &pid) && pid == getpid(), "daemon PID %d", (int)pid);
	close(fd);
}

/* An older version's 0644 files are tightened: the lock when opened, the state when replaced. */
static void test_old_files_tightened(void)
{
	struct pfprof_state st = { .pid = 42 };
	int fd, err;

	unit_write_file("pfprofd.pid", "1\n");
	unit_write_file("state", "pid 1\n");
	expect(!chmod("pfprofd.pid", 0644) && !chmod("state", 0644), "chmod: %s", strerror(errno));
	err = state_lock(".", &fd);
	expect(!err, "state_lock: %s", strerror(-err));
	unit_expect_mode("pfprofd.pid", 0640, true);
	expect(!state_write(".", &st), "state_write failed");
	unit_expect_mode("state", 0640, true);
	close(fd);
}

/* A symbolic link planted at the lock file's path is refused, not followed. */
static void test_symlink_refused(void)
{
	char *text;
	int fd, err;

	unit_write_file("victim", "kept\n");
	expect(!symlink("victim", "pfprofd.pid"), "symlink: %s", strerror(errno));
	err = state_lock(".", &fd);
	expect(err == -ELOOP, "state_lock through a link: %s", strerror(-err));
	text = unit_read_file("victim");
	expect(!strcmp(text, "kept\n"), "the link's target was written: %s", text);
	free(text);
}

UNIT_TESTS(UNIT_TEST(modes), UNIT_TEST(old_files_tightened), UNIT_TEST(symlink_refused));
