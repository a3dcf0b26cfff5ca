/* SPDX-License-Identifier: GPL-2.0 */
/* pfprofctl: what its commands share. */
#ifndef PFPROF_CTL_H
#define PFPROF_CTL_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "config.h"

/* Exit status, as documented in pfprofctl(8) and --help. */
enum {
	CTL_OK = 0,
	CTL_FAILED = 1,		/* the command failed (the message says why) */
	CTL_USAGE = 2,		/* bad command line */
	CTL_NO_MODULE = 3,	/* the mp3 module is not loaded */
	CTL_NO_DAEMON = 4,	/* status: pfprofd is not running */
};

struct ctl {
	struct pfprof_config config;
	const char *config_path;
};

struct ctl_command {
	const char *name;
	const char *args;	/* synopsis of the arguments */
	const char *summary;
	int (*run)(struct ctl *ctl, int argc, char **argv);	/* argv[0] is the name */
};

int ctl_add(struct ctl *ctl, int argc, char **argv);
int ctl_del(struct ctl *ctl, int argc, char **argv);
int ctl_list(struct ctl *ctl, int argc, char **argv);
int ctl_status(struct ctl *ctl, int argc, char **argv);
int ctl_follow(struct ctl *ctl, int argc, char **argv);
int ctl_run(struct ctl *ctl, int argc, char **argv);
int ctl_plot(struct ctl *ctl, int argc, char **argv);

/* "pfprofctl: <what>: <strerror(err)>" to stderr (err is -errno). */
__attribute__((format(printf, 2, 3)))
void ctl_error(int err, const char *fmt, ...);
/* "pfprofctl: hint: ..." to stderr. */
__attribute__((format(printf, 1, 2)))
void ctl_hint(const char *fmt, ...);

/* Exit status for a failure to reach the module (err is -errno), with a hint. */
int ctl_module_error(int err, const char *object);

/* Parses "<pid>" (decimal, 1..INT_MAX); false if malformed. */
bool ctl_parse_pid(const char *arg, pid_t *pid);

/*
 * Parses a command's options: -h/--help plus the ones in extra (getopt_long
 * style, handled by on_option, which returns false for a bad value). Returns
 * -1 to go on (optind is at the first argument), else the exit status.
 */
struct option;
int ctl_options(const struct ctl_command *cmd, const char *details, int argc, char **argv,
		const char *shortopts, const struct option *extra,
		bool (*on_option)(int opt, const char *arg, void *ctx), void *ctx);

/* Usage error for an argument the command does not take. */
int ctl_unexpected_argument(const struct ctl_command *cmd, const char *arg);

const struct ctl_command *ctl_find_command(const char *name);

#endif /* PFPROF_CTL_H */
