/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pfprofctl: its commands and what they share. Each command file defines its
 * struct ctl_command; main.c lists them in one table, parses the command line
 * once against the entry and hands the result to its run().
 * Exit statuses: enum pfprof_exit (pfprof.h), documented in pfprofctl(8).
 */
#ifndef PFPROF_CTL_H
#define PFPROF_CTL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "config.h"
#include "pfprof.h"
#include "targets.h"

struct ctl {
	struct pfprof_config config;
	const char *config_path;
};

/*
 * CTL_COUNT: a number from 1. CTL_OPERAND_KIND: a flag saying what the
 * operands are (--unit); --unit=NAME gives one more, as systemctl takes it.
 */
enum ctl_value { CTL_NUMBER, CTL_COUNT, CTL_STRING, CTL_OPERAND_KIND };

struct ctl_option {
	const char *name;	/* the long option, --name */
	char short_name;	/* -c, or 0 */
	enum ctl_value type;
	const char *metavar;	/* what the value is, in --help: "N", "FILE" */
	const char *help;
};

#define CTL_MAX_OPTIONS 12

/* One command line, parsed against a command's table entry. */
struct ctl_call {
	char **operands;	/* NULL after the last */
	int nr_operands;
	const char *config_path;	/* -c FILE after the command, or NULL */
	/* Indexed like the command's options[]. */
	struct {
		bool set;
		uint64_t number;
		const char *string;
		char typed[32];	/* as typed, "-n" or "--iterations", for messages */
	} option[CTL_MAX_OPTIONS];
};

struct ctl_command {
	const char *name;
	const char *operands;		/* synopsis of the operands, "" if none */
	int min_operands, max_operands;	/* max -1: no limit */
	const char *missing_operands;	/* the question when too few are given */
	const char *summary;
	const char *details;		/* more --help text, or NULL */
	struct ctl_option options[CTL_MAX_OPTIONS];	/* --help is every command's */
	/* The operands are a command line of their own: its options are its. */
	bool options_end_at_operand;
	int (*run)(struct ctl *ctl, const struct ctl_call *call);
};

extern const struct ctl_command ctl_add_command, ctl_del_command, ctl_list_command,
	ctl_status_command, ctl_follow_command, ctl_top_command, ctl_run_command,
	ctl_plot_command, ctl_where_command, ctl_memory_command, ctl_page_command,
	ctl_swap_command, ctl_physical_command, ctl_heatmap_command;
/* Every command, in --help's order; NULL at the end. */
extern const struct ctl_command *const ctl_commands[];

/* The command called name, or NULL. */
const struct ctl_command *ctl_find_command(const char *name);

/* "pfprofctl: <what>: <strerror(err)>" to stderr (err is -errno; 0: no error text). */
__attribute__((format(printf, 2, 3)))
void ctl_error(int err, const char *fmt, ...);
/* "pfprofctl: hint: ..." to stderr. */
__attribute__((format(printf, 1, 2)))
void ctl_hint(const char *fmt, ...);
/* "pfprofctl <command>: ..." and the --help pointer to stderr; returns PFPROF_EXIT_USAGE. */
__attribute__((format(printf, 2, 3)))
int ctl_usage_error(const struct ctl_command *cmd, const char *fmt, ...);

/*
 * Exit status for a failure to reach the module (err is -errno, object what
 * failed), said on stderr: if it is not loaded, that, and what to do.
 */
int ctl_module_error(int err, const char *object);
/*
 * Whether err (-errno, from the control file) means the module is not
 * loaded; if so, says so, followed by what the command does without it
 * (fmt, e.g. "removing from %s only").
 */
__attribute__((format(printf, 3, 4)))
bool ctl_module_missing_note(const struct ctl *ctl, int err, const char *fmt, ...);

/* Parses "<pid>" (decimal, 1..INT_MAX); false if malformed. */
bool ctl_parse_pid(const char *arg, pid_t *pid);

/* The options a command names targets with: the option's index for each kind, and --user's. */
struct ctl_operand_options {
	int kind[TARGET_COMM + 1];	/* by enum target_kind; TARGET_PID's unused */
	int user;
};

/* The options table's entries of ctl_parse_operand()'s options, at those indexes. */
#define CTL_OPERAND_OPTIONS(tree, unit, cgroup, comm, user) \
	[tree] = { "tree", 't', CTL_OPERAND_KIND, NULL, "the operand is a tree's root PID" }, \
	[unit] = { "unit", 'u', CTL_OPERAND_KIND, NULL, "the operand is a systemd unit" }, \
	[cgroup] = { "cgroup", 'g', CTL_OPERAND_KIND, NULL, \
		     "the operand is a cgroup v2 directory" }, \
	[comm] = { "comm", 'C', CTL_OPERAND_KIND, NULL, "the operand is a command name" }, \
	[user] = { "user", 0, CTL_STRING, "USER", "with --comm: the name added with --user USER" }

/* What the operand names: a process (kind NULL), or a target and its number. */
struct ctl_operand {
	pid_t pid;
	const char *kind;		/* target_kind_word()'s, or NULL */
	const char *name;		/* the operand, for a target */
	uint32_t target;
};

/*
 * The operand of cmd (none: out is all 0): a PID, or with --tree, --unit,
 * --cgroup or --comm (and --user) the target it names. -1, or the status
 * of a usage error said on stderr.
 */
int ctl_parse_operand(const struct ctl_command *cmd, const struct ctl_call *call,
		      const struct ctl_operand_options *opts, struct ctl_operand *out);

/* A wall-clock time (ns since 1970) as "2026-12-05 16:40:01", in UTC; "?" if none. */
void ctl_format_utc(char *buf, size_t size, uint64_t ns);

/* How long something lasted or has been away: "850 ms", "12.3 s", "4.2 min", "3.1 h". */
void ctl_format_age(char *buf, size_t size, uint64_t ns);

/* bytes in the largest binary unit below 1024 of it: "512 B", "1.5 MiB", "12 MiB". */
void ctl_format_bytes(char *buf, size_t size, uint64_t bytes);

/* pages of this machine's size, in MiB: for tables' columns and pictures' axes. */
double ctl_pages_mib(uint64_t pages);

/*
 * Parses argv (argv[0] is the command's name) against cmd into *call.
 * Returns -1 to run the command, else the exit status (--help printed, or a
 * usage error reported).
 */
int ctl_parse_call(const struct ctl_command *cmd, int argc, char **argv, struct ctl_call *call);

#endif /* PFPROF_CTL_H */
