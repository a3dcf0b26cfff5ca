/* SPDX-License-Identifier: GPL-2.0 */
/* work: its command line, read by workoptions.c, run by work.c. */
#ifndef PFPROF_WORK_H
#define PFPROF_WORK_H

#include <stdbool.h>
#include <stdint.h>

#define PROG "work"

#define MIB_SHIFT 20
#define DEFAULT_ITERATIONS 20
#define DEFAULT_SEED 1
#define DEFAULT_PAUSE_MS 1000
/* L mode: the window holds this many pages and moves one page forward
 * every LOCAL_SLIDE_EVERY accesses. */
#define LOCAL_WINDOW_PAGES 256
#define LOCAL_SLIDE_EVERY 64

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

/*
 * Fills *opts (its defaults set) from the command line; exits after --help
 * and --version (0) and on a usage error (2, said on stderr).
 */
void work_parse_command_line(int argc, char *argv[], struct options *opts);

#endif /* PFPROF_WORK_H */
