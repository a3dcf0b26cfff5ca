/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pfprofd.conf: "key = value" lines, '#' comments, blank lines. A problem in a
 * line (unknown key, bad value, no '=') is reported with file and line and the
 * default is kept for that key.
 *
 * White space around keys and values is ignored. A '#' at the start of a line
 * or after white space starts a comment, so "keep = 5  # five" works, and a
 * value cannot contain " #" (a '#' inside a word, as in "/a#b", is kept).
 * Lines longer than 4096 bytes are reported and ignored. When a key appears
 * more than once the last valid line wins, silently; a bad line leaves the
 * key as it was (the default, unless an earlier line set it).
 */
#ifndef PFPROF_CONFIG_H
#define PFPROF_CONFIG_H

#include <limits.h>
#include <stdbool.h>
#include <stdint.h>

struct pfprof_config {
	char log_dir[PATH_MAX];		/* log_dir, default PFPROF_LOG_DIR */
	uint64_t rotate_size;		/* rotate_size, bytes (K/M/G suffix), 0 = never; default 16M */
	uint64_t rotate_age_s;		/* rotate_age, seconds (s/m/h/d suffix), 0 = never; default 1d */
	unsigned int keep;		/* keep, rotated files kept, default 10 */
	uint64_t write_interval_s;	/* write_interval: batch samples this long, 0 = each; default 1s */
	char targets_file[PATH_MAX];	/* targets_file (or pid_file), PFPROF_TARGETS_FILE */
	char device[PATH_MAX];		/* device, default MP3_DEVICE_PATH */
	char status_file[PATH_MAX];	/* status_file, default MP3_STATUS_PATH */
	char runtime_dir[PATH_MAX];	/* runtime_dir: daemon lock and state, default PFPROF_RUNTIME_DIR */
	char state_dir[PATH_MAX];	/* state_dir: what pfprofd keeps across restarts, PFPROF_STATE_DIR */
	/* prometheus_dir: node_exporter's textfile directory, "" = off; default PFPROF_PROMETHEUS_DIR */
	char prometheus_dir[PATH_MAX];
	uint64_t prometheus_interval_s;	/* prometheus_interval: rewrite period, >= 1 s; default 5s */
	unsigned int prometheus_max_processes;	/* per-process series at most, default 100 */
	/* user_log_lines: lines of one user's registrations logged a second, default 100 */
	unsigned int user_log_lines;
	/* delay_accounting: on = turn kernel.task_delayacct on while pfprofd runs, leave; default on */
	bool delay_accounting;
};

/* Called for each problem found; line is 0 for problems with the whole file. */
typedef void config_report_fn(void *ctx, const char *file, unsigned int line,
			      const char *message);

void config_defaults(struct pfprof_config *config);

/*
 * Sets *config to the defaults, then applies path. Returns 0, or -errno if
 * the file cannot be read (the defaults stay in *config); lines with problems
 * are reported through report and do not make it fail.
 */
int config_load(struct pfprof_config *config, const char *path,
		config_report_fn *report, void *ctx);

/*
 * config_load() of path, or of PFPROF_CONFIG_PATH when path is NULL: the
 * default file may be missing (the defaults apply), a file named on the
 * command line may not. 0 or -errno.
 */
int config_load_file(struct pfprof_config *config, const char *path,
		     config_report_fn *report, void *ctx);

#endif /* PFPROF_CONFIG_H */
