// SPDX-License-Identifier: GPL-2.0
/*
 * Users beside root on one host, storms: no user's walks of the status file or
 * reads of the ring make root's profile wait (issue 55).
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
#include <time.h>
#include <unistd.h>

#include "harness.h"
#include "tests.h"

#define WALK_IDLE_THREADS 2000
#define WALK_LOOPERS 200
/* How long each phase of a round lasts: the calibration, then the walks. */
#define WALK_SECONDS 5
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

/* When a storm's threads stop: the walks' and the reads' alike. */
static uint64_t storm_end_ns;

struct walk_looper {
	pthread_t thread;
	pid_t child;		/* its tree's root ("T"), or 0: it loops "N" */
	int target;
	unsigned long commands;	/* its walks that succeeded, or its reads */
};

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
 * Reads its own stat until storm_end_ns, taking turns with the other
 * threads as the walks do (each user walks one at a time): as many threads
 * asleep and as few running as the walks, none of them in the module.
 */
static void *read_in_turn_loop(void *arg)
{
	static pthread_mutex_t turn = PTHREAD_MUTEX_INITIALIZER;
	unsigned long *reads = arg;
	char buf[4096];
	int fd = open("/proc/thread-self/stat", O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		_exit(5);
	while (now_ns() < storm_end_ns) {
		pthread_mutex_lock(&turn);
		if (lseek(fd, 0, SEEK_SET) || read(fd, buf, sizeof(buf)) < 0)
			_exit(6);
		pthread_mutex_unlock(&turn);
		(*reads)++;
	}
	close(fd);
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
	while (now_ns() < storm_end_ns) {
		if (!status_write_cmd_fd(fd, add))
			l->commands++;
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
 * WALK_LOOPERS threads for WALK_SECONDS: walks ("w") or reads of each
 * thread's stat in turn ("s"). Reads all at once kept more threads running
 * than the walks do and made the samples wait longer (304.9 ms apart) than
 * the walks did (59.0 ms); /proc/self/stat of a process of 2200 threads
 * sums them all under its signal lock.
 */
static unsigned long walk_storm(struct walk_looper *loopers, const pthread_attr_t *attr,
				char what)
{
	unsigned long commands = 0;

	storm_end_ns = now_ns() + WALK_SECONDS * 1000000000ULL;
	for (int i = 0; i < WALK_LOOPERS; i++) {
		struct walk_looper *l = &loopers[i];

		l->commands = 0;
		if (what == 'w')
			start_thread(&l->thread, attr, walk_loop, l);
		else
			start_thread(&l->thread, attr, read_in_turn_loop, &l->commands);
	}
	for (int i = 0; i < WALK_LOOPERS; i++) {
		pthread_join(loopers[i].thread, NULL);
		commands += loopers[i].commands;
	}
	return commands;
}

/*
 * spawn_piped()'s child, as uid 65534: WALK_IDLE_THREADS idle threads (the
 * PIDs every walk passes); then, told each time, a storm (walk_storm()) of
 * reads of their stat in turn (the calibration: as many threads, no lock of
 * the module's) or of walks, half of them trees of a process of their
 * own (walk_trees), half names; says how many of the storm's commands
 * succeeded, then waits to be told again or killed.
 */
static void walk_storm_child(int go, int back)
{
	static struct walk_looper loopers[WALK_LOOPERS];
	static pthread_t idle[WALK_IDLE_THREADS];
	/* RLIMIT_NPROC is half of threads-max by default: 1950 in a 512 MiB guest. */
	const struct rlimit unlimited = { RLIM_INFINITY, RLIM_INFINITY };
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
	for (char what; read(go, &what, 1) == 1;)
		child_says(back, walk_storm(loopers, &attr, what));
	_exit(0);
}

/*
 * spawn_piped()'s child, as WALK_OTHER_ID: each time it is told, "T" of
 * itself and "X" for WALK_SECONDS - 1 s; says its longest "T" in ns, or 0
 * if one failed.
 */
static void walk_other_user_child(int go, int back)
{
	char add[64], end[32];
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
	for (char what; read(go, &what, 1) == 1;) {
		uint64_t longest = 0, until = now_ns() + (WALK_SECONDS - 1) * 1000000000ULL;
		bool failed = false;

		while (now_ns() < until && !failed) {
			uint64_t start = now_ns(), took;

			failed = status_write_cmd_fd(fd, add);
			took = now_ns() - start;
			longest = took > longest ? took : longest;
			failed |= status_write_cmd_fd(fd, end);
			sleep_ms(50);
		}
		child_says(back, failed ? 0 : longest);
	}
	_exit(0);
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

/* The storm's and the other user's children, told through their pipes. */
struct walk_users {
	int go, back, other_go, other_back;
};

/* What root and the others waited during one storm. */
struct walk_phase {
	uint64_t commands;		/* uid 65534's that succeeded */
	uint64_t other_walk;		/* the other user's longest, 0 if one failed */
	uint64_t longest_read;		/* root's longest read of the listing */
	uint64_t gap;			/* the longest between two samples */
};

/* One storm of @what ("s" or "w") beside the other user's walks and root's reads. */
static struct walk_phase one_walk_phase(const struct mp3ring *ring, const struct walk_users *u,
					const char *what)
{
	uint64_t from = wait_head(ring, mp3ring_head(ring) + 1, ticks_ms(ring, 2));
	struct walk_phase p = { 0 };

	expect(write(u->go, what, 1) == 1 && write(u->other_go, "g", 1) == 1,
	       "telling the users to go: %s", strerror(errno));
	for (uint64_t end = now_ns() + WALK_SECONDS * 1000000000ULL; now_ns() < end;) {
		uint64_t took = status_read_ns();

		p.longest_read = took > p.longest_read ? took : p.longest_read;
		sleep_ms(20);
	}
	expect(read(u->back, &p.commands, sizeof(p.commands)) == sizeof(p.commands),
	       "the user's threads did not end");
	expect(read(u->other_back, &p.other_walk, sizeof(p.other_walk)) == sizeof(p.other_walk),
	       "uid %d did not end", WALK_OTHER_ID);
	p.gap = longest_gap_ns(ring, from, mp3ring_head(ring));
	return p;
}

/* One round of the walks beside root: the calibration, then the walks. */
struct walk_figures {
	uint64_t walk;			/* root's own walk beside the same threads */
	struct walk_phase alone;	/* beside the threads' reads in turn */
	struct walk_phase walks;	/* beside their walks */
	uint64_t slack;			/* two walks and the emulation's stalls */
};

/* A figure beside the walks may be twice what it is beside the reads, and the slack. */
static bool walk_within(uint64_t beside_walks, uint64_t beside_reads, uint64_t slack)
{
	return beside_walks <= 2 * beside_reads + slack;
}

static bool walks_within(const struct walk_figures *f)
{
	return walk_within(f->walks.longest_read, f->alone.longest_read, f->slack) &&
	       walk_within(f->walks.other_walk, f->alone.other_walk, f->slack) &&
	       walk_within(f->walks.gap, f->alone.gap, f->slack);
}

static struct walk_figures one_walk_round(const struct mp3ring *ring, pid_t tree_root)
{
	struct walk_figures f = { 0 };
	struct walk_users u;
	pid_t storm, other;
	uint64_t started;

	storm = spawn_piped(walk_storm_child, &u.go, &u.back);
	expect(read(u.back, &started, sizeof(started)) == sizeof(started),
	       "the user's threads did not start");
	other = spawn_piped(walk_other_user_child, &u.other_go, &u.other_back);
	expect(read(u.other_back, &started, sizeof(started)) == sizeof(started),
	       "uid %d did not start", WALK_OTHER_ID);
	f.walk = one_walk_ns(tree_root);
	f.alone = one_walk_phase(ring, &u, "s");
	f.walks = one_walk_phase(ring, &u, "w");
	/* Two periods, times what the emulated vCPUs' stalls may add (timeout_scale()). */
	f.slack = 2 * f.walk + scaled_ms(2 * ring->hdr->period_ns / 1000000) * 1000000ULL;
	kill_and_reap(storm);
	kill_and_reap(other);
	close(u.go);
	close(u.back);
	close(u.other_go);
	close(u.other_back);
	return f;
}

/*
 * uid 65534 loops "T"/"X" and "N"/"X" on 200 threads beside 2000 idle ones
 * while root reads the listing, a sleeper of root's is sampled and another
 * user walks now and then. The same threads reading their stat in turn first
 * say what their load alone costs on this machine now: beside the walks,
 * root's longest read, the other user's longest walk and the longest gap
 * between two samples stay within twice those, two walks (root's own,
 * timed beside the same threads) and two periods (scaled as timeouts are,
 * for the emulated machine's stalls). A walk that held the module's lock
 * throughout made them all wait for the walks queued before them (root's
 * read 2146.6 ms, a walk 2.2 ms); one walk slot for all users made the
 * other user wait 1015.0 ms. A fixed allowance alone failed on a host that
 * stayed overloaded (518.2 ms between two samples).
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
		printf("  walks_beside_root: try %d: a walk %.1f ms; uid %d's %d threads for %d s,"
		       " reading their stat in turn %" PRIu64 " times: root's longest read %.1f ms,"
		       " longest gap between samples %.1f ms, uid %d's longest walk %.1f ms;"
		       " walking %" PRIu64 " times: %.1f ms, %.1f ms and %.1f ms (period %.0f ms)\n",
		       try, f.walk / 1e6, NOBODY_ID, WALK_LOOPERS, WALK_SECONDS, f.alone.commands,
		       f.alone.longest_read / 1e6, f.alone.gap / 1e6, WALK_OTHER_ID,
		       f.alone.other_walk / 1e6, f.walks.commands, f.walks.longest_read / 1e6,
		       f.walks.gap / 1e6, f.walks.other_walk / 1e6, period / 1e6);
		if (walks_within(&f) || try == WALK_TRIES)
			break;
	}
	expect(f.walks.commands > 0, "uid %d's walks all failed", NOBODY_ID);
	expect(f.alone.other_walk > 0 && f.walks.other_walk > 0, "a walk of uid %d failed",
	       WALK_OTHER_ID);
	expect(walk_within(f.walks.longest_read, f.alone.longest_read, f.slack),
	       "root's read waited %.1f ms beside the walks, over twice the %.1f ms beside the"
	       " same threads' reads and %.1f ms", f.walks.longest_read / 1e6,
	       f.alone.longest_read / 1e6, f.slack / 1e6);
	expect(walk_within(f.walks.other_walk, f.alone.other_walk, f.slack),
	       "uid %d's walk took %.1f ms beside the walks, over twice the %.1f ms beside the"
	       " same threads' reads and %.1f ms", WALK_OTHER_ID, f.walks.other_walk / 1e6,
	       f.alone.other_walk / 1e6, f.slack / 1e6);
	expect(walk_within(f.walks.gap, f.alone.gap, f.slack),
	       "%.1f ms between two samples beside the walks, over twice the %.1f ms beside the"
	       " same threads' reads and %.1f ms", f.walks.gap / 1e6, f.alone.gap / 1e6,
	       f.slack / 1e6);
	for (int i = 1; i < WALK_LOOPERS; i += 2)
		kill_and_reap(walk_trees[i]);
	kill_and_reap(tree_root);
	kill_and_reap(sleeper);
	close(fd);
}

#define READ_THREADS 64
#define READ_SECONDS 5
#define READ_TARGET 897

/* The processes of uid 65534's tree: MANY_PROCS, or PFPROF_MANY_PROCS. */
static int read_procs;

/* What read_loop() reads: the listing, or, to calibrate, a file of no lock of ours. */
static const char *read_path;

/* Reads read_path over and over until storm_end_ns, on a file of its own; counts in *arg. */
static void *read_loop(void *arg)
{
	unsigned long *reads = arg;
	char buf[16384];
	int fd = open(read_path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		_exit(5);
	while (now_ns() < storm_end_ns) {
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

	storm_end_ns = now_ns() + READ_SECONDS * 1000000000ULL;
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
 * spawn_piped()'s child, as uid 65534: read_procs idle children registered
 * as its tree; then, told each time, a storm of reads of /proc/self/stat
 * (the calibration: the same busy threads, no lock of the module's), then
 * one of the listing; says how many reads each made, then waits to be killed.
 */
static void read_storm_child(int go, int back)
{
	char add[32];

	become_nobody_with(read_procs);
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
 * uid 65534 reads /proc/mp3/status on 64 threads, with MANY_PROCS processes
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
 * The debug kernel registers fewer processes (tests/guest/run): the same
 * paths under its checkers; the bound is shown on the release kernels.
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
	read_procs = count_from_env("PFPROF_MANY_PROCS", MANY_PROCS);
	storm = spawn_piped(read_storm_child, &go, &back);
	expect(read(back, &registered, sizeof(registered)) == sizeof(registered),
	       "uid %d did not register its %d processes", NOBODY_ID, read_procs);
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
		       alone.longest / 1e6, read_procs + 1, listing.reads, listing.gap / 1e6,
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
