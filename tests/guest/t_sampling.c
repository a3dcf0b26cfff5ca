// SPDX-License-Identifier: GPL-2.0
/*
 * The sampler: its rate, what it counts, and which processes it counts.
 */
#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>

#include "harness.h"
#include "tests.h"

#define FRESH_PAGES 4096
#define RATE_WINDOW_MS 4000
/*
 * Past a second late, the sampler starts its deadlines afresh (sampler.c):
 * a guest whose CPUs the host did not run for that long loses samples
 * whatever the module does. A wait of 10 ms that takes half of it tells.
 */
#define RATE_STILL_MS 500
#define RATE_TRIES 5

/* Sleeps @ms in 10 ms steps; the longest step, ns: how long the guest stood still. */
static uint64_t sleep_watching(unsigned int ms)
{
	uint64_t end = now_ns() + ms * 1000000ULL, longest = 0;

	for (uint64_t before = now_ns(), after; before < end; before = after) {
		sleep_ms(10);
		after = now_ns();
		longest = after - before > longest ? after - before : longest;
	}
	return longest;
}

/* The last sample published. */
static struct mp3_ring_sample last_sample(struct mp3ring *ring)
{
	uint64_t head = mp3ring_head(ring), next = head - 1, missed = 0;
	struct mp3_ring_sample s;

	expect(mp3ring_read(ring, &next, &s, &missed) == MP3RING_SAMPLE,
	       "sample %llu unreadable", (unsigned long long)head - 1);
	return s;
}

/*
 * 20 samples a second, by the clock and by jiffies, over RATE_WINDOW_MS:
 * measured again when the guest itself stood still (the host did not run
 * it), up to RATE_TRIES times; a sampler that falls behind a guest that
 * runs fails.
 */
void test_sample_rate(void)
{
	struct mp3_ring_sample first, last;
	uint64_t n, still;
	struct mp3ring ring;
	double rate, jiffy_rate;
	int fd, try = 0;

	map_ring(&ring, &fd);
	expect_ok(status_cmd('R', spawn_sleeper()), "R sleeper");
	wait_head(&ring, 2, 2000);
	do {
		try++;
		first = last_sample(&ring);
		still = sleep_watching(RATE_WINDOW_MS);
		last = last_sample(&ring);
		if (still > RATE_STILL_MS * 1000000ULL)
			printf("  sample_rate: try %d: the guest stood still for %.0f ms: measured"
			       " again\n", try, still / 1e6);
	} while (still > RATE_STILL_MS * 1000000ULL && try < RATE_TRIES);
	expect(still <= RATE_STILL_MS * 1000000ULL, "the guest stood still for over %d ms in each"
	       " of %d tries (the host did not run it): the rate is not measured", RATE_STILL_MS,
	       RATE_TRIES);
	n = last.seq - first.seq;
	rate = n * 1e9 / (double)(last.time_ns - first.time_ns);
	jiffy_rate = n * (double)ring.hdr->hz / (double)(last.jiffies - first.jiffies);
	printf("  sample_rate: %llu samples in %.3f s: %.3f/s (%.3f/s by jiffies, HZ=%u)\n",
	       (unsigned long long)n, (last.time_ns - first.time_ns) / 1e9, rate,
	       jiffy_rate, ring.hdr->hz);
	expect(within_pct(rate, 20.0, 1.0), "%.3f samples/s, want 20.0 +- 1%%", rate);
	expect(within_pct(jiffy_rate, 20.0, 2.0), "%.3f samples per HZ second", jiffy_rate);
	expect(ring.hdr->period_ns == 50000000, "period_ns %llu",
	       (unsigned long long)ring.hdr->period_ns);
	close(fd);
}

/* Samples [from, to) against /proc/<pid>/stat deltas of the same window. */
struct window {
	uint64_t from, to;
	struct proc_stat before, after;
	struct sample_sum sum;
};

/* Opens a window once a sample shows the idle, registered worker. */
static void window_open(struct window *w, const struct mp3ring *ring, pid_t pid)
{
	w->from = wait_head(ring, mp3ring_head(ring) + 1, 2000);
	read_pid_stat(pid, &w->before);
}

/* Closes it two samples after the worker went idle again. */
static void window_close(struct window *w, const struct mp3ring *ring, pid_t pid)
{
	read_pid_stat(pid, &w->after);
	w->to = wait_head(ring, mp3ring_head(ring) + 2, 2000);
	sum_samples(ring, w->from, w->to, &w->sum);
}

static double stat_cpu_ns(const struct window *w)
{
	unsigned long long ticks = w->after.utime + w->after.stime -
				   w->before.utime - w->before.stime;

	return ticks * 1e9 / sysconf(_SC_CLK_TCK);
}

/* The window's samples agree with /proc/<pid>/stat within 5 % and reach
 * at least what the worker was asked to do. */
static void expect_window_matches_stat(const struct window *w, uint64_t min_minor,
				       uint64_t min_cpu_ns)
{
	unsigned long long stat_minor = w->after.minflt - w->before.minflt;
	unsigned long long stat_major = w->after.majflt - w->before.majflt;

	expect(w->sum.minor >= min_minor, "%llu minor faults, want at least %llu",
	       (unsigned long long)w->sum.minor, (unsigned long long)min_minor);
	expect(within_pct(w->sum.minor, stat_minor, 5.0), "samples %llu minor, /proc/pid/stat %llu",
	       (unsigned long long)w->sum.minor, stat_minor);
	expect(w->sum.major == stat_major, "samples %llu major, /proc/pid/stat %llu",
	       (unsigned long long)w->sum.major, stat_major);
	expect(w->sum.cpu_ns >= min_cpu_ns, "%.1f ms of CPU, want at least %.1f ms",
	       w->sum.cpu_ns / 1e6, min_cpu_ns / 1e6);
	/* /proc truncates utime and stime to clock ticks: allow one each. */
	expect(within_pct(w->sum.cpu_ns, stat_cpu_ns(w), 5.0) ||
	       fabs(w->sum.cpu_ns - stat_cpu_ns(w)) <= 2e9 / sysconf(_SC_CLK_TCK),
	       "samples %.1f ms CPU, /proc/pid/stat %.1f ms", w->sum.cpu_ns / 1e6,
	       stat_cpu_ns(w) / 1e6);
}

void test_fault_accuracy(void)
{
	struct mp3ring ring;
	struct worker w;
	struct window win;
	int fd;

	map_ring(&ring, &fd);
	worker_spawn(&w);
	expect_ok(status_cmd('R', w.pid), "R worker");
	window_open(&win, &ring, w.pid);
	worker_do(&w, 't', FRESH_PAGES);
	window_close(&win, &ring, w.pid);
	printf("  fault_accuracy: %d pages touched: samples say %llu minor, /proc says %llu\n",
	       FRESH_PAGES, (unsigned long long)win.sum.minor,
	       win.after.minflt - win.before.minflt);
	expect_window_matches_stat(&win, FRESH_PAGES, 0);
	close(fd);
}

void test_cpu_accuracy(void)
{
	struct mp3ring ring;
	struct worker w;
	struct window win;
	int fd;

	map_ring(&ring, &fd);
	worker_spawn(&w);
	expect_ok(status_cmd('R', w.pid), "R worker");
	window_open(&win, &ring, w.pid);
	worker_do(&w, 'c', 1000);
	window_close(&win, &ring, w.pid);
	printf("  cpu_accuracy: 1000 ms burnt: samples say %.1f ms, /proc says %.1f ms\n",
	       win.sum.cpu_ns / 1e6, stat_cpu_ns(&win) / 1e6);
	expect_window_matches_stat(&win, 0, 950000000ULL);
	close(fd);
}

void test_threads_summed(void)
{
	struct proc_stat leader_before, leader_after;
	char leader_path[64];
	struct mp3ring ring;
	struct worker w;
	struct window win;
	unsigned long long stat_minor, leader_minor;
	int fd;

	map_ring(&ring, &fd);
	worker_spawn(&w);
	snprintf(leader_path, sizeof(leader_path), "/proc/%d/task/%d/stat", (int)w.pid, (int)w.pid);
	expect_ok(status_cmd('R', w.pid), "R worker");
	window_open(&win, &ring, w.pid);
	read_proc_stat(leader_path, &leader_before);
	worker_do(&w, 'T', FRESH_PAGES);	/* four threads, joined before the ack */
	read_proc_stat(leader_path, &leader_after);
	window_close(&win, &ring, w.pid);
	stat_minor = win.after.minflt - win.before.minflt;
	leader_minor = leader_after.minflt - leader_before.minflt;
	printf("  threads_summed: samples %llu minor, %.1f ms; process %llu minor, %.1f ms; main thread %llu minor\n",
	       (unsigned long long)win.sum.minor, win.sum.cpu_ns / 1e6, stat_minor,
	       stat_cpu_ns(&win) / 1e6, leader_minor);
	expect(win.sum.minor > 4 * leader_minor, "samples (%llu) count hardly more than the main thread (%llu)",
	       (unsigned long long)win.sum.minor, leader_minor);
	expect_window_matches_stat(&win, FRESH_PAGES, 380000000ULL);	/* 4 x 100 ms */
	close(fd);
}

static void expect_same_stat(const struct proc_stat *a, const struct proc_stat *b)
{
	expect(a->minflt == b->minflt && a->majflt == b->majflt &&
	       a->utime == b->utime && a->stime == b->stime,
	       "/proc/pid/stat of an idle profiled process changed: minflt %llu->%llu majflt %llu->%llu utime %llu->%llu stime %llu->%llu",
	       a->minflt, b->minflt, a->majflt, b->majflt, a->utime, b->utime, a->stime, b->stime);
}

void test_stat_unchanged(void)
{
	struct proc_stat before, during, after;
	struct mp3ring ring;
	struct worker w;
	int fd;

	map_ring(&ring, &fd);
	worker_spawn(&w);
	worker_do(&w, 't', FRESH_PAGES);
	worker_do(&w, 'c', 100);
	/*
	 * Idle only once asleep: after its ack the worker still runs to its next
	 * read, and /proc/pid/stat's times are its runtime split by ticks (the
	 * debug kernel's 6.12 gained a tick of stime there in CI).
	 */
	wait_blocked(w.pid, 5000);
	read_pid_stat(w.pid, &before);
	expect_ok(status_cmd('R', w.pid), "R worker");
	wait_head(&ring, 10, 3000);
	read_pid_stat(w.pid, &during);
	expect_same_stat(&before, &during);
	worker_do(&w, 't', FRESH_PAGES);
	wait_head(&ring, mp3ring_head(&ring) + 2, 2000);
	read_pid_stat(w.pid, &after);
	expect(after.minflt >= before.minflt + FRESH_PAGES,
	       "minflt went from %llu to %llu over %d more pages: the counters were reset",
	       before.minflt, after.minflt, FRESH_PAGES);
	close(fd);
}

void test_exit_dropped(void)
{
	struct mp3ring ring;
	pid_t stays = spawn_sleeper(), leaves = spawn_sleeper();
	uint64_t head, last;
	int fd;

	map_ring(&ring, &fd);
	expect_ok(status_cmd('R', stays), "R stays");
	expect_ok(status_cmd('R', leaves), "R leaves");
	wait_head(&ring, 1, 2000);
	kill_and_reap(leaves);
	wait_unlisted(leaves, 1000);
	expect_listing(&stays, 1, "after one of two exited");
	expect_errno(status_cmd('U', leaves), ENOENT, "U of the dropped PID");
	/*
	 * The last one leaving stops the sampler, after the sample with its
	 * last records: the listing waits for a sample being taken 100 ms at
	 * most, and an overloaded host's debug kernel took longer, so that one
	 * sample may come after the listing no longer has it; then none.
	 */
	kill(stays, SIGKILL);
	wait_unlisted(stays, 1000);
	head = mp3ring_head(&ring);
	sleep_ms(500);
	last = mp3ring_head(&ring);
	sleep_ms(500);
	expect(last - head <= 1 && mp3ring_head(&ring) == last,
	       "sampler still running with no process: head %llu -> %llu -> %llu",
	       (unsigned long long)head, (unsigned long long)last,
	       (unsigned long long)mp3ring_head(&ring));
	close(fd);
}

void test_pid_reuse(void)
{
	struct mp3ring ring;
	struct sample_sum sum;
	struct worker w;
	pid_t old = spawn_sleeper();
	uint64_t from;
	int fd;

	map_ring(&ring, &fd);
	expect_ok(status_cmd('R', old), "R old");
	wait_head(&ring, 1, 2000);
	kill_and_reap(old);
	set_last_pid(old - 1);
	worker_spawn(&w);	/* a stranger with the old number */
	expect(w.pid == old, "the PID was not reused: got %d, wanted %d", (int)w.pid, (int)old);
	from = mp3ring_head(&ring);
	worker_do(&w, 't', FRESH_PAGES);
	sleep_ms(300);
	sum_samples(&ring, from, mp3ring_head(&ring), &sum);
	expect(sum.minor < FRESH_PAGES / 2, "the stranger's %d faults were counted (%llu minor)",
	       FRESH_PAGES, (unsigned long long)sum.minor);
	expect(!status_lists(w.pid), "the stranger with the reused PID %d is listed", (int)w.pid);
	expect_ok(status_cmd('R', w.pid), "R of the new process with the reused PID");
}
