// SPDX-License-Identifier: GPL-2.0
/*
 * work: load generator for the mp3 profiler. Maps an anonymous buffer and
 * touches it, randomly (R) or with locality (L), so that the page faults it
 * takes show up in the profile. By default it runs as the course's work
 * does: registered with the module while it runs, 20 iterations with a 1 s
 * pause after each.
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <signal.h>
#include <stdarg.h>
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

#define PROG "work"

#define EXIT_USAGE 2

#define MIB_SHIFT 20
#define DEFAULT_ITERATIONS 20
#define DEFAULT_SEED 1
#define DEFAULT_PAUSE_MS 1000
#define MAX_PAUSE_MS 3600000
/* How often the access loop looks for SIGINT/SIGTERM. */
#define SIGNAL_CHECK_EVERY 4096
#define PERIOD_MS_PARAM "/sys/module/mp3/parameters/period_ms"

/* L mode: the window holds this many pages and moves one page forward
 * every LOCAL_SLIDE_EVERY accesses. */
#define LOCAL_WINDOW_PAGES 256
#define LOCAL_SLIDE_EVERY 64

/* Long options without a short form. */
enum { OPT_STATUS_FILE = 256, OPT_SLEEP_MS, OPT_PAUSE, OPT_NO_REGISTER, OPT_FILE };

enum register_mode {
	REGISTER_IF_LOADED,	/* the default: when the status file exists */
	REGISTER_ALWAYS,	/* --register: failing to is an error */
	REGISTER_NEVER,		/* --no-register */
};

struct options {
	uint64_t megabytes;
	bool local;
	uint64_t accesses;
	uint64_t iterations;
	uint64_t seed;
	uint64_t pause_ms;
	enum register_mode registration;
	const char *status_file;
	const char *file;	/* --file: read this file's pages instead of anonymous memory */
	bool quiet;
};

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

static void print_usage(FILE *out)
{
	fprintf(out,
		"Usage: " PROG " [options] <MB> <R|L> <accesses-per-iteration>\n"
		"\n"
		"Map <MB> MiB of anonymous memory (without prefaulting it) and, for\n"
		"each of N iterations, make <accesses-per-iteration> read-modify-write\n"
		"accesses to one word of it, then pause. As the course's work does,\n"
		"it registers itself with the mp3 profiler while it runs, if the\n"
		"module is loaded, and unregisters at the end (also on SIGINT and\n"
		"SIGTERM). The patterns:\n"
		"  R  each access goes to a random word of a random page of the whole\n"
		"     buffer.\n"
		"  L  each access goes to a random word of a random page in a window of\n"
		"     %d pages (1 MiB with 4 KiB pages; the whole buffer if smaller)\n"
		"     that moves forward by one page every %d accesses and wraps\n"
		"     around at the end of the buffer. Every step makes its access:\n"
		"     the course's work makes none in 4 of 5 steps of its L mode.\n"
		"\n"
		"Options:\n"
		"  -n, --iterations N   run N iterations (default %d)\n"
		"  -s, --seed N         seed of the random generator (default %d; runs\n"
		"                       with the same seed make the same accesses)\n"
		"      --pause SECS     pause SECS seconds (0 to 3600, decimals allowed)\n"
		"                       after each iteration (default 1; 0: CPU-bound)\n"
		"      --sleep-ms N     the same as --pause, in milliseconds\n"
		"  -r, --register       register with the mp3 profiler (write\n"
		"                       \"R <pid>\" to the status file), and fail if\n"
		"                       that fails (default: register if the status\n"
		"                       file exists, and go on without if not)\n"
		"      --no-register    do not register\n"
		"      --file PATH      read the first <MB> MiB of the file PATH, mapped\n"
		"                       shared and read-only, instead of anonymous memory:\n"
		"                       each access reads a word (a page not in the page\n"
		"                       cache is read from the file: a major fault)\n"
		"      --status-file PATH\n"
		"                       the status file (default " MP3_STATUS_PATH ")\n"
		"  -q, --quiet          no progress or summary on standard error\n"
		"  -h, --help           show this help and exit\n"
		"  -V, --version        show the version and exit\n"
		"\n"
		"Exit status: 0 success, 1 runtime failure, 2 usage error; killed by\n"
		"SIGINT or SIGTERM, it unregisters and dies of that signal.\n",
		LOCAL_WINDOW_PAGES, LOCAL_SLIDE_EVERY, DEFAULT_ITERATIONS,
		DEFAULT_SEED);
}

static _Noreturn __attribute__((format(printf, 1, 2)))
void usage_error(const char *format, ...)
{
	va_list args;

	fputs(PROG ": ", stderr);
	va_start(args, format);
	vfprintf(stderr, format, args);
	va_end(args);
	fputs("\nTry '" PROG " --help' for more information.\n", stderr);
	exit(EXIT_USAGE);
}

/* strtoull alone accepts "", " 5" and "-1" (which wraps), so check the
 * first character and the end as well as the range. */
static bool parse_u64(const char *text, uint64_t min, uint64_t max,
		      uint64_t *value)
{
	unsigned long long parsed;
	char *end;

	if (!isdigit((unsigned char)text[0]))
		return false;
	errno = 0;
	parsed = strtoull(text, &end, 10);
	if (errno != 0 || *end != '\0' || parsed < min || parsed > max)
		return false;
	*value = parsed;
	return true;
}

static uint64_t parse_number_or_exit(const char *text, uint64_t min,
				     uint64_t max, const char *what)
{
	uint64_t value;

	if (!parse_u64(text, min, max, &value))
		usage_error("invalid %s '%s': expected an integer from %llu to %llu",
			    what, text, (unsigned long long)min,
			    (unsigned long long)max);
	return value;
}

/* Seconds with up to three decimals, as milliseconds. */
static uint64_t parse_seconds_or_exit(const char *text, uint64_t max_ms, const char *what)
{
	char *end;
	double seconds;

	errno = 0;
	seconds = isdigit((unsigned char)text[0]) ? strtod(text, &end) : -1;
	if (seconds < 0 || errno || *end || seconds * 1000 > (double)max_ms)
		usage_error("invalid %s '%s': expected seconds from 0 to %llu", what, text,
			    (unsigned long long)max_ms / 1000);
	return (uint64_t)(seconds * 1000 + 0.5);
}

static void parse_options(int argc, char *argv[], struct options *opts)
{
	static const struct option long_options[] = {
		{ "iterations", required_argument, NULL, 'n' },
		{ "seed", required_argument, NULL, 's' },
		{ "register", no_argument, NULL, 'r' },
		{ "no-register", no_argument, NULL, OPT_NO_REGISTER },
		{ "status-file", required_argument, NULL, OPT_STATUS_FILE },
		{ "pause", required_argument, NULL, OPT_PAUSE },
		{ "sleep-ms", required_argument, NULL, OPT_SLEEP_MS },
		{ "file", required_argument, NULL, OPT_FILE },
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	int opt;

	while ((opt = getopt_long(argc, argv, "n:s:rqhV", long_options,
				  NULL)) != -1) {
		switch (opt) {
		case 'n':
			opts->iterations = parse_number_or_exit(optarg, 1,
					UINT64_MAX, "iteration count");
			break;
		case 's':
			opts->seed = parse_number_or_exit(optarg, 0,
					UINT64_MAX, "seed");
			break;
		case 'r':
			opts->registration = REGISTER_ALWAYS;
			break;
		case OPT_NO_REGISTER:
			opts->registration = REGISTER_NEVER;
			break;
		case OPT_STATUS_FILE:
			opts->status_file = optarg;
			break;
		case OPT_FILE:
			opts->file = optarg;
			break;
		case OPT_PAUSE:
			opts->pause_ms = parse_seconds_or_exit(optarg, MAX_PAUSE_MS, "pause");
			break;
		case OPT_SLEEP_MS:
			opts->pause_ms = parse_number_or_exit(optarg, 0, MAX_PAUSE_MS,
							      "sleep time in ms");
			break;
		case 'q':
			opts->quiet = true;
			break;
		case 'h':
			print_usage(stdout);
			exit(finish_stdout(PROG));
		case 'V':
			printf(PROG " (pfprof) %s\n", pfprof_version);
			exit(finish_stdout(PROG));
		default:
			/* getopt_long has already said what was wrong. */
			fprintf(stderr, "Try '" PROG " --help' for more information.\n");
			exit(EXIT_USAGE);
		}
	}
}

static void parse_positionals(int argc, char *argv[], struct options *opts)
{
	const char *mode;

	if (argc - optind < 3)
		usage_error("missing arguments: expected <MB> <R|L> <accesses-per-iteration>");
	if (argc - optind > 3)
		usage_error("unexpected argument '%s'", argv[optind + 3]);
	/* The byte count must fit in a size_t for mmap. */
	opts->megabytes = parse_number_or_exit(argv[optind], 1,
					       SIZE_MAX >> MIB_SHIFT, "size in MB");
	mode = argv[optind + 1];
	if (strcmp(mode, "R") != 0 && strcmp(mode, "L") != 0)
		usage_error("invalid access mode '%s': expected R or L", mode);
	opts->local = mode[0] == 'L';
	opts->accesses = parse_number_or_exit(argv[optind + 2], 1, UINT64_MAX,
					      "access count");
}

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

	parse_options(argc, argv, &opts);
	parse_positionals(argc, argv, &opts);

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
