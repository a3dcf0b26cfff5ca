// SPDX-License-Identifier: GPL-2.0
/*
 * Users beside root on one host: no user's registrations, walks, reads
 * or records crowd out root's profile, nor make it wait (issue 55).
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>

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

#define WALK_IDLE_THREADS 2000
#define WALK_LOOPERS 200
#define WALK_SECONDS 8
/* The loopers' targets: WALK_TARGETS + i. Root's calibration uses WALK_ROOT_TARGET. */
#define WALK_TARGETS 900
#define WALK_ROOT_TARGET 899
#define WALK_OTHER_TARGET 898
/* Another user, who walks beside the storm. */
#define WALK_OTHER_ID 4242
#define WALK_CALIBRATIONS 3
/*
 * A host that stalls the guest once (other guests beside it: a read of 933
 * ms, once in a ten-run table) stalls one round, not WALK_TRIES: the round
 * is run again before a verdict. A walk that held the lock throughout made
 * every round wait for a hundred walks and more.
 */
#define WALK_TRIES 3

struct walk_looper {
	pthread_t thread;
	pid_t child;		/* its tree's root ("T"), or 0: it loops "N" */
	int target;
	unsigned long walks;	/* its commands that walked (succeeded) */
};

static uint64_t walk_end_ns;
/* uid 65534's processes its tree loopers register, forked before the storm's pipes. */
static pid_t walk_trees[WALK_LOOPERS];

static void *idle_thread(void *arg)
{
	(void)arg;
	for (;;)
		pause();
	return NULL;
}

/*
 * "T <its child> <its target>" or "N <its target> <a name>", then "X", until
 * the end, on a file of its own: writes to one shared file would wait for
 * each other on its position's lock, not on the module's.
 */
static void *walk_loop(void *arg)
{
	int fd = open(MP3_STATUS_PATH, O_WRONLY | O_CLOEXEC);
	struct walk_looper *l = arg;
	char add[64], end[32];

	if (fd < 0)
		_exit(5);

	if (l->child)
		snprintf(add, sizeof(add), "T %d %d", (int)l->child, l->target);
	else
		snprintf(add, sizeof(add), "N %d mp3-walk-none", l->target);
	snprintf(end, sizeof(end), "X %d", l->target);
	while (now_ns() < walk_end_ns) {
		if (!status_write_cmd_fd(fd, add))
			l->walks++;
		status_write_cmd_fd(fd, end);
	}
	close(fd);
	return NULL;
}

static void start_thread(pthread_t *thread, const pthread_attr_t *attr,
			 void *(*fn)(void *), void *arg)
{
	if (pthread_create(thread, attr, fn, arg))
		_exit(8);
}

/*
 * spawn_piped()'s child, as uid 65534: WALK_IDLE_THREADS idle threads (the
 * PIDs every walk passes) and, once told, WALK_LOOPERS threads looping walks
 * for WALK_SECONDS, half of them trees of a process of their own
 * (walk_trees), half names;
 * says how many walks succeeded, then waits to be killed.
 */
static void walk_storm_child(int go, int back)
{
	static struct walk_looper loopers[WALK_LOOPERS];
	static pthread_t idle[WALK_IDLE_THREADS];
	/* RLIMIT_NPROC is half of threads-max by default: 1950 in a 512 MiB guest. */
	const struct rlimit unlimited = { RLIM_INFINITY, RLIM_INFINITY };
	unsigned long walks = 0;
	pthread_attr_t attr;

	if (setrlimit(RLIMIT_NPROC, &unlimited))
		_exit(5);
	become_nobody();
	for (int i = 0; i < WALK_LOOPERS; i++) {
		loopers[i].target = WALK_TARGETS + i;
		loopers[i].child = walk_trees[i];
	}
	if (pthread_attr_init(&attr) || pthread_attr_setstacksize(&attr, 64 * 1024))
		_exit(6);
	for (int i = 0; i < WALK_IDLE_THREADS; i++)
		start_thread(&idle[i], &attr, idle_thread, NULL);
	child_says(back, 1);
	child_waits(go);
	walk_end_ns = now_ns() + WALK_SECONDS * 1000000000ULL;
	for (int i = 0; i < WALK_LOOPERS; i++)
		start_thread(&loopers[i].thread, &attr, walk_loop, &loopers[i]);
	for (int i = 0; i < WALK_LOOPERS; i++) {
		pthread_join(loopers[i].thread, NULL);
		walks += loopers[i].walks;
	}
	child_done(back, walks);
}

/*
 * spawn_piped()'s child, as WALK_OTHER_ID: once told, "T" of itself and "X"
 * for WALK_SECONDS - 1 s; says its longest "T" in ns, or 0 if one failed.
 */
static void walk_other_user_child(int go, int back)
{
	char add[64], end[32];
	uint64_t longest = 0, until;
	int fd;

	if (setresgid(WALK_OTHER_ID, WALK_OTHER_ID, WALK_OTHER_ID) ||
	    setresuid(WALK_OTHER_ID, WALK_OTHER_ID, WALK_OTHER_ID) || prctl(PR_SET_DUMPABLE, 1))
		_exit(5);
	fd = open(MP3_STATUS_PATH, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		_exit(5);
	snprintf(add, sizeof(add), "T %d %d", (int)getpid(), WALK_OTHER_TARGET);
	snprintf(end, sizeof(end), "X %d", WALK_OTHER_TARGET);
	child_says(back, 1);
	child_waits(go);
	until = now_ns() + (WALK_SECONDS - 1) * 1000000000ULL;
	while (now_ns() < until) {
		uint64_t start = now_ns(), took;

		if (status_write_cmd_fd(fd, add))
			child_done(back, 0);
		took = now_ns() - start;
		longest = took > longest ? took : longest;
		if (status_write_cmd_fd(fd, end))
			child_done(back, 0);
		sleep_ms(50);
	}
	child_done(back, longest);
}

/* The shortest of root's walks over every process as they are now, in ns. */
static uint64_t one_walk_ns(pid_t root_of_tree)
{
	char add[64], end[32];
	uint64_t best = UINT64_MAX;

	snprintf(add, sizeof(add), "T %d %d", (int)root_of_tree, WALK_ROOT_TARGET);
	snprintf(end, sizeof(end), "X %d", WALK_ROOT_TARGET);
	for (int i = 0; i < WALK_CALIBRATIONS; i++) {
		uint64_t start = now_ns(), took;

		expect_ok(status_write(add), "root's T");
		took = now_ns() - start;
		best = took < best ? took : best;
		expect_ok(status_write(end), "root's X");
	}
	return best;
}

/* How long reading the whole of /proc/mp3/status takes root, in ns. */
static uint64_t status_read_ns(void)
{
	uint64_t start = now_ns();
	char buf[4096];
	int fd = open(MP3_STATUS_PATH, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	expect(fd >= 0, "open %s: %s", MP3_STATUS_PATH, strerror(errno));
	while ((n = read(fd, buf, sizeof(buf))) > 0)
		;
	expect(n == 0, "read %s: %s", MP3_STATUS_PATH, strerror(errno));
	close(fd);
	return now_ns() - start;
}

/* The longest time between two consecutive samples of [from, to), in ns. */
static uint64_t longest_gap_ns(const struct mp3ring *ring, uint64_t from, uint64_t to)
{
	struct mp3_ring_sample s;
	uint64_t next = from, missed = 0, last = 0, longest = 0;

	while (next < to) {
		expect(mp3ring_read(ring, &next, &s, &missed) == MP3RING_SAMPLE && !missed,
		       "sample %" PRIu64 " lost", next);
		if (last && s.time_ns - last > longest)
			longest = s.time_ns - last;
		last = s.time_ns;
	}
	return longest;
}

/* One round of the walks beside root: what root and the others waited. */
struct walk_figures {
	uint64_t walk;			/* root's own walk beside the same threads */
	uint64_t walks;			/* uid 65534's walks that succeeded */
	uint64_t other_walk;		/* the other user's longest, 0 if one failed */
	uint64_t longest_read;		/* root's longest read of the listing */
	uint64_t gap;			/* the longest between two samples */
	uint64_t allowed;		/* what each may take */
};

/* Whether the round's waits are within what it allows. */
static bool walks_within(const struct walk_figures *f, uint64_t period)
{
	return f->longest_read <= f->allowed && f->other_walk <= f->allowed &&
	       f->gap <= f->allowed + period;
}

/* The storm and the other user for WALK_SECONDS beside root's reads of the listing. */
static struct walk_figures one_walk_round(const struct mp3ring *ring, pid_t tree_root)
{
	struct walk_figures f = { 0 };
	int go, back, other_go, other_back;
	uint64_t from, emulation;
	pid_t storm, other;

	storm = spawn_piped(walk_storm_child, &go, &back);
	expect(read(back, &f.walks, sizeof(f.walks)) == sizeof(f.walks),
	       "the user's threads did not start");
	other = spawn_piped(walk_other_user_child, &other_go, &other_back);
	expect(read(other_back, &f.other_walk, sizeof(f.other_walk)) == sizeof(f.other_walk),
	       "uid %d did not start", WALK_OTHER_ID);
	f.walk = one_walk_ns(tree_root);
	from = wait_head(ring, mp3ring_head(ring) + 1, ticks_ms(ring, 2));
	expect(write(go, "g", 1) == 1 && write(other_go, "g", 1) == 1,
	       "telling the users to go: %s", strerror(errno));
	for (uint64_t end = now_ns() + WALK_SECONDS * 1000000000ULL; now_ns() < end;) {
		uint64_t took = status_read_ns();

		f.longest_read = took > f.longest_read ? took : f.longest_read;
		sleep_ms(20);
	}
	expect(read(back, &f.walks, sizeof(f.walks)) == sizeof(f.walks),
	       "the user's threads did not end");
	expect(read(other_back, &f.other_walk, sizeof(f.other_walk)) == sizeof(f.other_walk),
	       "uid %d did not end", WALK_OTHER_ID);
	f.gap = longest_gap_ns(ring, from, mp3ring_head(ring));
	/* Two periods, times what the emulated vCPUs' stalls may add (timeout_scale()). */
	emulation = scaled_ms(2 * ring->hdr->period_ns / 1000000) * 1000000ULL;
	f.allowed = 2 * f.walk + emulation;
	kill_and_reap(storm);
	kill_and_reap(other);
	close(go);
	close(back);
	close(other_go);
	close(other_back);
	return f;
}

/*
 * uid 65534 loops "T"/"X" and "N"/"X" on 200 threads beside 2000 idle ones
 * while root reads the listing, a sleeper of root's is sampled and another
 * user walks now and then: root's longest read and the longest gap between
 * two samples stay within two walks (root's own, timed beside the same
 * threads) and two periods (scaled as timeouts are, for the emulated
 * machine's stalls), and so does the other user's longest walk.
 * A walk that held the module's lock throughout made them all wait for the
 * walks queued before them: a hundred of them and more.
 */
void test_walks_beside_root(void)
{
	pid_t sleeper = spawn_sleeper(), tree_root = spawn_sleeper();
	struct walk_figures f;
	struct mp3ring ring;
	uint64_t period;
	int fd;

	expect_ok(status_cmd('R', sleeper), "R sleeper");
	map_ring(&ring, &fd);
	period = ring.hdr->period_ns;
	for (int i = 1; i < WALK_LOOPERS; i += 2)
		walk_trees[i] = spawn_nobody_sleeper();
	for (int try = 1;; try++) {
		f = one_walk_round(&ring, tree_root);
		printf("  walks_beside_root: try %d: a walk %.1f ms; uid %d walked %" PRIu64
		       " times in %d s; root's longest read %.1f ms, longest gap between samples"
		       " %.1f ms (period %.0f ms); uid %d's longest walk %.1f ms\n", try,
		       f.walk / 1e6, NOBODY_ID, f.walks, WALK_SECONDS, f.longest_read / 1e6,
		       f.gap / 1e6, period / 1e6, WALK_OTHER_ID, f.other_walk / 1e6);
		if (walks_within(&f, period) || try == WALK_TRIES)
			break;
	}
	expect(f.walks > 0, "uid %d's walks all failed", NOBODY_ID);
	expect(f.other_walk > 0, "a walk of uid %d failed", WALK_OTHER_ID);
	expect(f.longest_read <= f.allowed,
	       "root's read waited %.1f ms, over two walks (%.1f ms each) and %.0f ms",
	       f.longest_read / 1e6, f.walk / 1e6, (f.allowed - 2 * f.walk) / 1e6);
	expect(f.other_walk <= f.allowed,
	       "uid %d's walk took %.1f ms, over two walks (%.1f ms each) and %.0f ms",
	       WALK_OTHER_ID, f.other_walk / 1e6, f.walk / 1e6, (f.allowed - 2 * f.walk) / 1e6);
	expect(f.gap <= f.allowed + period,
	       "%.1f ms between two samples, over two walks (%.1f ms each), a period and %.0f ms",
	       f.gap / 1e6, f.walk / 1e6, (f.allowed - 2 * f.walk) / 1e6);
	for (int i = 1; i < WALK_LOOPERS; i += 2)
		kill_and_reap(walk_trees[i]);
	kill_and_reap(tree_root);
	kill_and_reap(sleeper);
	close(fd);
}

#define READ_PROCS 1000
#define READ_THREADS 64
#define READ_SECONDS 5
#define READ_TARGET 897

static uint64_t read_end_ns;
/* What the readers read: the listing, or, to calibrate, a file of no lock of ours. */
static const char *read_path;

/* Reads read_path over and over until read_end_ns, on a file of its own. */
static void *read_loop(void *arg)
{
	unsigned long *reads = arg;
	char buf[16384];
	int fd = open(read_path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		_exit(5);
	while (now_ns() < read_end_ns) {
		if (lseek(fd, 0, SEEK_SET) || read(fd, buf, sizeof(buf)) < 0)
			_exit(6);
		(*reads)++;
	}
	close(fd);
	return NULL;
}

/* READ_THREADS threads reading read_path for READ_SECONDS: how many reads they made. */
static unsigned long read_storm(void)
{
	static unsigned long reads[READ_THREADS];
	static pthread_t readers[READ_THREADS];
	unsigned long all = 0;

	read_end_ns = now_ns() + READ_SECONDS * 1000000000ULL;
	for (int i = 0; i < READ_THREADS; i++) {
		reads[i] = 0;
		start_thread(&readers[i], NULL, read_loop, &reads[i]);
	}
	for (int i = 0; i < READ_THREADS; i++) {
		pthread_join(readers[i], NULL);
		all += reads[i];
	}
	return all;
}

/*
 * spawn_piped()'s child, as uid 65534: READ_PROCS idle children registered
 * as its tree; then, told each time, a storm of reads of /proc/self/stat
 * (the calibration: the same busy threads, no lock of the module's), then
 * one of the listing; says how many reads each made, then waits to be killed.
 */
static void read_storm_child(int go, int back)
{
	char add[32];

	become_nobody_with(READ_PROCS);
	snprintf(add, sizeof(add), "T %d %d", (int)getpid(), READ_TARGET);
	if (status_write(add))
		_exit(7);
	child_says(back, 1);
	/* "s": a storm of /proc/self/stat reads, "l": of the listing's. */
	for (char what; read(go, &what, 1) == 1;) {
		read_path = what == 'l' ? MP3_STATUS_PATH : "/proc/self/stat";
		child_says(back, read_storm());
	}
	_exit(0);
}

/* How long root's "R" and "U" of @pid take together, in ns: two short holds of the lock. */
static uint64_t register_ns(pid_t pid)
{
	uint64_t start = now_ns();

	expect_ok(status_cmd('R', pid), "root's R");
	expect_ok(status_cmd('U', pid), "root's U");
	return now_ns() - start;
}

/*
 * Root's thread at a real-time priority, or back at its normal one. The
 * listing's readers sleep while a sample is taken and wake together when it
 * ends: at its normal priority, root would also wait for its share of the
 * CPUs among 64 waking threads (159.8 ms on 6.1), which is the scheduler's
 * fairness, not a wait for the module's lock.
 */
static void measure_at_realtime(bool on)
{
	struct sched_param param = { .sched_priority = on ? 1 : 0 };

	expect(!sched_setscheduler(0, on ? SCHED_FIFO : SCHED_OTHER, &param),
	       "sched_setscheduler: %s", strerror(errno));
}

/* While the storm the child was told to start runs: root's longest R and U, in ns. */
static uint64_t longest_register_during(pid_t pid)
{
	uint64_t longest = 0;

	measure_at_realtime(true);
	for (uint64_t end = now_ns() + READ_SECONDS * 1000000000ULL; now_ns() < end;) {
		uint64_t took = register_ns(pid);

		longest = took > longest ? took : longest;
		sleep_ms(20);
	}
	measure_at_realtime(false);
	return longest;
}

/* A storm of reads: root's longest R and U meanwhile, the longest gap between samples. */
struct storm_figures {
	uint64_t longest, gap, reads;
};

/* Tells the child to start a storm of @what ("s" or "l") and measures it. */
static struct storm_figures one_storm(const struct mp3ring *ring, int go, int back, pid_t other,
				      const char *what)
{
	uint64_t from = wait_head(ring, mp3ring_head(ring) + 1, ticks_ms(ring, 2));
	struct storm_figures f;

	expect(write(go, what, 1) == 1, "telling uid %d to go: %s", NOBODY_ID, strerror(errno));
	f.longest = longest_register_during(other);
	expect(read(back, &f.reads, sizeof(f.reads)) == sizeof(f.reads) && f.reads > 0,
	       "uid %d's reads failed", NOBODY_ID);
	f.gap = longest_gap_ns(ring, from, mp3ring_head(ring));
	return f;
}

/*
 * uid 65534 reads /proc/mp3/status on 64 threads, with a thousand processes
 * of its own registered: neither root's commands nor the samples wait for
 * the reads (issue 55, item 1). The same threads reading /proc/self/stat
 * first say what their load alone costs on this machine now: beside the
 * listing's readers, root's longest "R" and "U" (timed at a real-time
 * priority) and the longest gap between samples stay within twice those
 * and two periods (more on the debug kernel). A read that listed under the
 * module's lock made them wait for the readers queued before it: root's R
 * and U 365.9 ms against 1.2 ms alone, on 6.1 on an idle host, every time.
 * A host that stalls the guest once (another guest beside it: 344.6 ms
 * between two samples against 83.2 ms, once in a ten-run table) stalls one
 * try, not STORM_TRIES: the pair is measured again before a verdict.
 */
#define STORM_TRIES 3

void test_reads_beside_root(void)
{
	pid_t sleeper = spawn_sleeper(), other = spawn_sleeper(), storm;
	struct storm_figures alone, listing;
	uint64_t period, registered, slack;
	struct mp3ring ring;
	int fd, go, back;
	bool within;

	expect_ok(status_cmd('R', sleeper), "R sleeper");
	map_ring(&ring, &fd);
	period = ring.hdr->period_ns;
	storm = spawn_piped(read_storm_child, &go, &back);
	expect(read(back, &registered, sizeof(registered)) == sizeof(registered),
	       "uid %d did not register its %d processes", NOBODY_ID, READ_PROCS);
	/*
	 * Two periods on a release kernel; more on the debug kernel, whose
	 * timings vary the most (timeout_scale(): 3 and 8).
	 */
	slack = (uint64_t)(2 * period * timeout_scale() / 3);
	for (int try = 1;; try++) {
		alone = one_storm(&ring, go, back, other, "s");
		listing = one_storm(&ring, go, back, other, "l");
		printf("  reads_beside_root: try %d: uid %d's %d threads for %d s, reading"
		       " /proc/self/stat %" PRIu64 " times: longest gap between samples %.1f ms,"
		       " root's longest R and U %.1f ms; reading the listing of %d processes %"
		       PRIu64 " times: %.1f ms and %.1f ms (period %.0f ms)\n", try, NOBODY_ID,
		       READ_THREADS, READ_SECONDS, alone.reads, alone.gap / 1e6,
		       alone.longest / 1e6, READ_PROCS + 1, listing.reads, listing.gap / 1e6,
		       listing.longest / 1e6, period / 1e6);
		within = listing.longest <= 2 * alone.longest + slack &&
			 listing.gap <= 2 * alone.gap + slack;
		if (within || try == STORM_TRIES)
			break;
	}
	expect(listing.longest <= 2 * alone.longest + slack,
	       "root's R and U took %.1f ms beside the listing's readers, over twice the %.1f ms"
	       " beside the same threads' other reads and %.0f ms", listing.longest / 1e6,
	       alone.longest / 1e6, slack / 1e6);
	expect(listing.gap <= 2 * alone.gap + slack,
	       "%.1f ms between two samples beside the listing's readers, over twice the %.1f ms"
	       " beside the same threads' other reads and %.0f ms", listing.gap / 1e6,
	       alone.gap / 1e6, slack / 1e6);
	kill_and_reap(storm);
	kill_and_reap(sleeper);
	kill_and_reap(other);
	close(fd);
}
