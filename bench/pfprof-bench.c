// SPDX-License-Identifier: GPL-2.0
/*
 * pfprof-bench: the measurements behind `make bench`, run inside the guest.
 * Each subcommand prints one line per figure, "what key=value ...", for
 * bench/report.sh. Times are CLOCK_MONOTONIC, CPU times are exact
 * (CLOCK_PROCESS_CPUTIME_ID, /proc/<pid>/schedstat), not tick-sampled.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <linux/mp3.h>

#include "clock.h"
#include "mp3ring.h"
#include "sleepers.h"

#define NSEC_PER_SEC 1000000000ULL
#define POLL_PERIOD_NS (NSEC_PER_SEC / 20)

static void die(const char *what, int err)
{
	fprintf(stderr, "pfprof-bench: %s: %s\n", what, strerror(err));
	exit(1);
}

static uint64_t now_ns(void)
{
	return clock_ns(CLOCK_MONOTONIC);
}

static void sleep_until(uint64_t deadline_ns)
{
	struct timespec ts = { deadline_ns / NSEC_PER_SEC, deadline_ns % NSEC_PER_SEC };

	while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
		;
}

/* Time the process pid has spent on a CPU, in ns (its main thread). */
static uint64_t task_cpu_ns(pid_t pid)
{
	char path[64];
	unsigned long long ns = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/schedstat", (int)pid);
	f = fopen(path, "re");
	if (!f)
		die(path, errno);
	if (fscanf(f, "%llu", &ns) != 1)
		die(path, EPROTO);
	fclose(f);
	return ns;
}

static void map_ring(struct mp3ring *ring)
{
	int fd = open(MP3_DEVICE_PATH, O_RDONLY | O_CLOEXEC);
	int err;

	if (fd < 0)
		die(MP3_DEVICE_PATH, errno);
	err = mp3ring_map(ring, fd);
	if (err)
		die("mapping the versioned region", -err);
	close(fd);
}

static uint64_t header_u64(const __u64 *field)
{
	return __atomic_load_n(field, __ATOMIC_RELAXED);
}

/* What a user-space poller does for one process: read and parse its stat. */
static int read_stat(pid_t pid, unsigned long long counters[4])
{
	char path[64], buf[1024];
	const char *rest;
	ssize_t len;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	len = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (len <= 0)
		return -EIO;
	buf[len] = '\0';
	rest = strrchr(buf, ')');	/* the command name may hold anything */
	if (!rest || sscanf(rest, ") %*c %*d %*d %*d %*d %*d %*u %llu %*u %llu %*u %llu %llu",
			    &counters[0], &counters[1], &counters[2], &counters[3]) != 4)
		return -EPROTO;
	return 0;
}

/* Polls the stat of every sleeper at 20 Hz for seconds; prints its cost. */
static void measure_poller(const struct sleepers *s, unsigned int seconds)
{
	uint64_t start = now_ns(), deadline = start, cpu0 = clock_ns(CLOCK_PROCESS_CPUTIME_ID);
	uint64_t rounds = 0, wall, cpu;
	unsigned long long sum[4] = { 0 }, counters[4];

	while (now_ns() - start < seconds * NSEC_PER_SEC) {
		for (size_t i = 0; i < s->count; i++) {
			int err = read_stat(s->pids[i], counters);

			if (err)
				die("reading /proc/<pid>/stat", -err);
			for (int k = 0; k < 4; k++)
				sum[k] += counters[k];
		}
		rounds++;
		deadline += POLL_PERIOD_NS;
		sleep_until(deadline);
	}
	wall = now_ns() - start;
	cpu = clock_ns(CLOCK_PROCESS_CPUTIME_ID) - cpu0;
	/* The sums are printed so that the reads are a job done, not dead code. */
	printf("poller n=%zu rounds=%llu rate_hz=%.2f cpu_ns=%llu ns_per_proc=%.0f cpu_pct=%.3f "
	       "minflt_sum=%llu\n", s->count, (unsigned long long)rounds, rounds * 1e9 / wall,
	       (unsigned long long)cpu, (double)cpu / rounds / s->count, 100.0 * cpu / wall, sum[0]);
}

/* Whether the module writes per-process records (not when loaded with records=N). */
static const char *records_state(const struct mp3ring *ring)
{
	uint64_t next = mp3ring_head(ring) - 1, missed = 0;
	struct mp3_ring_sample last;

	if (mp3ring_read(ring, &next, &last, &missed) != MP3RING_SAMPLE)
		die("reading the last sample", ENODATA);
	return last.nr_records ? "on" : "off";
}

/* Lets the module sample the (registered) sleepers for seconds. */
static void measure_sampler(const struct sleepers *s, const struct mp3ring *ring,
			    unsigned int seconds)
{
	const struct mp3_ring_header *h = ring->hdr;
	uint64_t ticks0, ns0, ticks, ns;

	sleep(1);	/* the first tick after registering is not a full one */
	ticks0 = header_u64(&h->sampler_ticks);
	ns0 = header_u64(&h->sampler_ns_total);
	sleep(seconds);
	ticks = header_u64(&h->sampler_ticks) - ticks0;
	ns = header_u64(&h->sampler_ns_total) - ns0;
	if (!ticks)
		die("the sampler did not run", EAGAIN);
	printf("sampler n=%zu records=%s ticks=%llu ns_per_tick=%.0f ns_per_proc=%.1f max_ns=%llu "
	       "cpu_pct_at_20hz=%.4f\n", s->count, records_state(ring), (unsigned long long)ticks,
	       (double)ns / ticks,
	       (double)ns / ticks / s->count, (unsigned long long)header_u64(&h->sampler_ns_max),
	       100.0 * ns / ticks * 20 / NSEC_PER_SEC);
}

/*
 * cost N SECONDS: the poller and the module on the same N sleepers;
 * sampler N SECONDS: the module only.
 */
static int cmd_cost(size_t n, unsigned int seconds, bool with_poller)
{
	struct sleepers s;
	struct mp3ring ring;
	int err;

	map_ring(&ring);
	err = sleepers_spawn(&s, n);
	if (err)
		die("forking the sleepers", -err);
	if (with_poller)
		measure_poller(&s, seconds);
	err = sleepers_register(&s, 'R');
	if (err)
		die("registering the sleepers", -err);
	measure_sampler(&s, &ring, seconds);
	sleepers_kill(&s);	/* the module drops them at its next tick */
	mp3ring_unmap(&ring);
	return 0;
}

static int compare_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return (x > y) - (x < y);
}

/* Reads samples [first, first + count) once they are all published. */
static void read_samples(const struct mp3ring *ring, uint64_t first, uint64_t count,
			 uint64_t *times)
{
	struct mp3_ring_sample sample;
	uint64_t next = first, missed = 0;

	for (uint64_t i = 0; i < count; i++) {
		if (mp3ring_read(ring, &next, &sample, &missed) != MP3RING_SAMPLE)
			die("reading the samples", ENODATA);
		if (missed)
			die("samples were overwritten before they were read", ENOBUFS);
		times[i] = sample.time_ns;
	}
}

/* One idle process, registered: keeps the sampler publishing. */
static void start_registered_sleeper(struct sleepers *s)
{
	int err = sleepers_spawn(s, 1);

	if (!err)
		err = sleepers_register(s, 'R');
	if (err)
		die("starting a registered sleeper", -err);
}

/*
 * timing SECONDS [CONSUMER_PID]: samples produced in SECONDS from one sample
 * on, the intervals between them, and the consumer's CPU time meanwhile.
 */
static int cmd_timing(unsigned int seconds, pid_t consumer)
{
	uint64_t first, t0, cpu0 = 0, cpu = 0, count, *times, *gaps, cap;
	struct sleepers s;
	struct mp3ring ring;

	map_ring(&ring);
	start_registered_sleeper(&s);
	/*
	 * Samples before the registration belong to earlier runs (the sampler
	 * restarts its schedule when it has nothing to sample): start at the
	 * second one after it.
	 */
	first = mp3ring_head(&ring) + 1;
	while (mp3ring_head(&ring) <= first)
		usleep(1000);
	read_samples(&ring, first, 1, &t0);
	if (consumer)
		cpu0 = task_cpu_ns(consumer);
	sleep_until(t0 + seconds * NSEC_PER_SEC + POLL_PERIOD_NS);
	if (consumer)
		cpu = task_cpu_ns(consumer) - cpu0;
	cap = mp3ring_head(&ring) - first;
	times = calloc(cap, sizeof(*times));
	gaps = calloc(cap, sizeof(*gaps));
	if (!times || !gaps)
		die("allocating", ENOMEM);
	read_samples(&ring, first, cap, times);
	for (count = 0; count < cap && times[count] < t0 + seconds * NSEC_PER_SEC; count++)
		if (count)
			gaps[count - 1] = times[count] - times[count - 1];
	qsort(gaps, count - 1, sizeof(*gaps), compare_u64);
	printf("timing seconds=%u samples=%llu p50_ms=%.3f p99_ms=%.3f max_ms=%.3f min_ms=%.3f",
	       seconds, (unsigned long long)count, gaps[(count - 1) / 2] / 1e6,
	       gaps[(count - 1) * 99 / 100] / 1e6, gaps[count - 2] / 1e6, gaps[0] / 1e6);
	if (consumer)
		printf(" consumer_cpu_ns=%llu consumer_cpu_pct=%.4f", (unsigned long long)cpu,
		       100.0 * cpu / ((double)seconds * NSEC_PER_SEC));
	printf(" hz=%u\n", ring.hdr->hz);
	free(times);
	free(gaps);
	sleepers_kill(&s);
	mp3ring_unmap(&ring);
	return 0;
}

/* consumer PID SECONDS: the consumer's CPU time per sample published. */
static int cmd_consumer(pid_t consumer, unsigned int seconds)
{
	uint64_t head0, cpu0, samples, cpu;
	struct sleepers s;
	struct mp3ring ring;

	map_ring(&ring);
	start_registered_sleeper(&s);
	sleep(1);
	head0 = mp3ring_head(&ring);
	cpu0 = task_cpu_ns(consumer);
	sleep(seconds);
	samples = mp3ring_head(&ring) - head0;
	cpu = task_cpu_ns(consumer) - cpu0;
	printf("consumer samples=%llu cpu_ns=%llu ns_per_sample=%.0f ms_per_10000=%.2f "
	       "period_ns=%llu\n", (unsigned long long)samples, (unsigned long long)cpu,
	       (double)cpu / samples, cpu / 1e6 / samples * 10000,
	       (unsigned long long)ring.hdr->period_ns);
	sleepers_kill(&s);
	mp3ring_unmap(&ring);
	return 0;
}

/* Starts an observer of pid: argv with "%p" replaced by the pid. */
static pid_t start_observer(char **argv, pid_t pid)
{
	char pid_text[16];
	pid_t observer;

	snprintf(pid_text, sizeof(pid_text), "%d", (int)pid);
	for (int i = 0; argv[i]; i++)
		if (!strcmp(argv[i], "%p"))
			argv[i] = pid_text;
	observer = fork();
	if (observer < 0)
		die("fork", errno);
	if (!observer) {
		int null = open("/dev/null", O_WRONLY);

		dup2(null, STDOUT_FILENO);
		dup2(null, STDERR_FILENO);
		execvp(argv[0], argv);
		_exit(127);
	}
	return observer;
}

/* A child that execs argv once the pipe closes. */
static pid_t start_held(char **argv, int *release)
{
	int fds[2];
	pid_t pid;
	char c;

	if (pipe2(fds, O_CLOEXEC))
		die("pipe", errno);
	pid = fork();
	if (pid < 0)
		die("fork", errno);
	if (!pid) {
		close(fds[1]);
		if (read(fds[0], &c, 1) < 0)
			_exit(127);
		execvp(argv[0], argv);
		_exit(127);
	}
	close(fds[0]);
	*release = fds[1];
	return pid;
}

/*
 * overhead MODE DELAY_MS CMD... [-- OBSERVER...]: the wall time of CMD, held
 * until MODE's observer had DELAY_MS to attach: "bare" (none), "pfprof"
 * (registered with mp3), "observe" (OBSERVER, "%p" = CMD's pid).
 */
static int cmd_overhead(const char *mode, unsigned int delay_ms, char **argv)
{
	char **observer_argv = NULL;
	pid_t pid, observer = 0;
	uint64_t start, wall;
	int release, status;

	for (int i = 0; argv[i]; i++)
		if (!strcmp(argv[i], "--")) {
			argv[i] = NULL;
			observer_argv = argv + i + 1;
			break;
		}
	pid = start_held(argv, &release);
	if (!strcmp(mode, "pfprof")) {
		struct sleepers one = { &pid, 1 };
		int err = sleepers_register(&one, 'R');

		if (err)
			die("registering the workload", -err);
	} else if (!strcmp(mode, "observe")) {
		if (!observer_argv || !observer_argv[0])
			die("observe needs -- OBSERVER...", EINVAL);
		observer = start_observer(observer_argv, pid);
	} else if (strcmp(mode, "bare")) {
		die(mode, EINVAL);
	}
	usleep(delay_ms * 1000);
	start = now_ns();
	close(release);
	if (waitpid(pid, &status, 0) < 0)
		die("waitpid", errno);
	wall = now_ns() - start;
	if (observer) {
		kill(observer, SIGINT);
		waitpid(observer, NULL, 0);
	}
	if (!WIFEXITED(status) || WEXITSTATUS(status))
		die("the workload failed", ECHILD);
	printf("overhead mode=%s wall_ns=%llu\n", observer_argv ? observer_argv[0] : mode,
	       (unsigned long long)wall);
	return 0;
}

static unsigned long number(const char *text)
{
	char *end;
	unsigned long n;

	errno = 0;
	n = strtoul(text, &end, 10);
	if (errno || end == text || *end)
		die(text, EINVAL);
	return n;
}

static void usage(void)
{
	fputs("Usage: pfprof-bench cost N SECONDS\n"
	      "       pfprof-bench sampler N SECONDS\n"
	      "       pfprof-bench timing SECONDS [CONSUMER_PID]\n"
	      "       pfprof-bench consumer CONSUMER_PID SECONDS\n"
	      "       pfprof-bench overhead bare|pfprof|observe DELAY_MS CMD... [-- OBSERVER...]\n"
	      "Run by bench/guest.sh inside the benchmark guest (make bench).\n", stderr);
	exit(2);
}

int main(int argc, char **argv)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc == 4 && !strcmp(argv[1], "cost"))
		return cmd_cost(number(argv[2]), number(argv[3]), true);
	if (argc == 4 && !strcmp(argv[1], "sampler"))
		return cmd_cost(number(argv[2]), number(argv[3]), false);
	if ((argc == 3 || argc == 4) && !strcmp(argv[1], "timing"))
		return cmd_timing(number(argv[2]), argc == 4 ? (pid_t)number(argv[3]) : 0);
	if (argc == 4 && !strcmp(argv[1], "consumer"))
		return cmd_consumer((pid_t)number(argv[2]), number(argv[3]));
	if (argc >= 5 && !strcmp(argv[1], "overhead"))
		return cmd_overhead(argv[2], number(argv[3]), argv + 4);
	usage();
}
