// SPDX-License-Identifier: GPL-2.0
/*
 * Who may profile whom, and who owns what: owners of targets, quotas,
 * administrators' precedence, judgements again at exec and at a change of
 * dumpability, user and cgroup namespaces, names of one user.
 */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "harness.h"
#include "tests.h"

#define ISOLATION_CGROUP CGROUP_ROOT "/mp3-isolation"
#define SETUID_SLEEP "/tmp/mp3-setuid-busybox"

static void set_maps_users(const char *value)
{
	int fd = open("/sys/module/mp3/parameters/maps_users", O_WRONLY | O_CLOEXEC);

	expect(fd >= 0 && write(fd, value, 1) == 1, "writing %s to maps_users: %s", value,
	       strerror(errno));
	close(fd);
}

/*
 * A target belongs to whoever made it: another user can neither end it
 * ("X") nor turn on maps for it ("M", with maps_users), even while it has
 * no process, nor unregister a process root registered; the owners can.
 * Before, any user could drop a unit's target between two restarts of the
 * unit.
 */
void test_owner_ends_target(void)
{
	int nobody = nobody_status_fd();
	pid_t theirs = spawn_nobody_sleeper();

	/* M is judged by its owner then, not refused to every user. */
	set_maps_users("Y");
	make_cgroup(ISOLATION_CGROUP);
	expect_ok(status_printf(-1, "C %llu 801", cgroup_id(ISOLATION_CGROUP)), "root's C");
	expect_errno(status_printf(nobody, "X 801"), EPERM, "uid 65534's X of root's empty target");
	expect_errno(status_printf(nobody, "M 801"), EPERM, "uid 65534's M of root's empty target");
	expect_ok(status_printf(-1, "R %d", (int)theirs), "root's R of uid 65534's process");
	expect_errno(status_printf(nobody, "U %d", (int)theirs), EPERM,
		     "uid 65534's U of its own process that root registered");
	expect_ok(status_printf(nobody, "N 802 mp3-nothing"), "uid 65534's N");
	expect_ok(status_printf(nobody, "M 802"), "uid 65534's M of its own target");
	expect_ok(status_printf(nobody, "X 802"), "uid 65534's X of its own target");
	set_maps_users("N");
	expect_ok(status_printf(-1, "X 801"), "root's X of its own target");
	expect_ok(status_printf(-1, "U %d", (int)theirs), "root's U");
	kill_and_reap(theirs);
	close(nobody);
}

/*
 * A user's group added first does not hide a process from root's: a child
 * forked into root's cgroup, named as uid 65534's name group says, joins
 * root's target. Before, it joined the first group added that held it,
 * uid 65534's, which may not read it, and was skipped.
 */
void test_admin_group_first(void)
{
	int nobody = nobody_status_fd(), go_fd, child_fd;
	pid_t forker, child;
	char comm[32];

	make_cgroup(ISOLATION_CGROUP);
	forker = spawn_forker(&go_fd, &child_fd);
	read_comm(forker, comm, sizeof(comm));
	move_to_cgroup(ISOLATION_CGROUP, forker);
	expect_ok(status_printf(nobody, "N 811 %s", comm), "uid 65534's N of root's program's name");
	expect_ok(status_printf(-1, "C %llu 812", cgroup_id(ISOLATION_CGROUP)), "root's C");
	expect(status_lists(forker), "root's forker is not in root's target");
	expect(write(go_fd, "g", 1) == 1 && read(child_fd, &child, sizeof(child)) == sizeof(child),
	       "the forker did not fork");
	expect(status_lists(child), "a child forked in root's cgroup was hidden by uid 65534's "
	       "N %s added before", comm);
	expect_ok(status_printf(nobody, "X 811"), "uid 65534's X");
	expect_ok(status_printf(-1, "X 812"), "root's X");
	kill(child, SIGKILL);
	kill_and_reap(forker);
	close(go_fd);
	close(child_fd);
	close(nobody);
}

/*
 * A user follows MP3_GROUPS_PER_USER names at most; root still can, and
 * may take the number a user took. A user cannot take root's numbers.
 */
void test_user_quota_and_numbers(void)
{
	int nobody = nobody_status_fd(), target;
	pid_t theirs = spawn_nobody_sleeper();

	for (target = 900; target < 900 + MP3_GROUPS_PER_USER; target++)
		expect_ok(status_printf(nobody, "N %d mp3-q%d", target, target), "uid 65534's N");
	expect_errno(status_printf(nobody, "N %d mp3-q%d", target, target), ENOSPC,
		     "uid 65534's N beyond MP3_GROUPS_PER_USER");
	expect_ok(status_printf(-1, "N %d mp3-q%d", target, target), "root's N beyond the user's quota");
	/* Root takes a number a user has: the user's target ends. */
	expect_ok(status_printf(-1, "N 900 mp3-root"), "root's N of uid 65534's number");
	expect_errno(status_printf(nobody, "X 900"), EPERM, "uid 65534's X of the number root took");
	expect_errno(status_printf(nobody, "T %d %d", (int)theirs, target), EBUSY,
		     "uid 65534's T with root's number");
	expect_errno(status_printf(nobody, "N %d mp3-mine", target), EBUSY,
		     "uid 65534's N with root's number");
	for (int t = 901; t < 900 + MP3_GROUPS_PER_USER; t++)
		expect_ok(status_printf(nobody, "X %d", t), "uid 65534's X");
	expect_ok(status_printf(-1, "X 900"), "root's X");
	expect_ok(status_printf(-1, "X %d", target), "root's X");
	kill_and_reap(theirs);
	close(nobody);
}

/*
 * A user's registration of a process that root's group holds moves to
 * root's target when root adds the group: the user can no longer end it.
 */
void test_admin_takes_registration(void)
{
	int nobody = nobody_status_fd();
	pid_t theirs = spawn_nobody_sleeper();

	make_cgroup(ISOLATION_CGROUP);
	move_to_cgroup(ISOLATION_CGROUP, theirs);
	expect_ok(status_printf(nobody, "R %d", (int)theirs), "uid 65534's R of its own process");
	expect_ok(status_printf(-1, "C %llu 821", cgroup_id(ISOLATION_CGROUP)), "root's C");
	expect(status_lists(theirs), "the process is not registered after root's C");
	expect_errno(status_printf(nobody, "U %d", (int)theirs), EPERM,
		     "uid 65534's U of its process, now in root's target");
	expect_ok(status_printf(-1, "X 821"), "root's X");
	expect(!status_lists(theirs), "the process is still registered after root's X");
	kill_and_reap(theirs);
	close(nobody);
}

/*
 * spawn_piped()'s child: uid 65534, waits for a byte, then does what it
 * says: 'x' runs a setuid-root program that sleeps, 't' one that exits.
 */
static void nobody_changes(int go, int back)
{
	char what;

	become_nobody();
	if (write(back, "r", 1) != 1 || read(go, &what, 1) != 1)
		_exit(3);
	if (what == 'x') {
		execl(SETUID_SLEEP, "sleep", "60", (char *)NULL);
		_exit(127);
	}
	if (what == 't') {
		execl(SETUID_SLEEP, "true", (char *)NULL);
		_exit(127);
	}
	if (prctl(PR_SET_DUMPABLE, 0))
		_exit(4);
	/* Runs, so that the next sample visits it. */
	burn_cpu_ms(100);
	for (;;)
		pause();
}

/*
 * uid 65534 registers its own process, which then becomes unreadable to
 * it by @how ('x': the exec of a setuid-root program; 'd': PR_SET_DUMPABLE
 * 0): it leaves, counted in follow_skipped. Before, an "R" was judged once.
 */
static void expect_leaves_when_unreadable(char how, const char *what)
{
	int nobody = nobody_status_fd(), go_fd, back_fd, fd;
	/* Samples go on after it left: they carry the header's counters. */
	pid_t keeps_sampling = spawn_sleeper(), pid;
	struct mp3ring ring;
	uint64_t skipped;
	char ready;

	pid = spawn_piped(nobody_changes, &go_fd, &back_fd);
	expect(read(back_fd, &ready, 1) == 1, "the child did not become uid 65534");
	map_ring(&ring, &fd);
	expect_ok(status_printf(-1, "R %d", (int)keeps_sampling), "root's R of a sleeper");
	expect_ok(status_printf(nobody, "R %d", (int)pid), "uid 65534's R of its own process");
	wait_head(&ring, mp3ring_head(&ring) + 2, 2000);
	skipped = ring.hdr->follow_skipped;
	expect(write(go_fd, &how, 1) == 1, "telling the child");
	wait_unlisted(pid, 3000);
	wait_head(&ring, mp3ring_head(&ring) + 2, 2000);
	printf("  %s: follow_skipped rose by %llu\n", what,
	       (unsigned long long)(ring.hdr->follow_skipped - skipped));
	expect(ring.hdr->follow_skipped == skipped + 1, "%s: follow_skipped rose by %llu, not 1",
	       what, (unsigned long long)(ring.hdr->follow_skipped - skipped));
	expect_ok(status_printf(-1, "U %d", (int)keeps_sampling), "root's U of the sleeper");
	kill_and_reap(keeps_sampling);
	kill_and_reap(pid);
	close(go_fd);
	close(back_fd);
	close(fd);
	close(nobody);
}

static void make_setuid_busybox(void)
{
	expect(run_program((char *[]){ "/bin/cp", "/bin/busybox", SETUID_SLEEP, NULL },
			   NULL) == 0 && !chmod(SETUID_SLEEP, 04755),
	       "making %s: %s", SETUID_SLEEP, strerror(errno));
}

void test_rejudged_at_exec(void)
{
	make_setuid_busybox();
	expect_leaves_when_unreadable('x', "rejudged_at_exec");
	unlink(SETUID_SLEEP);
}

/*
 * The exec's judgement alone, with no sample between the exec and the exit
 * (period_ms=2000): uid 65534's process runs a setuid-root program that
 * exits at once. Judged only at a sample, it would be gone by then, its
 * last period counted and its faults placed by uid 65534's right.
 */
void test_rejudged_at_exec_alone(void)
{
	int nobody = nobody_status_fd(), fd, tries = 0;
	pid_t keeps_sampling = spawn_sleeper();
	uint64_t skipped, sampled;
	struct mp3ring ring;

	make_setuid_busybox();
	map_ring(&ring, &fd);
	expect_ok(status_printf(-1, "R %d", (int)keeps_sampling), "root's R of a sleeper");
	for (;;) {
		int go_fd, back_fd;
		pid_t pid = spawn_piped(nobody_changes, &go_fd, &back_fd);
		char ready;

		expect(read(back_fd, &ready, 1) == 1, "the child did not become uid 65534");
		expect_ok(status_printf(nobody, "R %d", (int)pid), "uid 65534's R of its own process");
		sampled = wait_head(&ring, mp3ring_head(&ring) + 1, ticks_ms(&ring, 2));
		skipped = ring.hdr->follow_skipped;
		expect(write(go_fd, "t", 1) == 1, "telling the child");
		expect(waitpid(pid, NULL, 0) == pid, "waitpid: %s", strerror(errno));
		close(go_fd);
		close(back_fd);
		if (mp3ring_head(&ring) == sampled)
			break;
		expect(++tries < 5, "a sample came between the exec and the exit %d times", tries);
	}
	wait_head(&ring, sampled + 1, ticks_ms(&ring, 2));
	printf("  rejudged_at_exec_alone: follow_skipped rose by %llu\n",
	       (unsigned long long)(ring.hdr->follow_skipped - skipped));
	expect(ring.hdr->follow_skipped == skipped + 1,
	       "follow_skipped rose by %llu, not 1: the exec was not judged",
	       (unsigned long long)(ring.hdr->follow_skipped - skipped));
	expect_ok(status_printf(-1, "U %d", (int)keeps_sampling), "root's U of the sleeper");
	kill_and_reap(keeps_sampling);
	unlink(SETUID_SLEEP);
	close(fd);
	close(nobody);
}

void test_rejudged_dumpable(void)
{
	expect_leaves_when_unreadable('d', "rejudged_dumpable");
}

/* A process of uid 65534 that kept root's capabilities across setresuid(). */
static void keep_caps_sleeper(int go, int back)
{
	(void)go;
	if (prctl(PR_SET_KEEPCAPS, 1) || setresgid(NOBODY_ID, NOBODY_ID, NOBODY_ID) ||
	    setresuid(NOBODY_ID, NOBODY_ID, NOBODY_ID) || prctl(PR_SET_DUMPABLE, 1))
		_exit(3);
	if (write(back, "r", 1) != 1)
		_exit(4);
	for (;;)
		pause();
}

/*
 * The ptrace rule's capability half: a process of the same user that holds
 * capabilities its reader lacks is not readable (cap_ptrace_access_check()).
 * Before, the ids alone were compared.
 */
void test_caps_not_subset(void)
{
	int nobody = nobody_status_fd(), go_fd, back_fd;
	pid_t pid = spawn_piped(keep_caps_sleeper, &go_fd, &back_fd);
	char ready;

	expect(read(back_fd, &ready, 1) == 1, "the child did not become uid 65534");
	expect_errno(status_printf(nobody, "R %d", (int)pid), EPERM,
		     "uid 65534's R of its process with root's capabilities");
	expect_ok(status_printf(-1, "R %d", (int)pid), "root's R of it");
	expect_ok(status_printf(-1, "U %d", (int)pid), "root's U of it");
	kill_and_reap(pid);
	close(go_fd);
	close(back_fd);
	close(nobody);
}

#define CHAIN_DEPTH 400
#define CHAIN_TARGET 831

/* A chain of @depth processes, each the child of the one before: each says its PID, sleeps. */
static void chain_links(int depth, int back)
{
	for (;;) {
		pid_t self = getpid();

		if (write(back, &self, sizeof(self)) != sizeof(self))
			_exit(4);
		if (--depth == 0 || fork() != 0)
			break;
	}
	for (;;)
		pause();
}

/* in_child()'s fn: a subreaper, so that the chain's orphans come back to be reaped. */
static void deep_chain_registered(int depth)
{
	pid_t pids[CHAIN_DEPTH], listed[CHAIN_DEPTH + 8], top;
	int back[2], n, found = 0;

	expect(!prctl(PR_SET_CHILD_SUBREAPER, 1) && !pipe(back), "subreaper, pipe: %s",
	       strerror(errno));
	top = fork();
	expect(top >= 0, "fork: %s", strerror(errno));
	if (top == 0) {
		setpgid(0, 0);
		chain_links(depth, back[1]);
	}
	for (int i = 0; i < depth; i++)
		expect(read(back[0], &pids[i], sizeof(pids[i])) == sizeof(pids[i]),
		       "the chain's link %d did not start", i);
	expect_ok(status_printf(-1, "T %d %d", (int)top, CHAIN_TARGET), "T of the chain's top");
	n = status_list(listed, CHAIN_DEPTH + 8);
	for (int i = 0; i < depth; i++)
		for (int j = 0; j < n; j++)
			found += listed[j] == pids[i];
	printf("  tree_deep_chain: %d of a chain of %d registered\n", found, depth);
	expect(found == depth, "%d of a chain of %d processes registered", found, depth);
	expect_ok(status_printf(-1, "X %d", CHAIN_TARGET), "X of the chain");
	kill(-top, SIGKILL);
	while (wait(NULL) > 0)
		;
}

/*
 * A tree as deep as it is wide: "T" finds every descendant by one walk,
 * each ancestor chain looked at once (the walk was quadratic in the depth).
 */
void test_tree_deep_chain(void)
{
	int depth = count_from_env("PFPROF_CHAIN_DEPTH", CHAIN_DEPTH);

	in_child(deep_chain_registered, depth, "the chain's registrar");
}

/* The command a process in a user namespace of its own sends (userns_child()). */
static const char *userns_cmd;

/*
 * spawn_piped()'s child: enters a user namespace of its own, says so, and
 * once the parent mapped its root to uid 65534 outside, sends userns_cmd
 * from a file it opens there; says the command's result (0 or -errno).
 */
static void userns_child(int go, int back)
{
	int fd;

	if (unshare(CLONE_NEWUSER))
		_exit(3);
	child_says(back, 1);
	child_waits(go);
	fd = open(MP3_STATUS_PATH, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		_exit(4);
	child_done(back, (uintptr_t)(intptr_t)status_write_cmd_fd(fd, userns_cmd));
}

static void write_proc_file(pid_t pid, const char *name, const char *text)
{
	char path[64];
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/%s", (int)pid, name);
	fd = open(path, O_WRONLY | O_CLOEXEC);
	expect(fd >= 0 && write(fd, text, strlen(text)) == (ssize_t)strlen(text),
	       "writing %s: %s", path, strerror(errno));
	close(fd);
}

/* @cmd's result, sent by root in a new user namespace that is uid 65534 outside. */
static int command_in_userns(const char *cmd)
{
	uintptr_t said;
	char map[32];
	int go, back;
	pid_t pid;

	userns_cmd = cmd;
	pid = spawn_piped(userns_child, &go, &back);
	expect(read(back, &said, sizeof(said)) == sizeof(said), "no user namespace");
	snprintf(map, sizeof(map), "0 %d 1\n", NOBODY_ID);
	write_proc_file(pid, "uid_map", map);
	write_proc_file(pid, "setgroups", "deny");
	write_proc_file(pid, "gid_map", map);
	expect(write(go, "g", 1) == 1, "telling the child: %s", strerror(errno));
	expect(read(back, &said, sizeof(said)) == sizeof(said), "the child did not say");
	kill_and_reap(pid);
	close(go);
	close(back);
	return (int)(intptr_t)said;
}

/*
 * Owners follow user namespaces: the roots of two containers, both uid
 * 65534 outside, are two owners, and neither ends nor changes the other's
 * target. Before, the fs uid alone made the owner.
 */
void test_owner_per_userns(void)
{
	set_maps_users("Y");
	expect_ok(command_in_userns("N 951 mp3-userns"), "N in one user namespace");
	expect_errno(command_in_userns("X 951"), EPERM, "X from another user namespace");
	expect_errno(command_in_userns("M 951"), EPERM, "M from another user namespace");
	expect_errno(command_in_userns("N 951 mp3-userns2"), EBUSY,
		     "N of the number from another user namespace");
	set_maps_users("N");
	expect_ok(status_printf(-1, "X 951"), "root's X");
}

/*
 * spawn_piped()'s child: enters a user namespace of its own; once the
 * parent mapped its uids 0 and 1, forks a process that becomes its uid 1
 * (dumpable) and registers it as its root ("R"); says the process's PID,
 * then the command's result (0 or -errno), and waits.
 */
static void container_root(int go, int back)
{
	int ready[2], fd;
	pid_t member;
	char byte;

	if (unshare(CLONE_NEWUSER))
		_exit(3);
	child_says(back, 1);
	child_waits(go);
	if (pipe(ready))
		_exit(4);
	member = fork();
	if (member == 0) {
		if (setresgid(1, 1, 1) || setresuid(1, 1, 1) || prctl(PR_SET_DUMPABLE, 1) ||
		    write(ready[1], "r", 1) != 1)
			_exit(5);
		for (;;)
			pause();
	}
	if (member < 0 || read(ready[0], &byte, 1) != 1)
		_exit(6);
	fd = open(MP3_STATUS_PATH, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		_exit(7);
	child_says(back, (uintptr_t)member);
	child_done(back, (uintptr_t)(intptr_t)status_cmd_fd(fd, 'R', member));
}

/*
 * The root of a container (a user namespace mapping its uids 0 and 1 to
 * 100000 and 100001) registers a process of its container's uid 1, which
 * it may read by CAP_SYS_PTRACE there: it stays registered at the samples
 * after. Before, a sample judged it by the ids alone and let it go.
 */
void test_container_root_keeps(void)
{
	/* Samples go on whatever the container's process does. */
	pid_t keeps_sampling = spawn_sleeper(), root;
	uint64_t skipped;
	uintptr_t said, member;
	struct mp3ring ring;
	int go, back, fd;

	map_ring(&ring, &fd);
	expect_ok(status_printf(-1, "R %d", (int)keeps_sampling), "root's R of a sleeper");
	root = spawn_piped(container_root, &go, &back);
	expect(read(back, &said, sizeof(said)) == sizeof(said), "no user namespace");
	write_proc_file(root, "uid_map", "0 100000 2\n");
	write_proc_file(root, "setgroups", "deny");
	write_proc_file(root, "gid_map", "0 100000 2\n");
	expect(write(go, "g", 1) == 1, "telling the container's root: %s", strerror(errno));
	expect(read(back, &member, sizeof(member)) == sizeof(member) &&
	       read(back, &said, sizeof(said)) == sizeof(said), "the container's root did not say");
	expect_ok((int)(intptr_t)said, "the container's root's R of its uid 1's process");
	skipped = ring.hdr->follow_skipped;
	wait_head(&ring, mp3ring_head(&ring) + 3, ticks_ms(&ring, 3));
	expect(status_lists((pid_t)member) && ring.hdr->follow_skipped == skipped,
	       "the process left at a sample (follow_skipped rose by %llu)",
	       (unsigned long long)(ring.hdr->follow_skipped - skipped));
	expect_ok(status_printf(-1, "U %d", (int)member), "root's U");
	expect_ok(status_printf(-1, "U %d", (int)keeps_sampling), "root's U of the sleeper");
	kill_and_reap(keeps_sampling);
	kill_and_reap(root);
	kill((pid_t)member, SIGKILL);
	close(go);
	close(back);
	close(fd);
}

static pid_t listing_roots, listing_own;

/*
 * in_child(): as uid 65534, reads the listing; exits 0 if it shows its own
 * registration and not root's.
 */
static void list_as_nobody(int unused)
{
	bool own = false, roots = false;
	pid_t pids[256];
	int n;

	(void)unused;
	become_nobody();
	n = status_list(pids, 256);
	for (int i = 0; i < n; i++) {
		own |= pids[i] == listing_own;
		roots |= pids[i] == listing_roots;
	}
	printf("  status_lists_readable: uid %d is shown %d PIDs: its own %s, root's %s\n",
	       NOBODY_ID, n, own ? "listed" : "not listed", roots ? "listed" : "not listed");
	_exit(!own || roots);
}

/*
 * /proc/mp3/status lists to a reader only the processes the ptrace read
 * rule lets it read, as hidepid would; an administrator sees all. Before,
 * every reader saw every registered PID.
 */
void test_status_lists_readable(void)
{
	int nobody = nobody_status_fd();

	listing_roots = spawn_sleeper();
	listing_own = spawn_nobody_sleeper();
	expect_ok(status_printf(-1, "R %d", (int)listing_roots), "root's R of its sleeper");
	expect_ok(status_printf(nobody, "R %d", (int)listing_own), "uid 65534's R of its sleeper");
	expect(status_lists(listing_roots) && status_lists(listing_own),
	       "root is not shown both registrations");
	in_child(list_as_nobody, 0, "uid 65534's listing (its own only)");
	expect_ok(status_printf(-1, "U %d", (int)listing_roots), "root's U");
	expect_ok(status_printf(-1, "U %d", (int)listing_own), "root's U of uid 65534's");
	kill_and_reap(listing_roots);
	kill_and_reap(listing_own);
	close(nobody);
}

/*
 * Where the faults are is an administrator's to ask for, unless root lets
 * users (maps_users): kernel perf counters on their threads, which
 * perf_event_paranoid does not govern. Before, any user could.
 */
void test_maps_users(void)
{
	int nobody = nobody_status_fd();
	pid_t theirs = spawn_nobody_sleeper();

	expect_errno(status_printf(nobody, "R %d maps", (int)theirs), EPERM, "uid 65534's R maps");
	expect_ok(status_printf(nobody, "T %d 861", (int)theirs), "uid 65534's T");
	expect_errno(status_printf(nobody, "M 861"), EPERM, "uid 65534's M of its own target");
	set_maps_users("Y");
	expect_ok(status_printf(nobody, "M 861"), "uid 65534's M with maps_users=Y");
	set_maps_users("N");
	expect_ok(status_printf(nobody, "X 861"), "uid 65534's X");
	expect_ok(status_printf(-1, "R %d maps", (int)theirs), "root's R maps");
	expect_ok(status_printf(-1, "U %d", (int)theirs), "root's U");
	kill_and_reap(theirs);
	close(nobody);
}

#define CGNS_INSIDE CGROUP_ROOT "/mp3-cgns"
#define CGNS_INNER CGNS_INSIDE "/inner"
#define CGNS_OUTSIDE CGROUP_ROOT "/mp3-cgns-other"
#define CGNS_TARGET 871

/* status_fd_opened_after()'s opener: in a cgroup namespace rooted at CGNS_INSIDE. */
static void enter_cgroup_ns(void)
{
	move_to_cgroup(CGNS_INSIDE, getpid());
	if (unshare(CLONE_NEWCGROUP))
		fail("unshare(CLONE_NEWCGROUP): %s", strerror(errno));
}

/*
 * "C" is judged by the opener's cgroup namespace, not by the writer's (which
 * the kernel's cgroup_get_from_id() checks): a descriptor opened where only
 * CGNS_INSIDE is seen, written by root outside, follows no cgroup outside
 * it. Before, the writer's view decided: it followed CGNS_OUTSIDE.
 */
void test_cgroup_opener_ns(void)
{
	unsigned long long inner, outside;
	int fd;

	make_cgroup(CGNS_INSIDE);
	make_cgroup(CGNS_INNER);
	make_cgroup(CGNS_OUTSIDE);
	inner = cgroup_id(CGNS_INNER);
	outside = cgroup_id(CGNS_OUTSIDE);
	fd = status_fd_opened_after(enter_cgroup_ns, "an opener in a cgroup namespace of its own");
	expect_errno(status_printf(fd, "C %llu %d", outside, CGNS_TARGET), ENOENT,
		     "C of a cgroup outside the opener's cgroup namespace");
	expect_ok(status_printf(fd, "C %llu %d", inner, CGNS_TARGET), "C of a cgroup inside it");
	expect_ok(status_printf(fd, "X %d", CGNS_TARGET), "X of it");
	/* The cgroup is there: root's own descriptor follows it. */
	expect_ok(status_printf(-1, "C %llu %d", outside, CGNS_TARGET), "root's C of the cgroup outside");
	expect_ok(status_printf(-1, "X %d", CGNS_TARGET), "root's X");
	close(fd);
}

#define ONE_USER_COMM "mp3-oneuser"
#define ONE_USER_ID 4242
#define ONE_USER_TARGET 881

/* Says it is named, then once told forks a child (of its name) and says the child's PID. */
static void named_impostor(int go, int back)
{
	pid_t child;

	become_named(NOBODY_ID, ONE_USER_COMM);
	child_says(back, 1);
	child_waits(go);
	child = fork_dependent(false);
	child_done(back, child);
}

/*
 * "P <target> <uid> <comm>": an administrator's name target limited to one
 * user takes that user's processes of the name, not another user's program
 * given the same name (issue 55, item 4), now nor when one is forked or
 * renamed later. Before, the module knew "N" alone: EINVAL.
 */
void test_name_of_one_user(void)
{
	pid_t service = spawn_user_named(ONE_USER_ID, ONE_USER_COMM), impostor;
	uintptr_t said, forked;
	int go, back;

	impostor = spawn_piped(named_impostor, &go, &back);
	expect(read(back, &said, sizeof(said)) == sizeof(said), "the impostor did not start");
	expect_ok(status_printf(-1, "P %d %d %s", ONE_USER_TARGET, ONE_USER_ID, ONE_USER_COMM),
		  "root's P of uid 4242's name");
	expect(write(go, "g", 1) == 1 && read(back, &forked, sizeof(forked)) == sizeof(forked),
	       "the impostor did not fork");
	expect(status_lists(service), "uid %d's %s is not in root's target", ONE_USER_ID,
	       ONE_USER_COMM);
	expect(!status_lists(impostor) && !status_lists((pid_t)forked),
	       "uid %d's program named %s, or its child, joined a name target of uid %d's",
	       NOBODY_ID, ONE_USER_COMM, ONE_USER_ID);
	expect_errno(status_printf(-1, "P %d 4294967295 %s", ONE_USER_TARGET + 1, ONE_USER_COMM), EINVAL,
		     "P with the invalid uid");
	expect_ok(status_printf(-1, "X %d", ONE_USER_TARGET), "root's X");
	/* The same name for anyone takes the impostor's processes: P's uid made the difference. */
	expect_ok(status_printf(-1, "N %d %s", ONE_USER_TARGET, ONE_USER_COMM), "root's N of the name");
	expect(status_lists(impostor), "N did not take uid %d's %s", NOBODY_ID, ONE_USER_COMM);
	expect_ok(status_printf(-1, "X %d", ONE_USER_TARGET), "root's X of N");
	close(go);
	close(back);
	kill_and_reap(service);
	kill_and_reap(impostor);
}
