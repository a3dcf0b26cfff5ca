// SPDX-License-Identifier: GPL-2.0
/*
 * Users beside root on one host: no user's registrations or records
 * crowd out root's profile (issue 55); the storms are in t_shared_host_storms.c.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "harness.h"
#include "tests.h"

#define CROWD_PROCS 1000
#define CROWD_SECONDS 5
#define CROWD_TARGET 861
/* The module parameter tests.c loads the module with for this test. */
#define CROWD_PER_USER 256

struct crowd_totals {
	uint64_t root_minor;		/* the worker's, in root's target */
	uint64_t root_unflagged;	/* root's records without MP3_RECORD_ADMIN */
	uint64_t user_records;		/* uid 65534's */
	uint64_t user_dropped;		/* in its MP3_RECORD_DROPPED records */
	uint64_t sample;		/* the sample being counted */
	uint32_t user_in_sample, user_max;	/* its records in one sample */
};

static pid_t crowd_worker;

static void crowd_count(void *ctx, const struct mp3_proc_record *r)
{
	struct crowd_totals *t = ctx;

	if (r->sample != t->sample) {
		t->sample = r->sample;
		t->user_in_sample = 0;
	}
	if (r->type == MP3_RECORD_DROPPED) {
		if (r->owner == NOBODY_ID)
			t->user_dropped += r->dropped.records;
		return;
	}
	if (r->tgid == (uint32_t)crowd_worker) {
		if (r->type == MP3_RECORD_COUNTS)
			t->root_minor += r->counts.minor_faults;
		t->root_unflagged += !(r->flags & MP3_RECORD_ADMIN);
		return;
	}
	if (r->owner == NOBODY_ID && !(r->flags & MP3_RECORD_ADMIN)) {
		t->user_records++;
		if (++t->user_in_sample > t->user_max)
			t->user_max = t->user_in_sample;
	}
}

/*
 * spawn_piped()'s child, as uid 65534: forks CROWD_PROCS idle children,
 * says so, and once told loops "T <itself> CROWD_TARGET" / "X CROWD_TARGET"
 * for CROWD_SECONDS; says how many rounds it made, then waits to be killed.
 */
static void crowd_child(int go, int back)
{
	char add[64], end[32];
	unsigned long rounds = 0;
	uint64_t stop;
	int fd;

	become_nobody_with(CROWD_PROCS);
	fd = open(MP3_STATUS_PATH, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		_exit(7);
	snprintf(add, sizeof(add), "T %d %d", (int)getpid(), CROWD_TARGET);
	snprintf(end, sizeof(end), "X %d", CROWD_TARGET);
	child_says(back, 1);
	child_waits(go);
	stop = now_ns() + CROWD_SECONDS * 1000000000ULL;
	while (now_ns() < stop) {
		if (status_write_cmd_fd(fd, add) || status_write_cmd_fd(fd, end))
			_exit(8);
		rounds++;
	}
	child_done(back, rounds);
}

void test_records_beside_root(void)
{
	struct crowd_totals totals = { .sample = UINT64_MAX };
	struct proc_stat before, after;
	uint64_t from, to, dropped;
	uintptr_t said, rounds;
	struct mp3ring ring;
	struct worker w;
	int go, back, fd;
	pid_t crowd;

	map_ring(&ring, &fd);
	worker_spawn(&w);
	crowd_worker = w.pid;
	expect_ok(status_cmd('R', w.pid), "root's R of its worker");
	crowd = spawn_piped(crowd_child, &go, &back);
	expect(read(back, &said, sizeof(said)) == sizeof(said), "uid %d did not fork its %d processes",
	       NOBODY_ID, CROWD_PROCS);
	worker_do(&w, 'c', 0);
	wait_blocked(w.pid, 5000);
	from = wait_head(&ring, mp3ring_head(&ring) + 2, ticks_ms(&ring, 2));
	read_pid_stat(w.pid, &before);
	dropped = ring.hdr->records_dropped;
	expect(write(go, "g", 1) == 1, "telling uid %d: %s", NOBODY_ID, strerror(errno));
	for (int i = 0; i < CROWD_SECONDS * 2; i++) {
		worker_do(&w, 't', 500);
		sleep_ms(400);
	}
	expect(read(back, &rounds, sizeof(rounds)) == sizeof(rounds) && rounds,
	       "uid %d's loop of T and X failed", NOBODY_ID);
	wait_blocked(w.pid, 5000);
	read_pid_stat(w.pid, &after);
	to = wait_head(&ring, mp3ring_head(&ring) + 3, ticks_ms(&ring, 3));
	dropped = ring.hdr->records_dropped - dropped;
	/* Read only now, CROWD_SECONDS behind: it fails if one record was overwritten. */
	for_each_record_between(&ring, from, to, crowd_count, &totals);
	printf("  records_beside_root: uid %d: %lu rounds of T and X over %d processes, %" PRIu64
	       " records written, %" PRIu64 " dropped (header: %" PRIu64 "), at most %u in a"
	       " sample; root's worker: %" PRIu64 " minor faults counted, /proc: %llu\n",
	       NOBODY_ID, (unsigned long)rounds, CROWD_PROCS + 1, totals.user_records,
	       totals.user_dropped, dropped, totals.user_max, totals.root_minor,
	       after.minflt - before.minflt);
	expect(totals.root_minor == after.minflt - before.minflt && !totals.root_unflagged,
	       "root's worker: %" PRIu64 " of %llu faults counted, %" PRIu64 " records not an"
	       " administrator's", totals.root_minor, after.minflt - before.minflt,
	       totals.root_unflagged);
	expect(totals.user_max <= CROWD_PER_USER, "uid %d wrote %u records in one sample, past %d",
	       NOBODY_ID, totals.user_max, CROWD_PER_USER);
	expect(totals.user_dropped > 0 && totals.user_dropped == dropped,
	       "uid %d's records dropped: %" PRIu64 " in its records, %" PRIu64 " in the header",
	       NOBODY_ID, totals.user_dropped, dropped);
	expect_ok(status_cmd('U', w.pid), "root's U of its worker");
	kill_and_reap(crowd);
	kill_and_reap(w.pid);
	close(go);
	close(back);
	close(fd);
}

#define BESIDE_CGROUP CGROUP_ROOT "/mp3-beside"
#define BESIDE_TARGET 851
#define BESIDE_SECONDS 4
#define BESIDE_USERS 2

static pid_t beside_worker;
static unsigned long long beside_cgroup;

/* What a command of another user's may give when it names root's target or worker. */
static void expect_refused(int err, int want, int or_else, const char *cmd)
{
	expect(err == want || err == or_else, "%s as a user: %s, want %s", cmd, errno_name(-err),
	       errno_name(want));
}

/* Random commands of user @uid, for BESIDE_SECONDS, on its own and root's. */
static void hostile_user(int uid)
{
	static const char *const names[] = { "mp3-tests", "sleep", "mp3-own" };
	unsigned int seed = (unsigned int)uid;
	pid_t own[2], pid;
	time_t end;
	int target;

	if (setresgid(uid, uid, uid) || setresuid(uid, uid, uid) || prctl(PR_SET_DUMPABLE, 1))
		fail("becoming uid %d: %s", uid, strerror(errno));
	own[0] = spawn_sleeper();
	own[1] = spawn_sleeper();
	for (end = time(NULL) + BESIDE_SECONDS; time(NULL) < end;) {
		const pid_t pids[] = { own[0], own[1], beside_worker, 1, getpid() };
		const int targets[] = { BESIDE_TARGET, 852, 853, uid };
		const char *name = names[rand_r(&seed) % 3];
		int err;

		pid = pids[rand_r(&seed) % 5];
		target = targets[rand_r(&seed) % 4];
		switch (rand_r(&seed) % 8) {
		case 0:
			err = status_printf(-1, "R %d%s", (int)pid, rand_r(&seed) % 2 ? " maps" : "");
			if (pid == beside_worker)
				expect_refused(err, -EPERM, -EPERM, "R of root's worker");
			break;
		case 1:
			err = status_printf(-1, "U %d", (int)pid);
			if (pid == beside_worker)
				expect_refused(err, -EPERM, -EPERM, "U of root's worker");
			break;
		case 2:
			err = status_printf(-1, "T %d %d", (int)pid, target);
			if (target == BESIDE_TARGET)
				expect_refused(err, -EBUSY, -EPERM, "T with root's target");
			break;
		case 3:
			err = status_printf(-1, "C %llu %d", beside_cgroup, target);
			if (target == BESIDE_TARGET)
				expect_refused(err, -EEXIST, -EBUSY, "C of root's cgroup and target");
			break;
		case 4:
			err = status_printf(-1, "N %d %s", target, name);
			if (target == BESIDE_TARGET)
				expect_refused(err, -EBUSY, -EBUSY, "N with root's target");
			break;
		case 5:
			err = status_printf(-1, "X %d", target);
			if (target == BESIDE_TARGET)
				expect_refused(err, -EPERM, -EPERM, "X of root's target");
			break;
		default:
			err = status_printf(-1, "M %d", target);
			if (target == BESIDE_TARGET)
				expect_refused(err, -EPERM, -EPERM, "M of root's target");
		}
	}
	for (unsigned int i = 1; i < 4; i++)
		status_printf(-1, "X %d", i == 3 ? uid : 851 + (int)i);
	kill_and_reap(own[0]);
	kill_and_reap(own[1]);
}

struct beside_totals {
	uint64_t minor;
	uint64_t elsewhere;	/* count records of the worker with another target */
};

static void beside_count(void *ctx, const struct mp3_proc_record *r)
{
	struct beside_totals *t = ctx;

	if (r->tgid != (uint32_t)beside_worker || r->type != MP3_RECORD_COUNTS)
		return;
	if (r->target == BESIDE_TARGET)
		t->minor += r->counts.minor_faults;
	else
		t->elsewhere++;
}

/*
 * Two users send random commands (their own processes and targets, root's
 * worker, target, cgroup and its program's name) while root's cgroup
 * target counts a worker's faults: every command on root's is refused, and
 * root's target counts the worker's faults exactly, in its records alone.
 */
void test_users_beside_root(void)
{
	struct beside_totals totals = { 0 };
	struct proc_stat before, after;
	pid_t users[BESIDE_USERS];
	struct mp3ring ring;
	struct worker w;
	uint64_t from, to;
	int fd, status;

	make_cgroup(BESIDE_CGROUP);
	beside_cgroup = cgroup_id(BESIDE_CGROUP);
	worker_spawn(&w);
	beside_worker = w.pid;
	move_to_cgroup(BESIDE_CGROUP, w.pid);
	expect_ok(status_printf(-1, "C %llu %d", beside_cgroup, BESIDE_TARGET), "root's C");
	map_ring(&ring, &fd);
	worker_do(&w, 'c', 0);
	wait_blocked(w.pid, 5000);
	from = wait_head(&ring, mp3ring_head(&ring) + 2, 2000);
	read_pid_stat(w.pid, &before);
	for (int i = 0; i < BESIDE_USERS; i++) {
		users[i] = fork();
		expect(users[i] >= 0, "fork: %s", strerror(errno));
		if (users[i] == 0) {
			hostile_user(NOBODY_ID - i);
			_exit(0);
		}
	}
	for (int i = 0; i < BESIDE_SECONDS * 2; i++) {
		worker_do(&w, 't', 500);
		sleep_ms(400);
	}
	for (int i = 0; i < BESIDE_USERS; i++) {
		expect(waitpid(users[i], &status, 0) == users[i], "waitpid: %s", strerror(errno));
		expect(WIFEXITED(status) && !WEXITSTATUS(status), "user %d failed", NOBODY_ID - i);
	}
	wait_blocked(w.pid, 5000);
	read_pid_stat(w.pid, &after);
	to = wait_head(&ring, mp3ring_head(&ring) + 3, 2000);
	for_each_record_between(&ring, from, to, beside_count, &totals);
	printf("  users_beside_root: root's target: %llu minor faults of the worker; /proc: %llu; "
	       "%llu of its records elsewhere\n", (unsigned long long)totals.minor,
	       after.minflt - before.minflt, (unsigned long long)totals.elsewhere);
	expect(totals.minor == after.minflt - before.minflt && !totals.elsewhere,
	       "root's target counted %llu of the worker's %llu faults, %llu records elsewhere",
	       (unsigned long long)totals.minor, after.minflt - before.minflt,
	       (unsigned long long)totals.elsewhere);
	expect(status_lists(w.pid), "root's worker is no longer registered");
	expect_ok(status_printf(-1, "X %d", BESIDE_TARGET), "root's X");
	kill_and_reap(w.pid);
	close(fd);
}

#define RACE_TARGET 871
#define RACE_ROUNDS 1000
/* A slow kernel (the debug one) tries for this long, at least RACE_ROUNDS_MIN rounds. */
#define RACE_SECONDS 20
#define RACE_ROUNDS_MIN 50
#define RACE_FORKERS 4

/*
 * It and RACE_FORKERS - 1 children of its own, which die with it, fork
 * children that exit at once, for ever.
 */
static void fork_storm(int go, int back)
{
	pid_t storm = getpid();

	(void)go;
	(void)back;
	for (int i = 1; i < RACE_FORKERS; i++) {
		if (fork())
			continue;
		if (prctl(PR_SET_PDEATHSIG, SIGKILL) || getppid() != storm)
			_exit(3);
		break;
	}
	for (;;) {
		pid_t pid = fork();

		if (pid == 0)
			_exit(0);
		if (pid > 0)
			waitpid(pid, NULL, 0);
	}
}

/*
 * "X" of a tree whose processes keep forking: once X returned, no child of
 * the tree is registered (the fork probe joined a child after X had
 * removed its parent). The window is a few instructions of the fork probe,
 * so four processes fork, and it is tried 1000 times, or for 20 s.
 */
void test_tree_x_beside_forks(void)
{
	uint64_t until = now_ns() + RACE_SECONDS * 1000000000ULL;
	int go_fd, back_fd, round;
	pid_t storm = spawn_piped(fork_storm, &go_fd, &back_fd), listed[64];

	for (round = 0; round < RACE_ROUNDS; round++) {
		int n;

		if (round >= RACE_ROUNDS_MIN && now_ns() > until)
			break;

		expect_ok(status_printf(-1, "T %d %d", (int)storm, RACE_TARGET), "T of the forking root");
		expect_ok(status_printf(-1, "X %d", RACE_TARGET), "X of its tree");
		n = status_list(listed, 64);
		expect(n == 0, "round %d: %d processes registered after X returned, the first %d",
		       round, n, n ? (int)listed[0] : 0);
	}
	printf("  tree_x_beside_forks: %d rounds of T and X beside %d processes forking\n",
	       round, RACE_FORKERS);
	kill_and_reap(storm);
	close(go_fd);
	close(back_fd);
}
