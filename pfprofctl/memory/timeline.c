// SPDX-License-Identifier: GPL-2.0
#include "timeline.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "ctl.h"
#include "logscan.h"
#include "plot/gnuplot.h"
#include "series.h"

/* The rates' bins: finer than a picture of 1000 pixels would show. */
#define TIMELINE_BINS 1000

/* The owner's pages out and read back, and their stall, in bins of width_ns. */
struct timeline_bins {
	const struct memory_timeline *t;
	uint64_t width_ns;
	struct {
		uint64_t out, read, stall_ns;
	} bin[TIMELINE_BINS];
};

static bool owned(const struct refault_owner *o, const struct log_page *pg)
{
	return o->target ? pg->target == o->target : !pg->target && pg->pid == o->pid;
}

static void bin_line(char *line, void *ctx)
{
	struct timeline_bins *b = ctx;
	const struct memory_timeline *t = b->t;
	struct log_page pg;
	size_t i;

	if (line[0] == '#' || !logformat_parse_page(line, &pg) || !owned(t->owner, &pg) ||
	    logformat_file_event(pg.event) || pg.wall_ns < t->from_ns || pg.wall_ns > t->to_ns)
		return;
	i = (size_t)((pg.wall_ns - t->from_ns) / b->width_ns);
	if (i >= TIMELINE_BINS)
		i = TIMELINE_BINS - 1;
	if (pg.event == MP3_SWAP_OUT) {
		b->bin[i].out += pg.pages;
		return;
	}
	if (pg.event & MP3_SWAP_READ)
		b->bin[i].read += pg.pages;
	b->bin[i].stall_ns += pg.stall_ns;
}

/* "unix_s out/s read/s stall_ms/s" per bin. */
static int write_rates(const char *path, const struct timeline_bins *b)
{
	const double width_s = (double)b->width_ns / 1e9;
	FILE *f = fopen(path, "we");

	if (!f)
		return -errno;
	for (size_t i = 0; i < TIMELINE_BINS; i++)
		fprintf(f, "%.3f %.1f %.1f %.3f\n",
			(double)(b->t->from_ns + i * b->width_ns) / 1e9,
			(double)b->bin[i].out / width_s, (double)b->bin[i].read / width_s,
			(double)b->bin[i].stall_ns / 1e6 / width_s);
	return fclose(f) ? -errno : 0;
}

/* "unix_s MiB" per page read back with a distance, in the window. */
static int write_distances(const char *path, const struct memory_timeline *t)
{
	const struct refault_owner *o = t->owner;
	FILE *f = fopen(path, "we");

	if (!f)
		return -errno;
	for (size_t i = 0; i < o->nr_refaults; i++)
		fprintf(f, "%.6f %.3f\n", (double)o->refaults[i].at_ns / 1e9,
			ctl_pages_mib(o->refaults[i].distance));
	/* gnuplot refuses a plot of an empty file: a point outside the range. */
	if (!o->nr_refaults)
		fprintf(f, "%.6f -1\n", (double)t->from_ns / 1e9);
	return fclose(f) ? -errno : 0;
}

static void plot_file(FILE *f, const char *path, const char *using, const char *style,
		      const char *title)
{
	fputs("'", f);
	gnuplot_quote(f, path);
	fprintf(f, "' using %s with %s title '", using, style);
	gnuplot_quote(f, title);
	fputs("'", f);
}

/*
 * The drawing's data files: rates and distances from the pages log, series
 * (series.h) from the memory log, with points when the owner has a cgroup there.
 */
struct timeline_files {
	char rates[PATH_MAX], distances[PATH_MAX], series[PATH_MAX];
	size_t series_points;
};

/* Pages per second: the owner's swap traffic, and its cgroup's file refaults. */
static void plot_rates(FILE *f, const struct timeline_files *in)
{
	fputs("set ylabel 'pages per second'\nset yrange [0:*]\nplot ", f);
	plot_file(f, in->rates, "1:2", "steps lw 2", "sent to swap");
	fputs(", ", f);
	plot_file(f, in->rates, "1:3", "steps lw 2", "read back");
	if (in->series_points) {
		fputs(", ", f);
		plot_file(f, in->series, "1:4", "steps lw 2",
			  "file pages refaulted (memory.stat workingset_refault_file)");
	}
	fputc('\n', f);
}

/* Each page's refault distance, against the 90 % line and the cgroup's memory and limit. */
static void plot_distances(FILE *f, const struct timeline_files *in,
			   const struct memory_timeline *t)
{
	fputs("set ylabel 'MiB'\nplot ", f);
	plot_file(f, in->distances, "1:2", "points pt 7 ps 0.4",
		  "a page read back: its refault distance");
	fprintf(f, ", %.3f with lines lw 2 dt 2 title '90 %% of them below: the memory that keeps "
		"them in'", (double)t->needs_bytes / (1 << 20));
	if (in->series_points) {
		fputs(", ", f);
		plot_file(f, in->series, "1:3", "steps lw 2", "memory.max");
		fputs(", ", f);
		plot_file(f, in->series, "1:2", "steps lw 1", "memory.current");
	}
	fputc('\n', f);
}

static int write_script(const char *path, const struct timeline_files *in, const char *out,
			const char *temp, const struct memory_timeline *t)
{
	const bool cgroup = in->series_points > 0;
	FILE *f = fopen(path, "we");

	if (!f)
		return -errno;
	gnuplot_set_output(f, ctl_picture_of(out) == CTL_PICTURE_SVG, 1100, cgroup ? 1200 : 900,
			   temp);
	fprintf(f, "set multiplot layout %d,1 title '", cgroup ? 4 : 3);
	gnuplot_quote(f, t->label);
	fputs(": its paging (UTC)'\nset xdata time\nset timefmt '%s'\nset format x '%H:%M:%S'\n"
	      "set grid\nset key top left\nset lmargin 12\n", f);
	fprintf(f, "set xrange ['%.3f':'%.3f']\n", (double)t->from_ns / 1e9,
		(double)t->to_ns / 1e9);
	plot_rates(f, in);
	plot_distances(f, in, t);
	fputs("set ylabel 'swap-in stall (ms per s)'\nplot ", f);
	plot_file(f, in->rates, "1:4", "steps lw 2", "the faulting threads' stall");
	fputc('\n', f);
	if (cgroup) {
		fputs("set ylabel 'memory.pressure (% of the time)'\nset yrange [0:100]\nplot ", f);
		plot_file(f, in->series, "1:6", "steps lw 2", "some of its tasks stalled");
		fputs(", ", f);
		plot_file(f, in->series, "1:7", "steps lw 2", "all of its tasks stalled");
		fputc('\n', f);
	}
	fputs("unset multiplot\n", f);
	return fclose(f) ? -errno : 0;
}

/* What one drawing of a timeline needs, for gnuplot_draw()'s callback. */
struct timeline_drawing {
	const struct pfprof_config *config;
	const char *out;
	const struct memory_timeline *t;
};

static int write_inputs(const char *dir, const char *temp, char *script, void *ctx)
{
	const struct timeline_drawing *d = ctx;
	const struct memory_timeline *t = d->t;
	struct timeline_bins *b = calloc(1, sizeof(*b));
	struct timeline_files in = { .series_points = 0 };
	int err;

	if (!b)
		return -ENOMEM;
	b->t = t;
	b->width_ns = (t->to_ns - t->from_ns) / TIMELINE_BINS + 1;
	snprintf(in.rates, sizeof(in.rates), "%s/rates", dir);
	snprintf(in.distances, sizeof(in.distances), "%s/distances", dir);
	snprintf(in.series, sizeof(in.series), "%s/series", dir);
	snprintf(script, PATH_MAX, "%s/timeline.gp", dir);
	err = logscan_forward(d->config->log_dir, LOGKIND_PAGES, d->config->keep, bin_line, b);
	if (!err)
		err = write_rates(in.rates, b);
	if (!err)
		err = write_distances(in.distances, t);
	/* A process's owner has no cgroup of its own in the memory log. */
	if (!err && t->owner->target)
		err = memory_series_write(d->config->log_dir, d->config->keep, t->owner->target,
					  t->from_ns, t->to_ns, in.series, &in.series_points);
	if (!err)
		err = write_script(script, &in, d->out, temp, t);
	free(b);
	return err;
}

int memory_timeline_draw(const struct pfprof_config *config, const char *out,
			 const struct memory_timeline *t)
{
	struct timeline_drawing d = { .config = config, .out = out, .t = t };

	return gnuplot_draw(out, "/tmp/pfprof-timeline.XXXXXX", write_inputs, &d);
}
