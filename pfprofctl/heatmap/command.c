// SPDX-License-Identifier: GPL-2.0
/*
 * pfprofctl heatmap: its options, which go together, and which part runs:
 * drawing (draw.c), recording (record.c) or watching (watch.c).
 */
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>

#include "ctl.h"
#include "damon.h"
#include "draw.h"
#include "plot/gnuplot.h"
#include "logfile.h"
#include "options.h"
#include "record.h"
#include "screen.h"
#include "watch.h"

/* The first option given of those listed (-1 ends the list), or NULL. */
static const char *first_given(const struct ctl_call *call, const int *options)
{
	for (; *options >= 0; options++)
		if (call->option[*options].set)
			return call->option[*options].typed;
	return NULL;
}

/* The options that go together: -1, or a usage error's status. */
static int check_options(const struct ctl_call *call)
{
	static const int record_only[] = { OPT_SECONDS, OPT_TAKE_DAMON, OPT_TREE, OPT_UNIT, OPT_LOG,
					   -1 },
			 watch_only[] = { OPT_DELAY, -1 },
			 not_watch[] = { OPT_OUTPUT, OPT_JSON, -1 },
			 not_record[] = { OPT_WATCH, OPT_DELAY, OPT_JSON, -1 };
	const char *option;

	if (!call->option[OPT_RECORD].set && call->nr_operands > 1)
		return ctl_usage_error(&ctl_heatmap_command, "one log at a time: %d given",
				       call->nr_operands);
	if (call->option[OPT_RECORD].set && (option = first_given(call, not_record)))
		return ctl_usage_error(&ctl_heatmap_command, "%s goes without --record: watch the "
				       "log from another terminal", option);
	if (call->option[OPT_LOG].set && call->option[OPT_OUTPUT].set)
		return ctl_usage_error(&ctl_heatmap_command, "%s and %s: with --record the log is "
				       "named once, by --log", call->option[OPT_LOG].typed,
				       call->option[OPT_OUTPUT].typed);
	if (!call->option[OPT_RECORD].set && (option = first_given(call, record_only)))
		return ctl_usage_error(&ctl_heatmap_command, "%s goes with --record", option);
	if (!call->option[OPT_WATCH].set && (option = first_given(call, watch_only)))
		return ctl_usage_error(&ctl_heatmap_command, "%s goes with --watch", option);
	if (call->option[OPT_WATCH].set && (option = first_given(call, not_watch)))
		return ctl_usage_error(&ctl_heatmap_command, "%s goes without --watch", option);
	if (!call->option[OPT_RECORD].set &&
	    !ctl_picture_option_ok(&ctl_heatmap_command, call, OPT_OUTPUT))
		return PFPROF_EXIT_USAGE;
	if (call->option[OPT_DELAY].set && screen_parse_delay(call->option[OPT_DELAY].string) < 0)
		return ctl_usage_error(&ctl_heatmap_command, "%s wants seconds from 0.05 to 3600, "
				       "not '%s'", call->option[OPT_DELAY].typed,
				       call->option[OPT_DELAY].string);
	return -1;
}

static int run(struct ctl *ctl, const struct ctl_call *call)
{
	int status = check_options(call);
	char path[PATH_MAX];

	if (status >= 0)
		return status;
	if (call->option[OPT_RECORD].set)
		return heatmap_record_command(ctl, call, &ctl_heatmap_command);
	if (!call->option[OPT_WATCH].set)
		return heatmap_draw_command(ctl, call);
	if (!heatmap_log_named(ctl, call->operands[0], path, sizeof(path)))
		return PFPROF_EXIT_FAILED;
	return heatmap_watch_command(path, call->option[OPT_DELAY].set ?
				     screen_parse_delay(call->option[OPT_DELAY].string) : 1000);
}

const struct ctl_command ctl_heatmap_command = {
	.name = "heatmap",
	.operands = "--record <pid>... | --record --tree <pid> | --record --unit <unit> | "
		    "[--watch] <pid> | [--watch] <log>",
	.min_operands = 1, .max_operands = DAMON_MAX_PROCESSES,
	.missing_operands = "which PID?",
	.summary = "Record and draw which memory a process keeps using (DAMON)",
	.details = "With --record, as root: the kernel's DAMON (Linux 6.2 or later, built with\n"
		   "CONFIG_DAMON_SYSFS) watches each process's address space, sampling every\n"
		   "5 ms, 10 to 1000 regions; a snapshot of its regions and how often each was\n"
		   "accessed goes into its log every second, with the process's mappings\n"
		   "whenever they change, until the process exits, --seconds have passed, or\n"
		   "Ctrl-C. DAMON's own cost is bounded by its number of regions, not by the\n"
		   "process's size. A kernel that starts damon_stat at boot (Debian's 7.x)\n"
		   "keeps DAMON for itself: --take-damon turns it off while recording and on\n"
		   "again after.\n"
		   "Without --record: the log of the PID (in the log directory) or the log\n"
		   "given, drawn with gnuplot: time across, the mapped address ranges up with\n"
		   "the gaps between them left out, each named, and how often DAMON found\n"
		   "each part accessed as the colour. With --watch: the same in the terminal,\n"
		   "a column a snapshot, drawn again every second (or --delay) while a\n"
		   "recorder adds to the log; q quits.\n",
	.options = {
		[OPT_RECORD] = { "record", 'r', CTL_STRING, NULL, "record the process into its log" },
		[OPT_SECONDS] = { "seconds", 's', CTL_COUNT, "N",
				  "with --record: stop after N s (default: at its exit)" },
		[OPT_OUTPUT] = { "output", 'o', CTL_STRING, "FILE",
				 "the picture, .png or .svg (default heatmap-<pid>.png)" },
		[OPT_JSON] = { "json", 0, CTL_STRING, NULL, "what was drawn, as JSON; no picture without -o" },
		[OPT_LOG] = { "log", 0, CTL_STRING, "FILE",
			      "with --record: the log (default heatmap-<pid>.log)" },
		[OPT_TAKE_DAMON] = { "take-damon", 0, CTL_STRING, NULL,
				     "with --record: turn damon_stat off, and on after" },
		[OPT_WATCH] = { "watch", 'w', CTL_STRING, NULL,
				"draw the log in the terminal, again as it grows, until q" },
		[OPT_DELAY] = { "delay", 'd', CTL_STRING, "SECS",
				"with --watch: the interval, 0.05 to 3600 s (default 1)" },
		[OPT_TREE] = { "tree", 't', CTL_OPERAND_KIND, NULL,
			       "with --record: the operand is a tree's root PID" },
		[OPT_UNIT] = { "unit", 'u', CTL_OPERAND_KIND, NULL,
			       "with --record: the operand is a systemd unit" },
	},
	.run = run,
};

