// SPDX-License-Identifier: GPL-2.0
/*
 * Stall times (version 7, MP3_RING_STALLS): what the counts records of a
 * process say it waited, summed, is what the kernel's taskstats says its
 * threads waited since the registration, kind by kind. The workload swaps
 * for real: a memory cgroup's limit well below what it touches, over and
 * over, with zram as swap.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/wait.h>

#include "harness.h"
#include "psi.h"
#include "stalls.h"
#include "taskstats.h"
#include "tests.h"

#define STALLS_CGROUP CGROUP_ROOT "/mp3-stalls"
#define THREADS_MAX 8
/*
 * The module sends whole microseconds of the process's running sums,
 * which lose less than one over all its records; two a record leave room
 * for a sum read as a thread exits, and do not grow with the waits.
 */
#define SLACK_US_PER_RECORD 2

/*
 * What the workload does: its threads (the main one among them) each touch
 * a slice of their own, twice the cgroup's limit between them, so that
 * most of what they touch comes back from swap.
 */
struct workload {
	const char *name;
	unsigned int limit_mib;
	unsigned int threads;
	unsigned int leaving;	/* threads that exit halfway, the main one never */
	unsigned int slice_mib;
	unsigned int work_ms;
};

struct stall_sum {
	uint32_t tgid;
	uint64_t us[STALL_KINDS];
	unsigned int records;
};

/* One thread of the workload and its slice. */
struct toucher {
	char *slice;
	size_t pages;
	uint64_t until_ns;
	pthread_barrier_t *stayed;	/* NULL: the thread exits after its work */
	pid_t tid;
};

/* spawn_piped() has no argument for its child: the workload it runs. */
static const struct workload *running;

static void read_line(const char *path, char *line, size_t size)
{
	FILE *f = fopen(path, "re");

	expect(f && fgets(line, (int)size, f), "reading %s: %s", path, strerror(errno));
	fclose(f);
	line[strcspn(line, "\n")] = '\0';
}

static void delays_ns(const struct task_delays *d, uint64_t ns[STALL_KINDS])
{
	ns[STALL_SWAPIN] = d->swapin_ns;
	ns[STALL_THRASHING] = d->thrashing_ns;
	ns[STALL_RECLAIM] = d->reclaim_ns;
	ns[STALL_COMPACT] = d->compact_ns;
	ns[STALL_BLKIO] = d->blkio_ns;
}

/* Pages touched between two looks at the clock. */
#define TOUCH_BATCH 256

/*
 * Touches the slice's pages in turn, each with a word of its own (not a
 * same-filled page, which zram keeps without compressing), until the
 * deadline, mid-round if need be: whole rounds took over a minute beside
 * other guests. A round and a half at least: the first faults the slice
 * in, then its oldest pages, which the limit pushed out first, come back.
 */
static void touch_until_deadline(const struct toucher *t)
{
	long page = sysconf(_SC_PAGESIZE);
	uint64_t n = 0;

	do {
		for (unsigned int b = 0; b < TOUCH_BATCH; b++, n++)
			*(volatile uint64_t *)(t->slice + (n % t->pages) * page) = n;
	} while (n < t->pages * 3 / 2 || now_ns() < t->until_ns);
}

/* A thread of the workload: it exits after its work, or stays, asleep, to be asked about. */
static void *touch_until(void *arg)
{
	struct toucher *t = arg;

	t->tid = gettid();
	touch_until_deadline(t);
	if (t->stayed) {
		pthread_barrier_wait(t->stayed);
		for (;;)
			pause();
	}
	return NULL;
}

/*
 * spawn_piped()'s fn: on a byte, runs the workload; then says the TIDs of
 * the threads still alive (the main one first) and waits to be killed.
 */
static void workload_child(int go, int back)
{
	const struct workload *w = running;
	unsigned int staying = w->threads - w->leaving;
	size_t slice = (size_t)w->slice_mib << 20;
	struct toucher t[THREADS_MAX];
	pthread_t threads[THREADS_MAX];
	pthread_barrier_t stayed;
	pid_t tids[THREADS_MAX];
	uint64_t start;
	char *region;

	/* Pages of 4 KiB each: a huge page is split to be swapped and would blur the count. */
	if (prctl(PR_SET_THP_DISABLE, 1, 0, 0, 0))
		_exit(6);
	region = mmap(NULL, slice * w->threads, PROT_READ | PROT_WRITE,
		      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (region == MAP_FAILED || pthread_barrier_init(&stayed, NULL, staying))
		_exit(7);
	child_waits(go);
	start = now_ns();
	for (unsigned int i = 0; i < w->threads; i++) {
		bool leaves = i >= 1 && i <= w->leaving;

		t[i] = (struct toucher){
			.slice = region + i * slice,
			.pages = slice / sysconf(_SC_PAGESIZE),
			.until_ns = start + (leaves ? w->work_ms / 2 : w->work_ms) * 1000000ULL,
			/* The main thread does not wait with the others that stay: it waits for them. */
			.stayed = leaves || !i ? NULL : &stayed,
		};
		if (i && pthread_create(&threads[i], NULL, touch_until, &t[i]))
			_exit(8);
	}
	touch_until(&t[0]);
	for (unsigned int i = 1; i <= w->leaving; i++)
		pthread_join(threads[i], NULL);
	if (staying > 1)
		pthread_barrier_wait(&stayed);
	tids[0] = t[0].tid;
	for (unsigned int i = w->leaving + 1, n = 1; i < w->threads; i++)
		tids[n++] = t[i].tid;
	if (write(back, tids, staying * sizeof(pid_t)) != (ssize_t)(staying * sizeof(pid_t)))
		_exit(4);
	for (;;)
		pause();
}

/* The cgroup the workload swaps in: its limit, and the memory controller on for it. */
static void make_limited_cgroup(const struct workload *w)
{
	char max[24];

	make_cgroup(STALLS_CGROUP);
	write_file(CGROUP_ROOT "/cgroup.subtree_control", "+memory");
	snprintf(max, sizeof(max), "%uM", w->limit_mib);
	write_file(STALLS_CGROUP "/memory.max", max);
}

static void add_stalls(void *ctx, const struct mp3_proc_record *r)
{
	struct stall_sum *sum = ctx;

	if (r->type != MP3_RECORD_COUNTS || r->tgid != sum->tgid)
		return;
	stalls_add(sum->us, &r->stalls);
	sum->records++;
}

/* How far the module's sum may be from taskstats' want_us: 1 %, and the rounding. */
static uint64_t tolerance_us(uint64_t want_us, const struct stall_sum *sum)
{
	return want_us / 100 + (uint64_t)SLACK_US_PER_RECORD * sum->records;
}

/* The delays of the threads still alive, each asked for by its TID. */
static void live_threads_ns(struct taskstats_client *ts, const pid_t *tids, unsigned int n,
			    uint64_t ns[STALL_KINDS])
{
	struct task_delays d;
	uint64_t one[STALL_KINDS];

	memset(ns, 0, STALL_KINDS * sizeof(ns[0]));
	for (unsigned int i = 0; i < n; i++) {
		expect_ok(taskstats_thread(ts, tids[i], &d), "taskstats of a thread of the workload");
		delays_ns(&d, one);
		for (int k = 0; k < STALL_KINDS; k++)
			ns[k] += one[k];
	}
}

/*
 * The threads that exited took their waits to the process's own account
 * (the signal struct's taskstats): enough of them that a module that
 * forgot them would be out of tolerance.
 */
static void expect_exited_counted(const struct workload *w, const uint64_t want_us[STALL_KINDS],
				  const uint64_t live_ns[STALL_KINDS], const struct stall_sum *sum)
{
	uint64_t exited_us = want_us[STALL_SWAPIN] - live_ns[STALL_SWAPIN] / 1000;

	printf("  %s: of taskstats' swap-ins, %" PRIu64 " us were the exited threads'\n",
	       w->name, exited_us);
	expect(live_ns[STALL_SWAPIN] / 1000 <= want_us[STALL_SWAPIN] &&
	       exited_us > tolerance_us(want_us[STALL_SWAPIN], sum),
	       "the threads that exited waited %" PRIu64 " us of %" PRIu64 " us in swap-ins: "
	       "not enough to tell whether the module counts them", exited_us, want_us[STALL_SWAPIN]);
}

static void expect_sums_agree(const struct workload *w, const uint64_t want_us[STALL_KINDS],
			      const struct stall_sum *sum)
{
	for (int k = 0; k < STALL_KINDS; k++) {
		uint64_t got = sum->us[k], want = want_us[k];
		uint64_t diff = got > want ? got - want : want - got;

		printf("  %s: %s: module %" PRIu64 " us in %u records, taskstats %" PRIu64 " us\n",
		       w->name, stall_kind_word(k), got, sum->records, want);
		expect(diff <= tolerance_us(want, sum), "%s: the module's records sum to %" PRIu64
		       " us, taskstats says %" PRIu64 " us (tolerance %" PRIu64 " us)",
		       stall_kind_word(k), got, want, tolerance_us(want, sum));
	}
	/* A test of nothing passes as well: the waits must dwarf what the comparison lets pass. */
	expect(want_us[STALL_SWAPIN] > 10 * tolerance_us(want_us[STALL_SWAPIN], sum), "the workload waited "
	       "only %" PRIu64 " us in swap-ins: too little to compare", want_us[STALL_SWAPIN]);
}

/*
 * What the cgroup's own PSI moved by beside the memory stall, printed: the
 * two measure different things (wall-clock time with some or every task
 * stalled, against each thread's waits added; PSI counts a swap-in only
 * for a page evicted while in use, and the throttling at memory.high too),
 * so they are not compared; docs/stalls.md quotes them. That PSI saw the
 * reclaim the module saw is checked.
 */
static void show_pressure(const struct workload *w, const struct psi_memory *before,
			  const struct stall_sum *sum)
{
	struct psi_memory after;
	uint64_t some, full;

	expect_ok(psi_read_cgroup(STALLS_CGROUP, &after), "reading the cgroup's memory.pressure");
	some = after.some_total_us - before->some_total_us;
	full = after.full_total_us - before->full_total_us;
	printf("  %s: memory.pressure some +%" PRIu64 " us, full +%" PRIu64 " us; memory stall"
	       " %" PRIu64 " us (%.2f of it)\n", w->name, some, full, stalls_memory_us(sum->us),
	       stalls_memory_us(sum->us) ? (double)some / stalls_memory_us(sum->us) : 0.0);
	expect(!sum->us[STALL_RECLAIM] || some, "the module saw %" PRIu64 " us of reclaim, the "
	       "cgroup's PSI no stall at all", sum->us[STALL_RECLAIM]);
}

/* Runs w registered with "R", then compares its records with taskstats. */
static void compare_with_taskstats(const struct workload *w)
{
	uint64_t before_ns[STALL_KINDS], after_ns[STALL_KINDS], live_ns[STALL_KINDS], want_us[STALL_KINDS];
	unsigned int staying = w->threads - w->leaving;
	struct task_delays before, after;
	struct psi_memory pressure;
	struct taskstats_client ts;
	struct stall_sum sum = { 0 };
	pid_t pid, tids[THREADS_MAX];
	struct mp3ring ring;
	int dev, go, back;
	uint64_t from, to;

	expect_ok(taskstats_connect(&ts), "taskstats over generic netlink");
	map_ring(&ring, &dev);
	make_limited_cgroup(w);
	running = w;
	pid = spawn_piped(workload_child, &go, &back);
	move_to_cgroup(STALLS_CGROUP, pid);
	from = mp3ring_head(&ring);
	expect_ok(status_cmd('R', pid), "R of the workload");
	/* Idle on its pipe until told: what it waited before, the records do not count. */
	expect_ok(taskstats_process(&ts, pid, &before), "taskstats of the workload");
	expect_ok(psi_read_cgroup(STALLS_CGROUP, &pressure), "reading the cgroup's memory.pressure");
	expect(write(go, "g", 1) == 1, "telling the workload to go: %s", strerror(errno));
	expect(read(back, tids, staying * sizeof(pid_t)) == (ssize_t)(staying * sizeof(pid_t)),
	       "the workload ended before its work was done");
	/* Its last period ends in the next sample: the one after that leaves no doubt. */
	to = wait_head(&ring, mp3ring_head(&ring) + 2, 10000);
	expect_ok(taskstats_process(&ts, pid, &after), "taskstats of the workload");
	live_threads_ns(&ts, tids, staying, live_ns);
	sum.tgid = (uint32_t)pid;
	for_each_record_between(&ring, from, to, add_stalls, &sum);
	delays_ns(&before, before_ns);
	delays_ns(&after, after_ns);
	for (int k = 0; k < STALL_KINDS; k++)
		want_us[k] = (after_ns[k] - before_ns[k]) / 1000;
	expect_sums_agree(w, want_us, &sum);
	if (w->leaving)
		expect_exited_counted(w, want_us, live_ns, &sum);
	show_pressure(w, &pressure, &sum);
	kill_and_reap(pid);
	mp3ring_unmap(&ring);
	close(dev);
	taskstats_disconnect(&ts);
}

/*
 * Runs w with delay accounting on (off by default since 5.14), in a child,
 * so that the sysctl is put back as it was even when the test fails.
 */
static void with_delayacct(const struct workload *w)
{
	char saved[16];
	int status = 0;
	pid_t pid;

	read_line(DELAYACCT_SYSCTL, saved, sizeof(saved));
	write_file(DELAYACCT_SYSCTL, "1");
	fflush(NULL);
	pid = fork();
	if (!pid) {
		compare_with_taskstats(w);
		_exit(0);
	}
	if (pid > 0 && waitpid(pid, &status, 0) != pid)
		pid = -1;
	write_file(DELAYACCT_SYSCTL, saved);
	expect(pid > 0, "fork or waitpid: %s", strerror(errno));
	expect(!WIFSIGNALED(status), "the test's child was killed by signal %d", WTERMSIG(status));
	/* The child gave its reason already: this only ends the test, saying what was undone. */
	expect(!WEXITSTATUS(status), " (%s put back to %s)", DELAYACCT_SYSCTL, saved);
}

/*
 * Whether this guest can show stall times, saying why not if it cannot.
 * A module of version 7 on a kernel with delay accounting (every Debian
 * kernel has CONFIG_TASK_DELAY_ACCT) must: only the debug kernel lacks it.
 */
static bool stalls_measurable(char *why, size_t size)
{
	struct mp3ring ring;
	uint16_t version;
	bool flagged;
	int fd;

	map_ring(&ring, &fd);
	version = ring.hdr->version;
	flagged = ring.hdr->flags & MP3_RING_STALLS;
	mp3ring_unmap(&ring);
	close(fd);
	if (!flagged) {
		expect(version < 7 || !kernel_stalls_flag(), "the kernel has delay "
		       "accounting (%s) but the ring of version %u has no MP3_RING_STALLS",
		       DELAYACCT_SYSCTL, version);
		snprintf(why, size, "no MP3_RING_STALLS (ring version %u, %s)", version,
			 version < 7 ? "a module before stall times" : "no delay accounting");
		return false;
	}
	if (!swap_device_ready(why, size)) {
		expect(!file_contains("load-modules", "zram"), "no swap although the payload has "
		       "zram: %s", why);
		return false;
	}
	return true;
}

static void run_workload(const struct workload *w)
{
	char why[160];

	if (!stalls_measurable(why, sizeof(why))) {
		printf("  %s: not run: %s\n", w->name, why);
		return;
	}
	with_delayacct(w);
}

/* One thread, twice the limit: most of each round after the first comes back from swap. */
void test_stalls_swapping(void)
{
	static const struct workload w = {
		.name = "stalls_swapping", .limit_mib = 48, .threads = 1, .slice_mib = 96,
		.work_ms = 3000,
	};

	run_workload(&w);
}

/*
 * Four threads, twice the limit between them, two of which exit halfway:
 * their waits are the process's still, in taskstats' TGID total and in the
 * module's records.
 */
void test_stalls_threads_exit(void)
{
	static const struct workload w = {
		.name = "stalls_threads_exit", .threads = 4, .leaving = 2,
		.limit_mib = 32, .slice_mib = 16, .work_ms = 4000,
	};

	run_workload(&w);
}
