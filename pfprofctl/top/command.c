// SPDX-License-Identifier: GPL-2.0
/*
 * pfprofctl top: a live view of the registered processes, from the ring's
 * per-process records, drawn on screen.h's terminal.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "ctl.h"
#include "procstatus.h"
#include "psi.h"
#include "screen.h"
#include "stalls.h"
#include "targets.h"
#include "data.h"
#include "json.h"

enum { OPT_DELAY, OPT_ITERATIONS, OPT_BATCH, OPT_JSON };

#define HEADER_LINES 3

/*
 * The measures' columns after PID and COMMAND: header, width, and what
 * --help says of it. One list for both: a column shown is a column explained.
 */
#define TOP_COLUMNS(X) \
	X("MINOR/s", 9, "minor faults per second (the page was in memory)") \
	X("MAJOR/s", 9, "major faults per second (read from disk or swap)") \
	X("CPU%", 6, "CPU time, in percent of one CPU") \
	X("STALL%", 7, "time its threads waited for memory (swap-ins, refaults\n" \
	  "    of pages evicted in use, reclaim, compaction), in percent of the\n" \
	  "    interval; - while the kernel's delay accounting is off") \
	X("IOWAIT%", 7, "time they waited for block I/O, swap-in reads included") \
	X("FAULT%", 6, "time its faults took in the kernel's fault handler, for a\n" \
	  "    process added with --latency; - for the others")

#define TOP_COLUMN_HEADER(name, width, help) { name, width },
#define TOP_COLUMN_HELP(name, width, help) "  " name ": " help "\n"

static const struct {
	const char *name;
	int width;
} top_columns[] = { TOP_COLUMNS(TOP_COLUMN_HEADER) };
#define MODULE_RECORDS_PARAM "/sys/module/mp3/parameters/records"

/* "some 0.12% full 0.00%" (avg10) of /proc/pressure/memory, or "n/a" without PSI. */
static void memory_pressure(char *buf, size_t size)
{
	struct psi_memory psi;

	if (psi_read(PSI_MEMORY_PATH, &psi))
		snprintf(buf, size, "n/a");
	else
		snprintf(buf, size, "some %.2f%% full %.2f%%", psi.some_avg10, psi.full_avg10);
}

/* What the keys choose: t groups the processes by target. */
struct view {
	bool grouped;
	bool json;			/* --json: a line of JSON a snapshot, grouped */
	const char *targets_file;	/* its targets name the groups */
	/* Sleeping processes have no records: the registered ones are read here. */
	const char *status_file;	/* NULL: every process has records */
	struct target_list targets;	/* read at each snapshot while grouped */
	int targets_error;		/* reading them; the groups are then named by number */
};

/* The header of the rows: PID, COMMAND, then top_columns. */
static void put_column_names(struct screen_size size, const char *eol)
{
	char line[128];
	int len = snprintf(line, sizeof(line), "%7s %-15s", "PID", "COMMAND");

	for (size_t i = 0; i < sizeof(top_columns) / sizeof(top_columns[0]); i++)
		len += snprintf(line + len, sizeof(line) - (size_t)len, " %*s", top_columns[i].width,
				top_columns[i].name);
	screen_put_line(size.cols, eol, "%s", line);
}

/* A process's row, or with name a group's (p its sum): the rates, then its CPU. */
static void put_row(const struct top_snapshot *snap, struct screen_size size, const char *eol,
		    const struct proc_entry *p, const char *name)
{
	char who[32];
	char stall[16] = "-", io[16] = "-", fault[16] = "-";

	if (name)
		snprintf(who, sizeof(who), "%-23.23s", name);
	else
		snprintf(who, sizeof(who), "%7d %-15.15s", (int)p->tgid, p->comm);
	if (snap->stalls) {
		snprintf(stall, sizeof(stall), "%.1f", top_stall_percent(snap, p));
		snprintf(io, sizeof(io), "%.1f", top_io_wait_percent(snap, p));
	}
	if (p->timed)
		snprintf(fault, sizeof(fault), "%.1f", top_fault_percent(snap, p));
	screen_put_line(size.cols, eol, "%s %9.1f %9.1f %6.1f %7s %7s %6s", who,
			top_rate(snap, p->minor), top_rate(snap, p->major), top_cpu_percent(snap, p),
			stall, io, fault);
}

/* Each group's row, "label (processes)", with its processes beneath; at most rows lines. */
static void put_groups(const struct top_snapshot *snap, struct screen_size size, const char *eol,
		       const struct view *view, size_t rows)
{
	for (size_t i = 0; i < snap->nr_groups && rows; i++) {
		const struct top_group *g = &snap->groups[i];
		char label[PATH_MAX + 32], name[PATH_MAX + 64];

		if (g->sum.target)
			target_label(&view->targets, g->sum.target, label, sizeof(label));
		else
			snprintf(label, sizeof(label), "no target");
		snprintf(name, sizeof(name), "%s (%zu)", label, g->count);
		put_row(snap, size, eol, &g->sum, name);
		rows--;
		for (size_t j = 0; j < g->count && rows; j++, rows--)
			put_row(snap, size, eol, &snap->procs[g->first + j], NULL);
	}
}

/* The snapshot as text, within size; a table row per process, and per group, that fits. */
static void print_snapshot(const struct top_snapshot *snap, struct screen_size size,
			   const char *eol, const struct view *view)
{
	size_t rows = snap->nr_procs + snap->nr_groups;
	char psi[64], lost[64] = "", groups[PATH_MAX + 96] = "";

	/* The last line stays empty: a newline there would scroll the header away. */
	if (size.rows && size.rows - HEADER_LINES - 1 < rows)
		rows = size.rows - HEADER_LINES - 1;
	memory_pressure(psi, sizeof(psi));
	if (snap->missed || snap->lost)
		snprintf(lost, sizeof(lost), ", lost %llu samples %llu records",
			 (unsigned long long)snap->missed, (unsigned long long)snap->lost);
	if (snap->groups)
		snprintf(groups, sizeof(groups), " in %zu targets%s%s%s", snap->nr_groups,
			 view->targets_error ? " (" : "", view->targets_error ? view->targets_file : "",
			 view->targets_error ? ": unreadable)" : "");
	screen_put_line(size.cols, eol, "pfprof top: %zu processes%s, samples %llu..%llu over %.2f s%s",
		 snap->nr_procs, groups, (unsigned long long)snap->first,
		 (unsigned long long)snap->end - 1, snap->seconds, lost);
	screen_put_line(size.cols, eol, "sys: %.0f majflt/s  swap-in %.0f/s  swap-out %.0f/s  mem PSI %s",
		 top_rate(snap, snap->pgmajfault), top_rate(snap, snap->pswpin),
		 top_rate(snap, snap->pswpout), psi);
	/* 73 columns: a man page's example, indented, fits in 80. */
	put_column_names(size, eol);
	if (snap->groups) {
		put_groups(snap, size, eol, view, rows);
		return;
	}
	for (size_t i = 0; i < rows; i++)
		put_row(snap, size, eol, &snap->procs[i], NULL);
}

/* Whether mp3 was loaded with records=off: its samples then name no records. */
static bool module_records_off(void)
{
	FILE *param = fopen(MODULE_RECORDS_PARAM, "re");
	int value = param ? fgetc(param) : EOF;

	if (param)
		fclose(param);
	return value == 'N';
}

/*
 * Grouped, the targets file is read again for each snapshot: targets come and
 * go; so is the module's list of registered processes when it has no
 * records of those that sleep.
 */
static int take(struct top_reader *r, struct top_snapshot *snap, struct view *view)
{
	struct pidlist registered = { 0 };
	int err = view->status_file ? procstatus_list(view->status_file, &registered) : 0;

	if (!err)
		err = top_take(r, snap, view->status_file ? &registered : NULL);
	pidlist_free(&registered);
	if (!err)
		snap->stalls = stalls_in_ring(r->ring->hdr) && delayacct_read(DELAYACCT_SYSCTL) == 1;

	if (!err && view->grouped) {
		target_list_free(&view->targets);
		view->targets_error = target_list_read(view->targets_file, &view->targets, NULL, NULL);
		err = top_group(snap);
	}
	if (err)
		ctl_error(err, "top");
	return err;
}

/* Snapshots as text (a blank line between) or JSON lines, until iterations or a signal. */
static int batch(struct top_reader *r, int delay_ms, uint64_t iterations, struct view *view)
{
	struct top_snapshot snap;
	bool printed = true;

	for (uint64_t i = 0; i < iterations && !screen_interrupted && printed; i++) {
		screen_wait_key(delay_ms, false);
		/* A signal while waiting: stop with what was printed. */
		if (screen_interrupted)
			break;
		if (take(r, &snap, view))
			return PFPROF_EXIT_FAILED;
		if (view->json) {
			printed = top_print_json(&snap, &view->targets);
		} else {
			if (i)
				printf("\n");
			print_snapshot(&snap, (struct screen_size){ 0 }, "", view);
		}
		top_snapshot_free(&snap);
		printed = !fflush(stdout) && printed;
	}
	return printed ? PFPROF_EXIT_OK : PFPROF_EXIT_FAILED;
}

/* -n N, else until a signal with -b or --json, else one snapshot (no terminal). */
static uint64_t batch_iterations(const struct ctl_call *call)
{
	if (call->option[OPT_ITERATIONS].set)
		return call->option[OPT_ITERATIONS].number;
	return call->option[OPT_BATCH].set || call->option[OPT_JSON].set ? UINT64_MAX : 1;
}

/* What screen_draw() prints: a snapshot and its view. */
struct drawn {
	const struct top_snapshot *snap;
	const struct view *view;
};

static void print_drawn(void *ctx, struct screen_size size, const char *eol)
{
	const struct drawn *d = ctx;

	print_snapshot(d->snap, size, eol, d->view);
}

static int interactive(struct top_reader *r, int delay_ms, struct view *view)
{
	struct top_snapshot snap = { 0 };
	struct drawn drawn = { &snap, view };
	int status = PFPROF_EXIT_OK, key = 0;

	if (!screen_enter())
		return batch(r, delay_ms, 1, view);
	while (!screen_interrupted && key != 'q') {
		if (!screen_resized) {
			top_snapshot_free(&snap);
			if (take(r, &snap, view)) {
				status = PFPROF_EXIT_FAILED;
				break;
			}
		}
		screen_resized = 0;
		screen_draw(print_drawn, &drawn, HEADER_LINES + 2);
		key = screen_wait_key(delay_ms, true);
		if (key == 't')
			view->grouped = !view->grouped;
	}
	top_snapshot_free(&snap);
	screen_leave();
	return status;
}

static int run(struct ctl *ctl, const struct ctl_call *call)
{
	struct view view = { .targets_file = ctl->config.targets_file };
	int delay_ms = 1000, status, fd, err;
	struct top_reader reader;
	struct mp3ring ring;

	if (call->option[OPT_DELAY].set) {
		delay_ms = screen_parse_delay(call->option[OPT_DELAY].string);
		if (delay_ms < 0)
			return ctl_usage_error(&ctl_top_command, "%s wants seconds from 0.05 to "
					       "3600, not '%s'", call->option[OPT_DELAY].typed,
					       call->option[OPT_DELAY].string);
	}
	fd = open(ctl->config.device, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return ctl_module_error(-errno, ctl->config.device);
	err = mp3ring_map(&ring, fd);
	if (!err && (!ring.records || module_records_off()))
		err = -EPROTO;
	if (!err)
		err = top_reader_init(&reader, &ring);
	if (!err && ring.hdr->flags & MP3_RING_ACTIVE_ONLY)
		view.status_file = ctl->config.status_file;
	if (err) {
		status = ctl_module_error(err, ctl->config.device);
		if (err == -EPROTO)
			ctl_hint(ring.records ? "mp3 was loaded with records=off: modprobe -r mp3 && "
				 "modprobe mp3 records=on" :
				 "top needs the per-process records of mp3 version 2");
		mp3ring_unmap(&ring);
		close(fd);
		return status;
	}
	screen_catch_signals();
	view.json = view.grouped = call->option[OPT_JSON].set;
	if (call->option[OPT_ITERATIONS].set || call->option[OPT_BATCH].set || view.json ||
	    !isatty(STDOUT_FILENO) || !isatty(STDIN_FILENO))
		status = batch(&reader, delay_ms, batch_iterations(call), &view);
	else
		status = interactive(&reader, delay_ms, &view);
	target_list_free(&view.targets);
	top_reader_free(&reader);
	mp3ring_unmap(&ring);
	close(fd);
	return status;
}

const struct ctl_command ctl_top_command = {
	.name = "top", .operands = "",
	.summary = "Show the profiled processes live, by major faults",
	.details = "One row per registered process, sorted by major faults, then minor,\n"
		   "over each interval (a target's row, its processes summed, when grouped):\n"
		   TOP_COLUMNS(TOP_COLUMN_HELP)
		   "A process's threads add up: four waiting all along show 400.\n"
		   "Above them: the system's major faults, swap-in and swap-out (pages/s)\n"
		   "and memory pressure (PSI avg10). t groups the processes by target: a row\n"
		   "per target (unit:NAME, cgroup:PATH, tree:PID, comm:NAME, or \"no target\"\n"
		   "for those added by PID), its number of processes and their summed rates,\n"
		   "with its processes beneath; t again ungroups. q quits. With -b, text\n"
		   "snapshots until -n or a signal; without a terminal, one (or -n).\n"
		   "--json: a line of JSON per snapshot, processes and targets (fields in\n"
		   "pfprofctl(8)), until -n or a signal.\n",
	.options = {
		[OPT_DELAY] = { "delay", 'd', CTL_STRING, "SECS",
				"the interval, 0.05 to 3600 s (default 1)" },
		[OPT_ITERATIONS] = { "iterations", 'n', CTL_COUNT, "N",
				     "print N snapshots, then exit" },
		[OPT_BATCH] = { "batch", 'b', CTL_STRING, NULL,
				"snapshots as text, not on screen, until -n or a signal" },
		[OPT_JSON] = { "json", 0, CTL_STRING, NULL,
			       "snapshots as JSON lines, until -n or a signal" },
	},
	.run = run,
};
