// SPDX-License-Identifier: GPL-2.0
/*
 * pfprofctl physical: which owners the machine's page frames are charged to
 * now (the paper's physical memory view), and with --watch how that
 * changes, for administrators: the kernel's /proc/kpagecgroup and
 * /proc/kpageflags are root's.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ctl.h"
#include "draw.h"
#include "plot/gnuplot.h"
#include "scan.h"
#include "screen.h"

enum { OPT_OUTPUT, OPT_ROWS, OPT_WATCH, OPT_DELAY };

#define ROWS_DEFAULT 20
/* A scan reads 16 bytes a page frame: about a second for 25 GiB. */
#define WATCH_DELAY_MS 10000
#define HEADER_LINES 2

/* An owner's pages at the first scan of a watch: what its CHANGE is counted from. */
struct physical_start {
	char label[sizeof(((struct physical_owner *)0)->label)];
	uint64_t pages;
};

/* The last scan, its owners in order, and for --watch the first scan's. */
struct physical_view {
	const struct ctl *ctl;
	size_t rows, frames_per_block;
	bool watching;
	struct physical_scan s;
	uint32_t *order;		/* the owners with pages, most first */
	size_t n;
	struct physical_start *start;	/* NULL until the first scan of a watch */
	size_t nr_start;
	const char *what;		/* the file a failed scan failed on */
};

static const struct physical_scan *sorted_scan;

/* Most pages first; the pages of no cgroup among them. */
static int by_pages(const void *a, const void *b)
{
	const struct physical_owner *x = &sorted_scan->owners[*(const uint32_t *)a];
	const struct physical_owner *y = &sorted_scan->owners[*(const uint32_t *)b];

	return x->pages > y->pages ? -1 : x->pages < y->pages;
}

/* The owners with pages, most first, into v->order. */
static int order_owners(struct physical_view *v)
{
	const struct physical_scan *s = &v->s;

	free(v->order);
	v->order = calloc(s->nr_owners + 1, sizeof(*v->order));
	if (!v->order)
		return -ENOMEM;
	v->n = 0;
	for (size_t i = 0; i < s->nr_owners; i++)
		if (s->owners[i].pages)
			v->order[v->n++] = (uint32_t)i;
	sorted_scan = s;
	qsort(v->order, v->n, sizeof(*v->order), by_pages);
	return 0;
}

/* The owners' pages now, as the start of a watch. */
static int keep_start(struct physical_view *v)
{
	v->start = calloc(v->n + 1, sizeof(*v->start));
	if (!v->start)
		return -ENOMEM;
	for (size_t i = 0; i < v->n; i++) {
		const struct physical_owner *o = &v->s.owners[v->order[i]];

		memcpy(v->start[i].label, o->label, sizeof(o->label));
		v->start[i].pages = o->pages;
	}
	v->nr_start = v->n;
	return 0;
}

/* How many pages o gained since the watch began (negative: lost). */
static int64_t change_of(const struct physical_view *v, const struct physical_owner *o)
{
	for (size_t i = 0; i < v->nr_start; i++)
		if (!strcmp(v->start[i].label, o->label))
			return (int64_t)o->pages - (int64_t)v->start[i].pages;
	return (int64_t)o->pages;
}

/* Scans the frames anew, the targets file read again (targets come and go). */
static int take(void *ctx)
{
	struct physical_view *v = ctx;
	struct target_list targets = { 0 };
	int err;

	physical_scan_free(&v->s);
	target_list_read(v->ctl->config.targets_file, &targets, NULL, NULL);
	err = physical_scan(&v->s, &physical_system, &targets, v->frames_per_block, &v->what);
	target_list_free(&targets);
	if (!err)
		err = order_owners(v);
	if (!err && v->watching && !v->start)
		err = keep_start(v);
	return err;
}

static void print_row(const struct physical_view *v, const struct physical_owner *o,
		      struct screen_size size, const char *eol)
{
	char change[24] = "";

	if (v->watching)
		snprintf(change, sizeof(change), " %+10.1f", (double)change_of(v, o) *
			 ctl_pages_mib(1));
	screen_put_line(size.cols, eol, "%10.1f%s %10.1f %10.1f %10.1f %10.1f %6.1f%%  %s",
			ctl_pages_mib(o->pages), change, ctl_pages_mib(o->kind[PHYSICAL_ANON]),
			ctl_pages_mib(o->kind[PHYSICAL_FILE]), ctl_pages_mib(o->kind[PHYSICAL_SHMEM]),
			ctl_pages_mib(o->kind[PHYSICAL_SWAPCACHE]),
			100.0 * (double)o->kind[PHYSICAL_ACTIVE] / (double)o->pages, o->label);
}

static void print_table(void *ctx, struct screen_size size, const char *eol)
{
	const struct physical_view *v = ctx;
	const struct physical_scan *s = &v->s;
	size_t rows = v->rows;
	uint64_t rest = 0;

	/* On a terminal: the rows that fit, the last line left empty. */
	if (size.rows && size.rows < HEADER_LINES + 2 + rows)
		rows = size.rows - HEADER_LINES - 2;
	screen_put_line(size.cols, eol, "%" PRIu64 " page frames (%.1f GiB), by the memory cgroup "
			"each is charged to (the target holding it, else its first two levels), "
			"most first, in MiB%s:", s->frames, ctl_pages_mib(s->frames) / 1024,
			v->watching ? "; CHANGE since the watch began" : "");
	screen_put_line(size.cols, eol, "%10s%s %10s %10s %10s %10s %7s  %s", "MEMORY",
			v->watching ? "     CHANGE" : "", "ANON", "FILE", "SHMEM", "SWAPCACHE",
			"ACTIVE%", "OWNER");
	for (size_t i = 0; i < v->n; i++) {
		if (i >= rows)
			rest += s->owners[v->order[i]].pages;
		else
			print_row(v, &s->owners[v->order[i]], size, eol);
	}
	if (v->n > rows)
		screen_put_line(size.cols, eol, "%10.1f %*s  (%zu others)", ctl_pages_mib(rest),
				v->watching ? 65 : 54, "", v->n - rows);
}

/* Says why a scan failed: memory, or the file it read (root's files want root). */
static void take_failed(const struct physical_view *v, int err)
{
	if (err == -ENOMEM) {
		ctl_error(err, "scanning the page frames");
		return;
	}
	ctl_error(err, "reading %s", v->what);
	if (err == -EACCES || err == -EPERM)
		ctl_hint("the kernel lets only root (CAP_SYS_ADMIN) read which memory cgroup each "
			 "page frame is charged to: run it with sudo");
}

/* --watch and --delay, checked, into v and *delay_ms: false after a usage error. */
static bool watch_options(const struct ctl_call *call, struct physical_view *v, int *delay_ms)
{
	v->watching = call->option[OPT_WATCH].set;
	if (v->watching && call->option[OPT_OUTPUT].set) {
		ctl_usage_error(&ctl_physical_command, "%s goes without --watch",
				call->option[OPT_OUTPUT].typed);
		return false;
	}
	if (!call->option[OPT_DELAY].set)
		return true;
	*delay_ms = screen_parse_delay(call->option[OPT_DELAY].string);
	if (*delay_ms < 0 || !v->watching) {
		ctl_usage_error(&ctl_physical_command, !v->watching ? "%s goes with --watch" :
				"%s wants seconds from 0.05 to 3600, not '%s'",
				call->option[OPT_DELAY].typed, call->option[OPT_DELAY].string);
		return false;
	}
	return true;
}

/* The view scanned once, then printed or drawn into output: an exit status. */
static int show_once(struct physical_view *v, const char *output)
{
	int err = take(v);

	if (err) {
		take_failed(v, err);
		return PFPROF_EXIT_FAILED;
	}
	if (!output) {
		print_table(v, (struct screen_size){ 0 }, "");
		return PFPROF_EXIT_OK;
	}
	if (physical_draw(output, &v->s, v->order))
		return PFPROF_EXIT_FAILED;
	printf("%s: %" PRIu64 " page frames of %zu owners\n", output, v->s.frames, v->n);
	return PFPROF_EXIT_OK;
}

static int run(struct ctl *ctl, const struct ctl_call *call)
{
	const char *output = call->option[OPT_OUTPUT].set ? call->option[OPT_OUTPUT].string : NULL;
	const long frames = sysconf(_SC_PHYS_PAGES);
	struct physical_view v = {
		.ctl = ctl,
		.rows = call->option[OPT_ROWS].set ? call->option[OPT_ROWS].number : ROWS_DEFAULT,
		/* Blocks of frames for the picture: its grid's cells, for the memory there is. */
		.frames_per_block = (size_t)(frames > 0 ? frames : 1) /
				    (PHYSICAL_COLUMNS * PHYSICAL_ROWS) + 1,
	};
	int delay_ms = WATCH_DELAY_MS, err = 0, status = PFPROF_EXIT_OK;

	if (!ctl_picture_option_ok(&ctl_physical_command, call, OPT_OUTPUT) ||
	    !watch_options(call, &v, &delay_ms))
		return PFPROF_EXIT_USAGE;
	if (!v.watching) {
		status = show_once(&v, output);
	} else if (!screen_watch(take, print_table, &v, HEADER_LINES + 2, delay_ms, &err)) {
		ctl_error(0, "physical --watch draws on a terminal: run it in one");
		status = PFPROF_EXIT_FAILED;
	} else if (err) {
		take_failed(&v, err);
		status = PFPROF_EXIT_FAILED;
	}
	physical_scan_free(&v.s);
	free(v.order);
	free(v.start);
	return status;
}

const struct ctl_command ctl_physical_command = {
	.name = "physical", .operands = "", .max_operands = 0,
	.summary = "Show whose pages the machine's memory holds now (root)",
	.details = "Every page frame of the machine, read from the kernel's /proc/kpagecgroup\n"
		   "and /proc/kpageflags (root's: CAP_SYS_ADMIN), summed by the memory cgroup\n"
		   "it is charged to: the unit or cgroup of the targets file that holds that\n"
		   "cgroup, else the cgroup's first two levels (system.slice/ssh.service), and\n"
		   "the frames of no cgroup (the kernel's own, free memory). A row each, most\n"
		   "first: its memory, of it anonymous, page cache, shared memory, also in the\n"
		   "swap cache, and the share on the active lists. --watch scans again every\n"
		   "10 s (a scan reads 16 bytes a frame: about 1 s of a CPU for 25 GiB) and\n"
		   "adds CHANGE, what each owner gained or lost since the watch began; q\n"
		   "quits. --output draws the frames in order instead, each cell a block of\n"
		   "them coloured by its owner.\n",
	.options = {
		[OPT_OUTPUT] = { "output", 'o', CTL_STRING, "FILE",
				 "draw the frames by owner into FILE, .png or .svg" },
		[OPT_ROWS] = { "rows", 'n', CTL_COUNT, "N",
			       "the first N owners, the rest summed (default 20)" },
		[OPT_WATCH] = { "watch", 'w', CTL_STRING, NULL, "redraw live, like top, until q" },
		[OPT_DELAY] = { "delay", 'd', CTL_STRING, "SECS",
				"with --watch: the interval, 0.05 to 3600 s (default 10)" },
	},
	.run = run,
};
