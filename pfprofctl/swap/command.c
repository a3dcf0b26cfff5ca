// SPDX-License-Identifier: GPL-2.0
/*
 * pfprofctl swap: the swap areas as the pages logs leave them, the paper's
 * sector view: whose pages are out now, for how long, and how many of an
 * owner's pages come back.
 */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "ctl.h"
#include "draw.h"
#include "memory/data.h"
#include "plot/gnuplot.h"
#include "screen.h"
#include "targets.h"

enum { OPT_WATCH, OPT_DELAY, OPT_OUTPUT };

#define HEADER_LINES 2

/* One owner's pages out now: how many, their ages, the swap areas they are in. */
struct swap_row {
	const struct refault_owner *o;
	uint64_t *ages_ns;		/* of the pages out now, sorted */
	size_t out_now, cap;
	uint64_t devices;		/* a bit per swap area index below 64 */
};

struct swap_view {
	const struct ctl *ctl;
	struct memory_log log;
	struct target_list targets;
	struct swap_row *rows;		/* by the replay's owner index */
	uint64_t now_ns, out_now;
	int err;			/* -ENOMEM while gathering */
};

static void add_out(const struct refault_slot *s, void *ctx)
{
	struct swap_view *v = ctx;
	struct swap_row *row = &v->rows[s->owner];
	uint64_t *grown;

	if (row->out_now == row->cap) {
		row->cap = row->cap ? 2 * row->cap : 64;
		grown = realloc(row->ages_ns, row->cap * sizeof(*grown));
		if (!grown) {
			v->err = -ENOMEM;
			return;
		}
		row->ages_ns = grown;
	}
	row->ages_ns[row->out_now++] = v->now_ns > s->out_ns ? v->now_ns - s->out_ns : 0;
	row->devices |= (s->key >> 48) < 64 ? 1ULL << (s->key >> 48) : 0;
	v->out_now++;
}

static int by_age(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static int by_out_now(const void *a, const void *b)
{
	const struct swap_row *x = a, *y = b;

	return x->out_now > y->out_now ? -1 : x->out_now < y->out_now;
}

static void free_view(struct swap_view *v)
{
	for (size_t i = 0; v->rows && i < v->log.replay.nr_owners; i++)
		free(v->rows[i].ages_ns);
	free(v->rows);
	v->rows = NULL;
	memory_log_free(&v->log);
	target_list_free(&v->targets);
}

/* Reads the logs anew into the view; 0 or -errno. */
static int take(void *ctx)
{
	struct swap_view *v = ctx;
	struct timespec now;
	int err;

	free_view(v);
	clock_gettime(CLOCK_REALTIME, &now);
	v->now_ns = (uint64_t)now.tv_sec * 1000000000ULL + (uint64_t)now.tv_nsec;
	v->out_now = 0;
	err = memory_log_read(&v->log, v->ctl->config.log_dir, v->ctl->config.keep, 0, false);
	if (err)
		return err;
	target_list_read(v->ctl->config.targets_file, &v->targets, NULL, NULL);
	v->rows = calloc(v->log.replay.nr_owners + 1, sizeof(*v->rows));
	if (!v->rows)
		return -ENOMEM;
	for (size_t i = 0; i < v->log.replay.nr_owners; i++)
		v->rows[i].o = &v->log.replay.owners[i];
	v->err = 0;
	refaults_for_each_out(&v->log.replay, add_out, v);
	for (size_t i = 0; i < v->log.replay.nr_owners; i++)
		qsort(v->rows[i].ages_ns, v->rows[i].out_now, sizeof(uint64_t), by_age);
	qsort(v->rows, v->log.replay.nr_owners, sizeof(*v->rows), by_out_now);
	return v->err;
}

/* "0", "0,1": the swap areas the row's pages are in. */
static void format_devices(char *buf, size_t size, uint64_t devices)
{
	size_t used = 0;

	buf[0] = '\0';
	for (int d = 0; d < 64 && used < size; d++)
		if (devices & (1ULL << d))
			used += (size_t)snprintf(buf + used, size - used, "%s%d", used ? "," : "", d);
}

/* "unit:x.service", "pid 42 (name)": the owner as the table and the picture name it. */
static void owner_label(const struct swap_view *v, const struct refault_owner *o, char *label,
			size_t size)
{
	if (o->target)
		target_label(&v->targets, o->target, label, size);
	else
		snprintf(label, size, "pid %u (%s)", o->pid, o->comm);
}

/* The share of the pages an owner sent out that came back, in %; -1 if it sent none. */
static double back_percent(const struct refault_owner *o)
{
	return o->out_pages ? 100.0 * (double)o->back_pages / (double)o->out_pages : -1;
}

static void print_row(const struct swap_view *v, const struct swap_row *row,
		      struct screen_size size, const char *eol)
{
	const struct refault_owner *o = row->o;
	uint64_t back = o->back_pages;
	char label[PATH_MAX + 32], median[24], oldest[24], devices[64], share[16] = "-";

	owner_label(v, o, label, sizeof(label));
	ctl_format_age(median, sizeof(median), row->ages_ns[row->out_now / 2]);
	ctl_format_age(oldest, sizeof(oldest), row->ages_ns[row->out_now - 1]);
	format_devices(devices, sizeof(devices), row->devices);
	if (o->out_pages)
		snprintf(share, sizeof(share), "%.1f%%", back_percent(o));
	screen_put_line(size.cols, eol, "%10zu %11s %11s %10" PRIu64 " %10" PRIu64 " %7s %-8s  %s",
			row->out_now, median, oldest, o->out_pages, back, share, devices, label);
}

static void print_table(void *ctx, struct screen_size size, const char *eol)
{
	const struct swap_view *v = ctx;
	size_t rows = 0;

	screen_put_line(size.cols, eol, "%" PRIu64 " pages of the owners added with --pages are "
			"out now, as the pages logs tell (BACK: the pages of theirs that came "
			"back, of those they sent out)", v->out_now);
	screen_put_line(size.cols, eol, "%10s %11s %11s %10s %10s %7s %-8s  %s", "OUT-NOW",
			"MEDIAN-AGE", "OLDEST", "SENT-OUT", "BACK", "BACK%", "AREAS", "OWNER");
	for (size_t i = 0; i < v->log.replay.nr_owners; i++) {
		if (!v->rows[i].out_now)
			continue;
		/* The last line stays empty: a newline there would scroll the header away. */
		if (size.rows && HEADER_LINES + rows + 1 >= size.rows)
			break;
		print_row(v, &v->rows[i], size, eol);
		rows++;
	}
}

/* The view's rows with pages out, drawn into out: an exit status. */
static int draw(const struct swap_view *v, const char *out)
{
	const size_t owners = v->log.replay.nr_owners;
	struct swap_drawn_owner *drawn = calloc(owners + 1, sizeof(*drawn));
	char (*labels)[PATH_MAX + 32] = calloc(owners + 1, sizeof(*labels));
	size_t n = 0;
	int status = PFPROF_EXIT_FAILED;

	if (!drawn || !labels) {
		ctl_error(-ENOMEM, "drawing %s", out);
		goto out;
	}
	for (size_t i = 0; i < owners && v->rows[i].out_now; i++, n++) {
		const struct refault_owner *o = v->rows[i].o;

		owner_label(v, o, labels[n], sizeof(labels[n]));
		drawn[n] = (struct swap_drawn_owner){
			.index = (uint32_t)(o - v->log.replay.owners), .label = labels[n],
			.out_now = v->rows[i].out_now, .back_percent = back_percent(o),
		};
	}
	if (!swap_draw(out, &v->log.replay, v->now_ns, drawn, n)) {
		printf("%s: the %" PRIu64 " pages out of %zu owner%s\n", out, v->out_now, n,
		       n == 1 ? "" : "s");
		status = PFPROF_EXIT_OK;
	}
out:
	free(drawn);
	free(labels);
	return status;
}

static int run(struct ctl *ctl, const struct ctl_call *call)
{
	struct swap_view v = { .ctl = ctl };
	bool watching = call->option[OPT_WATCH].set;
	const char *output = call->option[OPT_OUTPUT].set ? call->option[OPT_OUTPUT].string : NULL;
	int delay_ms = 1000, err = 0, status = PFPROF_EXIT_OK;

	if (output && watching)
		return ctl_usage_error(&ctl_swap_command, "%s goes without --watch",
				       call->option[OPT_OUTPUT].typed);
	if (!ctl_picture_option_ok(&ctl_swap_command, call, OPT_OUTPUT))
		return PFPROF_EXIT_USAGE;

	if (call->option[OPT_DELAY].set) {
		delay_ms = screen_parse_delay(call->option[OPT_DELAY].string);
		if (delay_ms < 0 || !watching)
			return ctl_usage_error(&ctl_swap_command, !watching ? "%s goes with --watch" :
					       "%s wants seconds from 0.05 to 3600, not '%s'",
					       call->option[OPT_DELAY].typed,
					       call->option[OPT_DELAY].string);
	}
	if (watching) {
		if (!screen_watch(take, print_table, &v, HEADER_LINES + 2, delay_ms, &err)) {
			ctl_error(0, "swap --watch draws on a terminal: run it in one");
			status = PFPROF_EXIT_FAILED;
		}
	} else {
		err = take(&v);
		if (!err && !v.out_now) {
			ctl_error(0, "no page of a process or target added with --pages is out in "
				  "%s/" LOGFORMAT_PAGES_FILE "*", ctl->config.log_dir);
			ctl_hint("pfprofctl add --pages traces a process's or target's pages to "
				 "swap and back, while pfprofd runs");
			status = PFPROF_EXIT_FAILED;
		} else if (!err && output) {
			status = draw(&v, output);
		} else if (!err) {
			print_table(&v, (struct screen_size){ 0 }, "");
		}
	}
	if (err) {
		memory_log_failed(ctl->config.log_dir, err);
		status = PFPROF_EXIT_FAILED;
	}
	free_view(&v);
	return status;
}

const struct ctl_command ctl_swap_command = {
	.name = "swap", .operands = "", .max_operands = 0,
	.summary = "Show whose pages are out in swap now, and for how long",
	.details = "From pfprofd's pages logs (pfprof-pages.log and its rotated files), of the\n"
		   "processes and targets added with pfprofctl add --pages: a row per owner\n"
		   "with pages out now (sent to swap, not yet back, as the logs tell), most\n"
		   "first: how many, the median and the oldest age, the pages it sent out and\n"
		   "those that came back in the logs (and their share: a share near 100 % is\n"
		   "memory it still uses), and the swap areas (swapon's order) they are in.\n"
		   "--watch redraws it every second; q quits. --output draws the pages out\n"
		   "instead: each at its slot and its age, coloured by owner, a panel per\n"
		   "swap area.\n",
	.options = {
		[OPT_WATCH] = { "watch", 'w', CTL_STRING, NULL, "redraw live, like top, until q" },
		[OPT_DELAY] = { "delay", 'd', CTL_STRING, "SECS",
				"with --watch: the interval, 0.05 to 3600 s (default 1)" },
		[OPT_OUTPUT] = { "output", 'o', CTL_STRING, "FILE",
				 "draw the pages out into FILE, .png or .svg" },
	},
	.run = run,
};
