// SPDX-License-Identifier: GPL-2.0
/*
 * work: load generator for the mp3 profiler. Maps an anonymous buffer and
 * touches it, randomly (R) or with locality (L), so that the page faults it
 * takes show up in the profile. By default it runs as the course's work
 * does: registered with the module while it runs, 20 iterations with a 1 s
 * pause after each.
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
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <linux/mp3.h>

#include "clock.h"
#include "output.h"
#include "pfprof.h"
#include "procstatus.h"
#include "work.h"

/* How often the access loop looks for SIGINT/SIGTERM. */
#define SIGNAL_CHECK_EVERY 4096
#define PERIOD_MS_PARAM "/sys/module/mp3/parameters/period_ms"

struct access_pattern {
	volatile unsigned long *words;
	bool read_only;		/* a file's pages: each access is a read */
	uint64_t pages;
	uint64_t words_per_page;
	bool local;
	uint64_t window_pages;
	uint64_t window_start;
	uint64_t since_slide;
	uint64_t rng_state;
};

/* splitmix64: any seed, 0 included, gives a full-period stream. */
static uint64_t next_random(uint64_t *state)
{
	uint64_t z = (*state += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/* Modulo bias is below n / 2^53: irrelevant for a load generator. */
static uint64_t random_below(uint64_t *state, uint64_t n)
{
	return (next_random(state) >> 11) % n;
}

static uint64_t next_page(struct access_pattern *p)
{
	uint64_t page;

	if (!p->local)
		return random_below(&p->rng_state, p->pages);
	page = (p->window_start + random_below(&p->rng_state, p->window_pages)) %
	       p->pages;
	if (++p->since_slide == LOCAL_SLIDE_EVERY) {
		p->since_slide = 0;
		p->window_start = (p->window_start + 1) % p->pages;
	}
	return page;
}

static void access_once(struct access_pattern *p)
{
	uint64_t page = next_page(p);
	uint64_t word = random_below(&p->rng_state, p->words_per_page);
	volatile unsigned long *target = p->words + page * p->words_per_page + word;

	if (p->read_only) {
		(void)*target;
		return;
	}

	/* One instruction that both reads and writes takes one write fault
	 * per new page. A separate load would first map the shared zero page
	 * and the store would then fault again, doubling every count. */
	__atomic_fetch_add(target, 1, __ATOMIC_RELAXED);
}

static double now_ms(void)
{
	return clock_ns(CLOCK_MONOTONIC) / 1e6;
}

/* The signal that asked work to stop (SIGINT, SIGTERM), 0 while none did. */
static volatile sig_atomic_t stop_signal;

static void on_stop_signal(int sig)
{
	stop_signal = sig;
}

/* Without SA_RESTART: a pause ends at once when a signal comes. */
static void catch_stop_signals(void)
{
	struct sigaction action = { .sa_handler = on_stop_signal };

	sigemptyset(&action.sa_mask);
	sigaction(SIGINT, &action, NULL);
	sigaction(SIGTERM, &action, NULL);
}

/* Sleeps ms, or less if a stop signal comes. */
static void pause_ms(uint64_t ms)
{
	struct timespec left = {
		.tv_sec = (time_t)(ms / 1000),
		.tv_nsec = (long)(ms % 1000) * 1000000L,
	};

	while (!stop_signal && nanosleep(&left, &left) != 0 && errno == EINTR)
		;
}

static void print_register_hint(int error)
{
	if (error == ENOENT)
		fprintf(stderr, PROG ": hint: is the mp3 module loaded? try: modprobe mp3\n");
	else if (error == EPERM || error == EACCES)
		fprintf(stderr, PROG ": hint: you may lack permission to write the "
			"status file or to register this process; try as root\n");
}

/*
 * Registers this process as opts asks; returns whether it is registered
 * now (EEXIST: someone, say pfprofctl run, did it already), and false with
 * *failed set when --register could not.
 */
static bool register_self(const struct options *opts, bool *failed)
{
	int error;

	*failed = false;
	if (opts->registration == REGISTER_NEVER)
		return false;
	if (opts->registration == REGISTER_IF_LOADED && access(opts->status_file, F_OK)) {
		if (!opts->quiet)
			fprintf(stderr, PROG ": not registered: %s does not exist (the mp3 module is"
				" not loaded); running without the profiler\n", opts->status_file);
		return false;
	}
	error = -procstatus_command_bare(opts->status_file, 'R', getpid());
	if (!error || error == EEXIST)
		return true;
	fprintf(stderr, PROG ": cannot register with %s: %s\n", opts->status_file,
		strerror(error));
	print_register_hint(error);
	*failed = opts->registration == REGISTER_ALWAYS;
	return false;
}

/* The module's sampling period, in ms; 50 if it cannot be read. */
static uint64_t sampling_period_ms(void)
{
	unsigned long ms = 50;
	FILE *param = fopen(PERIOD_MS_PARAM, "re");

	if (param) {
		if (fscanf(param, "%lu", &ms) != 1)
			ms = 50;
		fclose(param);
	}
	return ms;
}

/*
 * Leaves the profiler. Two sampling periods first, so that the module's
 * last sample of this process holds its last accesses: after a pause of
 * that long there is nothing left to wait for.
 */
static void unregister_self(const struct options *opts)
{
	uint64_t period_ms = sampling_period_ms();
	int error;

	if (opts->pause_ms < 2 * period_ms || stop_signal) {
		int sig = stop_signal;

		stop_signal = 0;	/* the wait is short: let it finish */
		pause_ms(2 * period_ms);
		stop_signal = sig;
	}
	error = -procstatus_command_bare(opts->status_file, 'U', getpid());
	if (error && error != ENOENT)
		fprintf(stderr, PROG ": cannot unregister from %s: %s\n", opts->status_file,
			strerror(error));
}

/* The first bytes of path, mapped shared and read-only; NULL (said why) if it is shorter. */
static volatile unsigned long *map_file(const char *path, size_t bytes)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	void *buffer = MAP_FAILED;
	struct stat st;

	if (fd < 0 || fstat(fd, &st)) {
		fprintf(stderr, PROG ": cannot open %s: %s\n", path, strerror(errno));
	} else if ((uint64_t)st.st_size < bytes) {
		fprintf(stderr, PROG ": %s has %lld bytes, fewer than the %zu MiB asked for\n",
			path, (long long)st.st_size, bytes >> MIB_SHIFT);
	} else {
		buffer = mmap(NULL, bytes, PROT_READ, MAP_SHARED, fd, 0);
		if (buffer == MAP_FAILED)
			fprintf(stderr, PROG ": cannot map %s: %s\n", path, strerror(errno));
	}
	if (fd >= 0)
		close(fd);
	return buffer == MAP_FAILED ? NULL : buffer;
}

static volatile unsigned long *map_buffer(size_t bytes)
{
	void *buffer = mmap(NULL, bytes, PROT_READ | PROT_WRITE,
			    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (buffer == MAP_FAILED) {
		fprintf(stderr, PROG ": cannot map %zu MiB: %s\n",
			bytes >> MIB_SHIFT, strerror(errno));
		return NULL;
	}
	/* With THP, one fault would fill 512 pages and hide the access
	 * pattern from the profile. EINVAL (kernel without THP) leaves
	 * nothing to turn off, so the result does not matter. */
	madvise(buffer, bytes, MADV_NOHUGEPAGE);
	return buffer;
}

/*
 * The faults go last: they let a reader check what the profiler counted.
 * Printed once unregistered, so that they cover everything the profile can.
 */
static void print_summary(const struct options *opts, uint64_t done, double elapsed_ms)
{
	struct rusage usage;

	if (getrusage(RUSAGE_SELF, &usage))
		usage = (struct rusage){ 0 };
	fprintf(stderr, PROG "[%ld]: %s: %llu iterations of %llu %s accesses to %llu MiB in %.3f ms;"
		" %ld minor and %ld major faults\n",
		(long)getpid(), stop_signal ? "stopped" : "done", (unsigned long long)done,
		(unsigned long long)opts->accesses, opts->local ? "local" : "random",
		(unsigned long long)opts->megabytes, elapsed_ms, usage.ru_minflt, usage.ru_majflt);
}

/* Returns the number of iterations done. */
static uint64_t run(const struct options *opts, struct access_pattern *pattern)
{
	long pid = (long)getpid();
	uint64_t done = 0;

	for (uint64_t i = 1; i <= opts->iterations && !stop_signal; i++) {
		double iteration_start = now_ms();

		for (uint64_t a = 0; a < opts->accesses; a++) {
			if (a % SIGNAL_CHECK_EVERY == 0 && stop_signal)
				break;
			access_once(pattern);
		}
		if (stop_signal)
			break;
		done = i;
		if (!opts->quiet)
			fprintf(stderr, PROG "[%ld]: iteration %llu/%llu: %llu accesses in %.3f ms\n",
				pid, (unsigned long long)i,
				(unsigned long long)opts->iterations,
				(unsigned long long)opts->accesses,
				now_ms() - iteration_start);
		pause_ms(opts->pause_ms);
	}
	return done;
}

int main(int argc, char *argv[])
{
	struct options opts = {
		.iterations = DEFAULT_ITERATIONS,
		.seed = DEFAULT_SEED,
		.pause_ms = DEFAULT_PAUSE_MS,
		.status_file = MP3_STATUS_PATH,
	};
	struct access_pattern pattern;
	size_t bytes;
	long page_size = sysconf(_SC_PAGESIZE);
	bool registered, failed;
	uint64_t done;
	double start, elapsed_ms;

	work_parse_command_line(argc, argv, &opts);

	bytes = (size_t)opts.megabytes << MIB_SHIFT;
	pattern = (struct access_pattern){
		.words = opts.file ? map_file(opts.file, bytes) : map_buffer(bytes),
		.read_only = opts.file != NULL,
		.pages = bytes / (size_t)page_size,
		.words_per_page = (size_t)page_size / sizeof(unsigned long),
		.local = opts.local,
		.rng_state = opts.seed,
	};
	if (pattern.words == NULL)
		return EXIT_FAILURE;
	pattern.window_pages = pattern.pages < LOCAL_WINDOW_PAGES ?
			       pattern.pages : LOCAL_WINDOW_PAGES;

	/* Before registering: a signal from then on still unregisters. */
	catch_stop_signals();
	registered = register_self(&opts, &failed);
	if (failed)
		return EXIT_FAILURE;
	start = now_ms();
	done = run(&opts, &pattern);
	elapsed_ms = now_ms() - start;
	if (registered)
		unregister_self(&opts);
	if (!opts.quiet)
		print_summary(&opts, done, elapsed_ms);
	if (stop_signal) {
		/* Dies of the signal, so that its parent sees why. */
		signal(stop_signal, SIG_DFL);
		raise(stop_signal);
	}
	return EXIT_SUCCESS;
}
