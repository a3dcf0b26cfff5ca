// SPDX-License-Identifier: GPL-2.0
/* work: its options and operands, checked, with --help and --version. */
#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <linux/mp3.h>

#include "output.h"
#include "pfprof.h"
#include "work.h"

#define EXIT_USAGE 2
#define MAX_PAUSE_MS 3600000

/* Long options without a short form. */
enum { OPT_STATUS_FILE = 256, OPT_SLEEP_MS, OPT_PAUSE, OPT_NO_REGISTER, OPT_FILE };

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

void work_parse_command_line(int argc, char *argv[], struct options *opts)
{
	parse_options(argc, argv, opts);
	parse_positionals(argc, argv, opts);
}
