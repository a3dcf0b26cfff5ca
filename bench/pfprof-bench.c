// SPDX-License-Identifier: GPL-2.0
/*
 * pfprof-bench: the measurements behind `make bench`, run inside the guest.
 * Each subcommand prints one line per figure, "what key=value ...", for
 * bench/report.sh. Times are CLOCK_MONOTONIC, CPU times are exact
 * (CLOCK_PROCESS_CPUTIME_ID, /proc/<pid>/schedstat), not tick-sampled.
 */
#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <netinet/in.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <linux/mp3.h>

#include "clock.h"
#include "mp3ring.h"
#include "procstatus.h"
#include "counterfile.h"
#include "promfile.h"
#include "sleepers.h"
#include "benchring.h"
#include "lockwait.h"
#include "waits.h"
#include "faultlatency.h"
#include "refaultcost.h"
#include "swapcost.h"

#define POLL_PERIOD_NS (NSEC_PER_SEC / 20)

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

/* Whether the module writes per-process records (not when loaded with records=off). */
static const char *records_state(void)
{
	const char *path = "/sys/module/mp3/parameters/records";
	FILE *f = fopen(path, "re");
	int c = f ? fgetc(f) : EOF;

	if (f)
		fclose(f);
	if (c == EOF)
		die(path, errno ? errno : ENODATA);
	return c == 'Y' ? "on" : "off";
}

static int compare_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return (x > y) - (x < y);
}

/* p-th percentile (0..100) of count ns values, in ms. */
static double percentile_ms(const uint64_t *values, size_t count, unsigned int p)
{
	uint64_t *sorted;
	double ms;

	if (!count)
		return 0;
	sorted = malloc(count * sizeof(*sorted));
	if (!sorted)
		die("allocating", ENOMEM);
	memcpy(sorted, values, count * sizeof(*sorted));
	qsort(sorted, count, sizeof(*sorted), compare_u64);
	ms = sorted[(count - 1) * p / 100] / 1e6;
	free(sorted);
	return ms;
}

/*
 * The cost of each tick in a window of seconds, from sampler_ns_last: a tick
 * comes every 50 ms, the header is read every 10 ms, and a tick's cost is
 * taken one read after its count changed, once the module has written it.
 * Returns how many were taken.
 */
static size_t tick_costs(const struct mp3_ring_header *h, unsigned int seconds, uint64_t *costs,
			 size_t max)
{
	uint64_t start = now_ns(), deadline = start, seen = header_u64(&h->sampler_ticks);
	bool pending = false;
	size_t count = 0;

	while (now_ns() - start < seconds * NSEC_PER_SEC && count < max) {
		uint64_t ticks;

		deadline += NSEC_PER_SEC / 100;
		sleep_until(deadline);
		ticks = header_u64(&h->sampler_ticks);
		if (pending && ticks == seen)
			costs[count++] = header_u64(&h->sampler_ns_last);
		pending = ticks != seen;
		seen = ticks;
	}
	return count;
}

/*
 * Lets the module sample the (registered) sleepers, busy of them busy, for
 * seconds. The mean is what the sampler costs in all; the median leaves out
 * the ticks an interrupt or another task stretched (the module times a tick
 * by the clock, preemption included).
 */
static void measure_sampler(const struct sleepers *s, size_t busy, const struct mp3ring *ring,
			    unsigned int seconds)
{
	const struct mp3_ring_header *h = ring->hdr;
	uint64_t ticks0, ns0, ticks, ns, costs[4096];
	size_t timed;

	sleep(1);	/* the first tick after registering is not a full one */
	ticks0 = header_u64(&h->sampler_ticks);
	ns0 = header_u64(&h->sampler_ns_total);
	timed = tick_costs(h, seconds, costs, sizeof(costs) / sizeof(costs[0]));
	ticks = header_u64(&h->sampler_ticks) - ticks0;
	ns = header_u64(&h->sampler_ns_total) - ns0;
	if (!ticks || !timed)
		die("the sampler did not run", EAGAIN);
	printf("sampler n=%zu busy=%zu sampler=%s records=%s ticks=%llu ns_per_tick=%.0f "
	       "ns_per_proc=%.1f median_ns=%.0f timed=%zu max_ns=%llu cpu_pct_at_20hz=%.4f\n",
	       s->count, busy, h->flags & MP3_RING_ACTIVE_ONLY ? "events" : "visit",
	       records_state(), (unsigned long long)ticks,
	       (double)ns / ticks,
	       (double)ns / ticks / s->count, percentile_ms(costs, timed, 50) * 1e6, timed,
	       (unsigned long long)header_u64(&h->sampler_ns_max),
	       100.0 * ns / ticks * 20 / NSEC_PER_SEC);
}

/*
 * cost N SECONDS: the poller and the module on the same N sleepers;
 * sampler N SECONDS [BUSY]: the module only, BUSY of the N busy.
 */
static int cmd_cost(size_t n, unsigned int seconds, size_t busy, bool with_poller)
{
	struct sleepers s;
	struct mp3ring ring;
	int err;

	if (busy > n)
		die("BUSY greater than N", EINVAL);
	err = sleepers_spawn(&s, n, busy);
	if (err)
		die("forking the sleepers", -err);
	sleepers_kill_on_sigterm(&s);
	/* After the fork: a sleeper mapping the device would keep the module loaded. */
	map_ring(&ring);
	if (with_poller)
		measure_poller(&s, seconds);
	err = sleepers_register(&s, 'R');
	if (err)
		die("registering the sleepers", -err);
	measure_sampler(&s, busy, &ring, seconds);
	sleepers_kill(&s);	/* the module drops them at its next tick */
	mp3ring_unmap(&ring);
	return 0;
}

/*
 * ticks SECONDS: what the module's sampler cost over SECONDS, whatever is
 * registered (bench/damon-guest.sh registers its workers itself): its ticks'
 * time from the versioned header, as CPU at the ticks' rate.
 */
static int cmd_ticks(unsigned int seconds)
{
	struct mp3ring ring;
	const struct mp3_ring_header *h;
	uint64_t ticks0, ns0, start, ticks, ns;

	map_ring(&ring);
	h = ring.hdr;
	ticks0 = header_u64(&h->sampler_ticks);
	ns0 = header_u64(&h->sampler_ns_total);
	start = now_ns();
	sleep_until(start + seconds * NSEC_PER_SEC);
	ticks = header_u64(&h->sampler_ticks) - ticks0;
	ns = header_u64(&h->sampler_ns_total) - ns0;
	if (!ticks)
		die("the sampler did not run", EAGAIN);
	printf("ticks seconds=%.3f ticks=%llu ns_per_tick=%.0f cpu_ns=%llu\n",
	       (now_ns() - start) / 1e9, (unsigned long long)ticks, (double)ns / ticks,
	       (unsigned long long)ns);
	mp3ring_unmap(&ring);
	return 0;
}

/* One idle process, registered: keeps the sampler publishing. */
static void start_registered_sleeper(struct sleepers *s)
{
	int err = sleepers_spawn(s, 1, 0);

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
static pid_t start_observer(char *const *argv, pid_t pid)
{
	pid_t observer = fork();

	if (observer < 0)
		die("fork", errno);
	if (!observer) {
		char pid_text[16], **args;
		int null = open("/dev/null", O_WRONLY), n = 0;

		snprintf(pid_text, sizeof(pid_text), "%d", (int)pid);
		while (argv[n])
			n++;
		args = calloc(n + 1, sizeof(*args));
		if (!args)
			_exit(127);
		for (int i = 0; i < n; i++)
			args[i] = strcmp(argv[i], "%p") ? argv[i] : pid_text;
		if (null >= 0) {
			dup2(null, STDOUT_FILENO);
			dup2(null, STDERR_FILENO);
		}
		execvp(args[0], args);
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

/*
 * What a process has spent on a CPU, all its threads: the sum of their
 * schedstat run times (exact, ns; threads that have exited are missing) and
 * utime+stime from /proc/<pid>/stat (clock ticks, exited threads included),
 * the cross-check.
 */
struct proc_cpu {
	uint64_t run_ns;
	uint64_t user_ns, sys_ns;	/* utime, stime */
};

static struct proc_cpu proc_cpu(pid_t pid)
{
	struct proc_cpu c = { 0, 0, 0 };
	uint64_t tick_ns = NSEC_PER_SEC / (uint64_t)sysconf(_SC_CLK_TCK);
	unsigned long long counters[4], ns;
	char path[300];
	const struct dirent *d;
	DIR *dir;
	FILE *f;
	int err;

	snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
	dir = opendir(path);
	if (!dir)
		die(path, errno);
	while ((d = readdir(dir))) {
		if (d->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "/proc/%d/task/%s/schedstat", (int)pid, d->d_name);
		f = fopen(path, "re");
		if (!f)
			continue;	/* the thread has just exited */
		if (fscanf(f, "%llu", &ns) == 1)
			c.run_ns += ns;
		fclose(f);
	}
	closedir(dir);
	err = read_stat(pid, counters);
	if (err)
		die("reading /proc/<pid>/stat", -err);
	c.user_ns = counters[2] * tick_ns;
	c.sys_ns = counters[3] * tick_ns;
	return c;
}

/* An exporter scraped side by side, or (no port) a process whose CPU time is counted. */
struct measured {
	char *name, *metric, *file;
	pid_t pid;
	unsigned int port;
	struct proc_cpu cpu0, cpu1;
	size_t scrapes, bytes;
	uint64_t *when, *latency, *age;	/* ns */
	double *value;
};

#define SCRAPES_MAX 100000

/* "NAME,PID[,PORT,METRIC[,FILE]]" */
static void parse_target(struct measured *t, char *spec)
{
	char *field[5] = { NULL }, *rest = spec;
	int n = 0;

	while (rest && n < 5)
		field[n++] = strsep(&rest, ",");
	if (n < 2 || n == 3)
		die(spec, EINVAL);
	t->name = field[0];
	t->pid = (pid_t)number(field[1]);
	t->port = field[2] ? (unsigned int)number(field[2]) : 0;
	t->metric = field[3];
	t->file = field[4];
	if (t->port) {
		t->when = calloc(SCRAPES_MAX, sizeof(*t->when));
		t->latency = calloc(SCRAPES_MAX, sizeof(*t->latency));
		t->age = calloc(SCRAPES_MAX, sizeof(*t->age));
		t->value = calloc(SCRAPES_MAX, sizeof(*t->value));
		if (!t->when || !t->latency || !t->age || !t->value)
			die("allocating", ENOMEM);
	}
}

/* GET /metrics from 127.0.0.1:port into *buf (grown as needed); the length. */
static size_t http_get(unsigned int port, char **buf, size_t *cap)
{
	static const char request[] = "GET /metrics HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n";
	struct sockaddr_in addr = { .sin_family = AF_INET, .sin_port = htons((uint16_t)port) };
	struct timeval timeout = { 10, 0 };
	size_t len = 0;
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);

	if (fd < 0)
		die("socket", errno);
	addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof(timeout));
	if (connect(fd, (struct sockaddr *)&addr, sizeof(addr)))
		die("connecting to an exporter", errno);
	if (write(fd, request, sizeof(request) - 1) != (ssize_t)(sizeof(request) - 1))
		die("sending a scrape request", errno);
	for (;;) {
		ssize_t got;

		if (*cap - len < 65536) {
			*cap = *cap * 2 + 65536;
			*buf = realloc(*buf, *cap);
			if (!*buf)
				die("allocating", ENOMEM);
		}
		got = read(fd, *buf + len, *cap - len - 1);
		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0)
			die("reading a scrape", errno);
		if (!got)
			break;
		len += (size_t)got;
	}
	close(fd);
	(*buf)[len] = '\0';
	if (len < 12 || strncmp(*buf, "HTTP/1.", 7) || strncmp(*buf + 8, " 200", 4))
		die("the exporter did not answer 200", EPROTO);
	return len;
}

/* The value of the sample line "METRIC VALUE" in an exposition, NAN if none. */
static double metric_value(const char *text, const char *metric)
{
	size_t len = strlen(metric);

	for (const char *line = text; line; line = strchr(line, '\n')) {
		if (*line == '\n')
			line++;
		if (!strncmp(line, metric, len) && line[len] == ' ')
			return strtod(line + len + 1, NULL);
	}
	return NAN;
}

/* Prints what target t did in window_ns (scraped, or only its CPU time). */
static void print_target(const struct measured *t, uint64_t window_ns)
{
	uint64_t cpu = t->cpu1.run_ns - t->cpu0.run_ns, *gaps, last_change = 0;
	uint64_t user = t->cpu1.user_ns - t->cpu0.user_ns, sys = t->cpu1.sys_ns - t->cpu0.sys_ns;
	size_t changes = 0;

	if (!t->port) {
		printf("cpu name=%s seconds=%.3f cpu_ns=%llu user_ns=%llu sys_ns=%llu\n", t->name,
		       window_ns / 1e9, (unsigned long long)cpu, (unsigned long long)user,
		       (unsigned long long)sys);
		return;
	}
	gaps = calloc(t->scrapes + 1, sizeof(*gaps));
	if (!gaps)
		die("allocating", ENOMEM);
	for (size_t i = 1; i < t->scrapes; i++) {
		if (t->value[i] == t->value[i - 1])
			continue;
		if (changes)
			gaps[changes - 1] = t->when[i] - last_change;
		last_change = t->when[i];
		changes++;
	}
	printf("scrape name=%s seconds=%.3f scrapes=%zu rate_hz=%.3f bytes=%zu latency_p50_ms=%.3f "
	       "latency_max_ms=%.3f cpu_ns=%llu user_ns=%llu sys_ns=%llu ns_per_scrape=%.0f "
	       "changes=%zu change_hz=%.3f min_change_ms=%.1f p50_change_ms=%.1f last_value=%.0f",
	       t->name, window_ns / 1e9, t->scrapes, t->scrapes * 1e9 / window_ns,
	       t->bytes / (t->scrapes ? t->scrapes : 1),
	       percentile_ms(t->latency, t->scrapes, 50), percentile_ms(t->latency, t->scrapes, 100),
	       (unsigned long long)cpu, (unsigned long long)user, (unsigned long long)sys,
	       t->scrapes ? (double)cpu / t->scrapes : 0.0, changes,
	       t->scrapes > 1 ? changes * 1e9 / (t->when[t->scrapes - 1] - t->when[0]) : 0.0,
	       changes > 1 ? percentile_ms(gaps, changes - 1, 0) : 0.0,
	       changes > 1 ? percentile_ms(gaps, changes - 1, 50) : 0.0,
	       t->scrapes ? t->value[t->scrapes - 1] : 0.0);
	if (t->file)
		printf(" age_p50_ms=%.1f age_max_ms=%.1f", percentile_ms(t->age, t->scrapes, 50),
		       percentile_ms(t->age, t->scrapes, 100));
	putchar('\n');
	free(gaps);
}

/*
 * scrape SECONDS INTERVAL_MS TARGET...: each TARGET "NAME,PID[,PORT,METRIC
 * [,FILE]]". For SECONDS, every target with a PORT is scraped in turn every
 * INTERVAL_MS (at once when a round took longer): its CPU time per scrape,
 * its latency, how often METRIC's value changes from scrape to scrape, and
 * FILE's age (now - st_mtim) at each scrape; the others' CPU time. Also the
 * module's sampler time and the window's CLOCK_MONOTONIC bounds, named after
 * the first target.
 */
static int cmd_scrape(unsigned int seconds, unsigned int interval_ms, int count, char **specs)
{
	const struct mp3_ring_header *h = NULL;
	uint64_t start, deadline, window_ns, ticks0 = 0, ns0 = 0, wall_offset;
	struct mp3ring ring;
	struct measured *t;
	size_t cap = 0;
	char *buf = NULL;

	if (count < 1 || !interval_ms)
		die("scrape", EINVAL);
	t = calloc((size_t)count, sizeof(*t));
	if (!t)
		die("allocating", ENOMEM);
	for (int i = 0; i < count; i++)
		parse_target(&t[i], specs[i]);
	if (!access(MP3_DEVICE_PATH, F_OK)) {	/* without the module, no module line */
		map_ring(&ring);
		h = ring.hdr;
		ticks0 = header_u64(&h->sampler_ticks);
		ns0 = header_u64(&h->sampler_ns_total);
	}
	for (int i = 0; i < count; i++)
		t[i].cpu0 = proc_cpu(t[i].pid);
	start = deadline = now_ns();
	wall_offset = clock_wall_offset_ns();
	while (now_ns() < start + seconds * NSEC_PER_SEC) {
		for (int i = 0; i < count; i++) {
			struct measured *x = &t[i];
			uint64_t begin, mtime = 0;
			struct stat st;

			if (!x->port || x->scrapes == SCRAPES_MAX)
				continue;
			/*
			 * The file's age as the request leaves: the exporter reads
			 * this file or, renamed over it meanwhile, a newer one.
			 */
			if (x->file) {
				if (stat(x->file, &st))
					die(x->file, errno);
				mtime = (uint64_t)st.st_mtim.tv_sec * NSEC_PER_SEC +
					(uint64_t)st.st_mtim.tv_nsec;
			}
			begin = now_ns();
			x->bytes += http_get(x->port, &buf, &cap);
			x->when[x->scrapes] = begin;
			x->latency[x->scrapes] = now_ns() - begin;
			x->value[x->scrapes] = metric_value(buf, x->metric);
			if (isnan(x->value[x->scrapes]))
				die(x->metric, ENOENT);
			if (x->file)
				x->age[x->scrapes] = begin + wall_offset > mtime ?
					begin + wall_offset - mtime : 0;
			x->scrapes++;
		}
		deadline += interval_ms * 1000000ULL;
		if (deadline < now_ns())	/* the round took longer: the next one now */
			deadline = now_ns();
		sleep_until(deadline);
	}
	window_ns = now_ns() - start;
	for (int i = 0; i < count; i++)
		t[i].cpu1 = proc_cpu(t[i].pid);
	printf("window name=%s start_s=%.6f end_s=%.6f interval_ms=%u\n", t[0].name, start / 1e9,
	       (start + window_ns) / 1e9, interval_ms);
	if (h)
		printf("module name=%s seconds=%.3f ticks=%llu sampler_ns=%llu\n", t[0].name,
		       window_ns / 1e9, (unsigned long long)(header_u64(&h->sampler_ticks) - ticks0),
		       (unsigned long long)(header_u64(&h->sampler_ns_total) - ns0));
	for (int i = 0; i < count; i++)
		print_target(&t[i], window_ns);
	free(buf);
	for (int i = 0; i < count; i++) {
		free(t[i].when);
		free(t[i].latency);
		free(t[i].age);
		free(t[i].value);
	}
	free(t);
	if (h)
		mp3ring_unmap(&ring);
	return 0;
}

/* cpu SECONDS NAME,PID...: each process's CPU time over SECONDS. */
static int cmd_cpu(unsigned int seconds, int count, char **specs)
{
	struct measured *t;
	uint64_t start;

	if (count < 1)
		die("cpu", EINVAL);
	t = calloc((size_t)count, sizeof(*t));
	if (!t)
		die("allocating", ENOMEM);
	for (int i = 0; i < count; i++) {
		parse_target(&t[i], specs[i]);
		if (t[i].port)
			die(specs[i], EINVAL);
	}
	start = now_ns();
	for (int i = 0; i < count; i++)
		t[i].cpu0 = proc_cpu(t[i].pid);
	sleep_until(start + seconds * NSEC_PER_SEC);
	for (int i = 0; i < count; i++)
		t[i].cpu1 = proc_cpu(t[i].pid);
	for (int i = 0; i < count; i++)
		print_target(&t[i], now_ns() - start);
	free(t);
	return 0;
}

/*
 * promfile DIR STATE_DIR COUNT: what writing pfprofd's metrics file costs,
 * with pfprofd's own code (its libpfprofd.a): the counters read from the
 * counters file pfprofd saved in STATE_DIR (so the same series), then COUNT times,
 * 20 a second, what pfprofd does at each prometheus_interval: the registered
 * processes read, the series selected ("update"), the file rendered and
 * renamed into DIR ("write"). CPU time of each part per file.
 */
static int cmd_promfile(const char *dir, const char *state_dir, unsigned int count)
{
	static const struct psi_memory psi;	/* only its lines count, not their values */
	struct counters m;
	struct mp3ring ring;
	uint64_t update_ns = 0, write_ns = 0, deadline = now_ns();
	struct stat st;
	char path[PATH_MAX];
	int err;

	memset(&m, 0, sizeof(m));
	err = counterfile_load(state_dir, &m);
	if (err)
		die("reading pfprofd's counters", -err);
	/* The lines pfprofd's file has beside the counters (values do not matter). */
	m.have_system = true;
	map_ring(&ring);
	for (unsigned int i = 0; i < count; i++) {
		struct pidlist registered;
		uint64_t runs, ns, t0 = clock_ns(CLOCK_PROCESS_CPUTIME_ID), t1;

		mp3ring_sampler_cost(&ring, &runs, &ns);
		counters_set_sampler(&m, ring.load_id, ns, runs);
		err = procstatus_list(MP3_STATUS_PATH, &registered);
		if (err)
			die(MP3_STATUS_PATH, -err);
		err = counters_select_series(&m, &registered, 100);
		pidlist_free(&registered);
		if (err)
			die("selecting the series", -err);
		t1 = clock_ns(CLOCK_PROCESS_CPUTIME_ID);
		/* No targets file here: targets are labelled by number, as pfprofd does without one. */
		err = promfile_write(dir, &m, &(struct target_list){ 0 }, &psi);
		if (err)
			die("writing pfprof.prom", -err);
		update_ns += t1 - t0;
		write_ns += clock_ns(CLOCK_PROCESS_CPUTIME_ID) - t1;
		deadline += POLL_PERIOD_NS;
		sleep_until(deadline);
	}
	snprintf(path, sizeof(path), "%s/%s", dir, PROMFILE_NAME);
	if (stat(path, &st))
		die(path, errno);
	printf("promfile files=%u series=%zu bytes=%lld update_ns=%.0f write_ns=%.0f\n", count,
	       m.registered, (long long)st.st_size, (double)update_ns / count,
	       (double)write_ns / count);
	counters_free(&m);
	mp3ring_unmap(&ring);
	return 0;
}

/*
 * forks COUNT alone|tree|maps: what a process costs the system from fork
 * to reaping: COUNT times fork() a child that exits at once and waitpid()
 * it, timed on the monotonic clock (in the instruction-counted guest,
 * instructions: the sampler's ticks meanwhile included). "tree": this
 * process is registered as a tree first ("T"), so that the module follows
 * every child; "maps": the tree is given "M" too, so that each child's
 * faults are placed; "alone": it is not registered at all (the module's
 * probes still run, loaded or not).
 */
static int cmd_forks(unsigned int count, const char *mode)
{
	unsigned int target = (unsigned int)getpid();
	uint64_t start;
	int err = 0;

	if (strcmp(mode, "alone"))
		err = procstatus_tree(MP3_STATUS_PATH, getpid(), target);
	if (!err && !strcmp(mode, "maps"))
		err = procstatus_target_option(MP3_STATUS_PATH, TARGETSFILE_OPT_MAPS, target,
					       TARGET_TREE);
	if (err)
		die("registering the tree", -err);
	start = clock_ns(CLOCK_MONOTONIC);
	for (unsigned int i = 0; i < count; i++) {
		pid_t pid = fork();

		if (pid < 0)
			die("fork", errno);
		if (pid == 0)
			_exit(0);
		if (waitpid(pid, NULL, 0) != pid)
			die("waitpid", errno);
	}
	printf("forks module=%s mode=%s count=%u ns_per_fork=%.0f\n",
	       access(MP3_STATUS_PATH, F_OK) ? "unloaded" : "loaded", mode, count,
	       (double)(clock_ns(CLOCK_MONOTONIC) - start) / count);
	return 0;
}

/* Maps @pages fresh anonymous pages, touches each once and unmaps them. */
static void touch_fresh_pages(unsigned long pages)
{
	long page = sysconf(_SC_PAGESIZE);
	char *p = mmap(NULL, pages * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
		       -1, 0);

	if (p == MAP_FAILED)
		die("mmap", errno);
	for (unsigned long i = 0; i < pages; i++)
		((volatile char *)p)[i * page] = 1;
	munmap(p, pages * page);
}

/*
 * faults PAGES ROUNDS unregistered|registered|maps: what a page fault
 * costs: ROUNDS times touch_fresh_pages(PAGES), this process not
 * registered, registered, or registered with maps (a perf counter's
 * handler at each fault, the sampler placing them). Its CPU time per fault
 * (the map and unmap included), and the sampler's.
 */
static int cmd_faults(unsigned long pages, unsigned int rounds, const char *mode)
{
	uint64_t cpu, sampler_ns = 0;
	struct rusage before, after;
	struct mp3ring ring;
	long faults;
	int err = 0;

	/* One fault per 4 KiB page, whatever the THP setting. */
	if (prctl(PR_SET_THP_DISABLE, 1, 0, 0, 0))
		die("PR_SET_THP_DISABLE", errno);
	if (!strcmp(mode, "registered"))
		err = procstatus_command(MP3_STATUS_PATH, 'R', getpid());
	else if (!strcmp(mode, "maps"))
		err = procstatus_register(MP3_STATUS_PATH, getpid(), TARGETSFILE_OPT_MAPS);
	if (err)
		die("registering this process", -err);
	if (strcmp(mode, "unregistered")) {
		map_ring(&ring);
		sampler_ns = header_u64(&ring.hdr->sampler_ns_total);
	}
	getrusage(RUSAGE_SELF, &before);
	cpu = clock_ns(CLOCK_PROCESS_CPUTIME_ID);
	for (unsigned int i = 0; i < rounds; i++)
		touch_fresh_pages(pages);
	cpu = clock_ns(CLOCK_PROCESS_CPUTIME_ID) - cpu;
	getrusage(RUSAGE_SELF, &after);
	faults = after.ru_minflt - before.ru_minflt;
	if (strcmp(mode, "unregistered")) {
		/* The faults of the last period are placed at the next tick. */
		usleep(200000);
		sampler_ns = header_u64(&ring.hdr->sampler_ns_total) - sampler_ns;
		err = procstatus_command(MP3_STATUS_PATH, 'U', getpid());
		if (err)
			die("unregistering this process", -err);
		mp3ring_unmap(&ring);
	}
	printf("faults mode=%s pages=%lu rounds=%u faults=%ld ns_per_fault=%.1f"
	       " sampler_ns_per_fault=%.1f\n", mode, pages, rounds, faults,
	       faults ? (double)cpu / faults : 0.0, faults ? (double)sampler_ns / faults : 0.0);
	return 0;
}

static void usage(void)
{
	fputs("Usage: pfprof-bench cost N SECONDS\n"
	      "       pfprof-bench sampler N SECONDS [BUSY]\n"
	      "       pfprof-bench timing SECONDS [CONSUMER_PID]\n"
	      "       pfprof-bench consumer CONSUMER_PID SECONDS\n"
	      "       pfprof-bench overhead bare|pfprof|observe DELAY_MS CMD... [-- OBSERVER...]\n"
	      "       pfprof-bench scrape SECONDS INTERVAL_MS NAME,PID[,PORT,METRIC[,FILE]]...\n"
	      "       pfprof-bench cpu SECONDS NAME,PID...\n"
	      "       pfprof-bench ticks SECONDS\n"
	      "       pfprof-bench promfile DIR STATE_DIR COUNT\n"
	      "       pfprof-bench forks COUNT alone|tree|maps\n"
	      "       pfprof-bench faults PAGES ROUNDS unregistered|registered|maps\n"
	      "       pfprof-bench lockwait threads|chain N\n"
	      "       pfprof-bench waits PAGES ROUNDS PIPE_LOOPS\n"
	      "       pfprof-bench latency PAGES ROUNDS none|other|self\n"
	      "       pfprof-bench swap PAGES ROUNDS none|other|self|bpftrace\n"
	      "       pfprof-bench refault FILE PAGES ROUNDS none|other|self|cgroup|charged\n"
	      "Run by bench/guest.sh inside the benchmark guest (make bench), and by\n"
	      "bench/damon-guest.sh (make bench-damon).\n", stderr);
	exit(2);
}

int main(int argc, char **argv)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc == 4 && !strcmp(argv[1], "cost"))
		return cmd_cost(number(argv[2]), number(argv[3]), 0, true);
	if ((argc == 4 || argc == 5) && !strcmp(argv[1], "sampler"))
		return cmd_cost(number(argv[2]), number(argv[3]), argc == 5 ? number(argv[4]) : 0,
				false);
	if ((argc == 3 || argc == 4) && !strcmp(argv[1], "timing"))
		return cmd_timing(number(argv[2]), argc == 4 ? (pid_t)number(argv[3]) : 0);
	if (argc == 4 && !strcmp(argv[1], "consumer"))
		return cmd_consumer((pid_t)number(argv[2]), number(argv[3]));
	if (argc >= 5 && !strcmp(argv[1], "overhead"))
		return cmd_overhead(argv[2], number(argv[3]), argv + 4);
	if (argc >= 5 && !strcmp(argv[1], "scrape"))
		return cmd_scrape(number(argv[2]), number(argv[3]), argc - 4, argv + 4);
	if (argc == 5 && !strcmp(argv[1], "faults") && (!strcmp(argv[4], "unregistered") ||
	    !strcmp(argv[4], "registered") || !strcmp(argv[4], "maps")))
		return cmd_faults(number(argv[2]), number(argv[3]), argv[4]);
	if (argc == 4 && !strcmp(argv[1], "forks") &&
	    (!strcmp(argv[3], "alone") || !strcmp(argv[3], "tree") || !strcmp(argv[3], "maps")))
		return cmd_forks(number(argv[2]), argv[3]);
	if (argc == 5 && !strcmp(argv[1], "promfile"))
		return cmd_promfile(argv[2], argv[3], number(argv[4]));
	if (argc == 4 && !strcmp(argv[1], "lockwait") &&
	    (!strcmp(argv[2], "threads") || !strcmp(argv[2], "chain")))
		return cmd_lockwait(argv[2], number(argv[3]));
	if (argc == 5 && !strcmp(argv[1], "waits"))
		return cmd_waits(number(argv[2]), number(argv[3]), number(argv[4]));
	if (argc == 5 && !strcmp(argv[1], "latency") && (!strcmp(argv[4], "none") ||
	    !strcmp(argv[4], "other") || !strcmp(argv[4], "self")))
		return cmd_fault_latency(number(argv[2]), number(argv[3]), argv[4]);
	if (argc == 5 && !strcmp(argv[1], "swap") && (!strcmp(argv[4], "none") ||
	    !strcmp(argv[4], "other") || !strcmp(argv[4], "self") || !strcmp(argv[4], "bpftrace")))
		return cmd_swap_cost(number(argv[2]), number(argv[3]), argv[4]);
	if (argc == 6 && !strcmp(argv[1], "refault") && (!strcmp(argv[5], "none") ||
	    !strcmp(argv[5], "other") || !strcmp(argv[5], "self") || !strcmp(argv[5], "cgroup") ||
	    !strcmp(argv[5], "charged")))
		return cmd_refault_cost(argv[2], number(argv[3]), number(argv[4]), argv[5]);
	if (argc == 3 && !strcmp(argv[1], "ticks"))
		return cmd_ticks(number(argv[2]));
	if (argc >= 4 && !strcmp(argv[1], "cpu"))
		return cmd_cpu(number(argv[2]), argc - 3, argv + 3);
	usage();
}
