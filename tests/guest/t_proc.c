// SPDX-License-Identifier: GPL-2.0
/* /proc/mp3/status: commands, listing, every errno, privileges, PID ns. */
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "harness.h"
#include "tests.h"

void test_proc_mode(void)
{
	struct stat st;

	if (stat(MP3_STATUS_PATH, &st))
		fail("stat %s: %s", MP3_STATUS_PATH, strerror(errno));
	expect(S_ISREG(st.st_mode), "%s is not a regular file", MP3_STATUS_PATH);
	expect((st.st_mode & 07777) == 0666, "%s has mode %04o, want 0666",
	       MP3_STATUS_PATH, st.st_mode & 07777);
	expect(status_list(NULL, 0) == 0, "a fresh module lists PIDs");
}

void expect_listing(const pid_t *want, int n, const char *when)
{
	pid_t got[16];
	int m = status_list(got, 16);

	expect(m == n, "%s: %d PIDs listed, want %d", when, m, n);
	for (int i = 0; i < n; i++) {
		int found = 0;

		for (int j = 0; j < m; j++)
			found |= got[j] == want[i];
		expect(found, "%s: PID %d is not listed", when, (int)want[i]);
	}
}

void test_proc_register_list(void)
{
	pid_t a = spawn_sleeper(), b = spawn_sleeper();
	pid_t both[] = { a, b };
	char cmd[64];

	expect_ok(status_cmd('R', a), "R a");
	/* White space around the command and tabs inside it are tolerated. */
	snprintf(cmd, sizeof(cmd), "  R\t  %d  \n", (int)b);
	expect_ok(status_write(cmd), "R b with white space");
	expect_listing(both, 2, "after R a, R b");
	expect_ok(status_cmd('U', a), "U a");
	expect_listing(&b, 1, "after U a");
	snprintf(cmd, sizeof(cmd), "U %d", (int)b);
	expect_ok(status_write(cmd), "U b without newline");
	expect_listing(NULL, 0, "after U b");
	expect_ok(status_cmd('R', a), "R a again");
	expect_listing(&a, 1, "after R a again");
}

void test_proc_errors(void)
{
	pid_t a = spawn_sleeper(), dead = spawn_sleeper();
	char oversized[MP3_STATUS_MAX_WRITE + 16], cmd[64];
	static const char *const malformed[] = {
		"", "\n", "R", "R ", "U\n", "X 1", "r 1", "R1", "R -1", "R +1",
		"R 0", "R 1x", "R 1 2", "R 0x10", "R 99999999999", "R 2147483648",
		"RR 1", " \t ", "R\n1x",
	};

	kill_and_reap(dead);
	expect_ok(status_cmd('R', a), "R a");
	for (size_t i = 0; i < sizeof(malformed) / sizeof(malformed[0]); i++) {
		snprintf(cmd, sizeof(cmd), "'%s'", malformed[i]);
		expect_errno(status_write(malformed[i]), EINVAL, cmd);
	}
	/* An embedded NUL makes the command malformed too. */
	snprintf(cmd, sizeof(cmd), "R %d", (int)a);
	cmd[1] = '\0';
	expect_errno(status_write_len(cmd, strlen(cmd + 2) + 2), EINVAL, "embedded NUL");
	/* Valid but for its length: leading blanks push it past the limit. */
	memset(oversized, ' ', MP3_STATUS_MAX_WRITE);
	snprintf(oversized + MP3_STATUS_MAX_WRITE, 16, "R %d", (int)a);
	expect_errno(status_write(oversized), EINVAL, "a write longer than MP3_STATUS_MAX_WRITE");
	expect_errno(status_cmd('R', dead), ESRCH, "R of a reaped process");
	expect_errno(status_write("R 4194304"), ESRCH, "R of a PID above pid_max");
	expect_errno(status_cmd('R', a), EEXIST, "R twice");
	expect_errno(status_cmd('U', dead), ENOENT, "U of an unregistered PID");
	expect_errno(status_cmd('U', getpid()), ENOENT, "U of a live unregistered PID");
	expect_listing(&a, 1, "after the refused commands");
	expect_ok(status_cmd('U', a), "U a after the errors");
	expect_errno(status_cmd('U', a), ENOENT, "U twice");
	expect(!status_lists(a), "PID %d still listed after U", (int)a);
}

static void register_as_nobody(pid_t root_pid)
{
	pid_t self;

	become_nobody();
	expect_errno(status_cmd('R', root_pid), EPERM, "uid 65534 registering root's process");
	expect_errno(status_cmd('R', 1), EPERM, "uid 65534 registering init");
	self = spawn_sleeper();
	expect_ok(status_cmd('R', self), "uid 65534 registering its own child");
	expect_ok(status_cmd('U', self), "uid 65534 unregistering its own child");
}

void test_proc_unprivileged(void)
{
	pid_t root_pid = spawn_sleeper();

	in_child(register_as_nobody, root_pid, "the unprivileged writer");
	expect_listing(NULL, 0, "after the refused registrations");
}

/* Runs as PID 1 of a new PID namespace; reports on ready_fd, then waits. */
static void register_in_pidns(pid_t outside_pid, int ready_fd)
{
	pid_t self = getpid();

	expect(self == 1, "child of unshare(CLONE_NEWPID) has PID %d", (int)self);
	expect_ok(status_cmd('R', 1), "R 1 inside the namespace");
	/* The sleeper registered outside is invisible in here. */
	expect_listing(&self, 1, "listing inside the namespace");
	expect_errno(status_cmd('R', outside_pid), ESRCH,
		     "R of a PID only the parent namespace has");
	if (write(ready_fd, "k", 1) != 1)
		_exit(1);
	for (;;)
		pause();
}

static void enter_pidns(pid_t outside_pid)
{
	int ready[2];
	char ack;
	pid_t inner;

	if (pipe(ready))
		fail("pipe: %s", strerror(errno));
	if (unshare(CLONE_NEWPID))
		fail("unshare(CLONE_NEWPID): %s", strerror(errno));
	inner = fork();
	if (inner < 0)
		fail("fork into the new namespace: %s", strerror(errno));
	if (inner == 0) {
		close(ready[0]);
		register_in_pidns(outside_pid, ready[1]);
	}
	close(ready[1]);
	if (read(ready[0], &ack, 1) != 1)
		fail("the namespace's PID 1 failed");
	/* Seen from the initial namespace, it has its global number. */
	expect_listing((pid_t[]){ outside_pid, inner }, 2, "listing outside the namespace");
	kill_and_reap(inner);
}

void test_proc_pidns(void)
{
	pid_t outside = spawn_sleeper();

	expect_ok(status_cmd('R', outside), "R from the initial namespace");
	in_child(enter_pidns, outside, "the namespace parent");
}
