// SPDX-License-Identifier: GPL-2.0
#include "draw.h"

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "atomicfile.h"
#include "ctljson.h"
#include "data.h"
#include "plot/gnuplot.h"
#include "logfile.h"
#include "logformat.h"
#include "options.h"
#include "plot/procs.h"

/* The address axis's rows: finer than a PNG of 800 pixels would show. */
#define DRAW_ROWS 400

/*
 * The bands' names and sizes as y tics at their middles, those with room
 * for a name (all, unless there are so many that some got less than their
 * minimum); their borders as lines.
 */
static void write_axis(FILE *f, const struct heatmap_data *d)
{
	bool first = true;

	fputs("set ytics (", f);
	for (size_t i = 0; i < d->nr_bands; i++) {
		const struct heatmap_band *b = &d->bands[i];
		char size[16];

		if ((b->row_to - b->row_from) * HEATMAP_MIN_BAND_SHARE < d->rows * 0.999)
			continue;
		ctl_format_bytes(size, sizeof(size), b->end - b->start);
		fprintf(f, "%s'", first ? "" : ", ");
		gnuplot_quote(f, heatmap_band_label(b));
		fprintf(f, " (%s)' %.2f", size, (b->row_from + b->row_to) / 2);
		first = false;
	}
	fputs(")\n", f);
	for (size_t i = 1; i < d->nr_bands; i++)
		fprintf(f, "set arrow from graph 0, first %.2f to graph 1, first %.2f nohead "
			"lc rgb 'gray60' lw 0.5 front\n", d->bands[i].row_from, d->bands[i].row_from);
}

/*
 * The cells with a value, as boxes: "x y x_from x_to y_from y_to accesses",
 * x in seconds from the first snapshot. Each box reaches a third of a cell
 * past its right and upper edges, under the boxes drawn after it: boxes
 * that only touch leave hairlines between them in an anti-aliased PNG,
 * which drew the map as stripes.
 */
static int write_cells(const char *path, const struct heatmap_data *d)
{
	FILE *f = fopen(path, "we");
	double t0 = (double)d->times[0] / 1e9;

	if (!f)
		return -errno;
	for (size_t t = 0; t < d->nr_times; t++) {
		double from = (double)d->times[t] / 1e9 - t0;
		double to = t + 1 < d->nr_times ? (double)d->times[t + 1] / 1e9 - t0 : from + 1;

		for (size_t r = 0; r < d->rows; r++)
			if (d->cells[t * d->rows + r] >= 0)
				fprintf(f, "%.3f %.1f %.3f %.3f %zu %.2f %.2f\n", from, r + 0.5,
					from, to + (to - from) / 3, r, r + 1.33,
					d->cells[t * d->rows + r]);
	}
	return fclose(f) ? -errno : 0;
}

/* What one picture is drawn from, and into. */
/* Where a drawing's inputs are written, mkdtemp()'s template. */
#define WORK_DIR "/tmp/pfprof-heatmap.XXXXXX"

struct drawing {
	const struct heatmap_data *d;
	const char *out;	/* the temporary file */
	bool svg;		/* else a PNG */
	char cells[64];		/* write_cells()'s file */
	char rates[64];		/* plotprocs_rates()'s, if it found any */
	int nr_rates;
	double width_s;		/* of the time axis */
};

/* The time the snapshots span, the last one's column as wide as the one before it. */
static double width_of(const struct heatmap_data *d)
{
	double last = (double)(d->times[d->nr_times - 1] - d->times[0]) / 1e9;

	return last + (d->nr_times > 1 ? (double)(d->times[d->nr_times - 1] -
						 d->times[d->nr_times - 2]) / 1e9 : 1);
}

static void write_rates_panel(FILE *f, const struct drawing *g)
{
	fputs("set tmargin at screen 0.92\nset bmargin at screen 0.72\n"
	      "set ylabel 'faults per second'\nset format x ''\nset key outside right top\n"
	      "plot '", f);
	gnuplot_quote(f, g->rates);
	fputs("' using 1:2 with steps lw 1.5 title 'minor', '' using 1:3 with steps lw 1.5 "
	      "title 'major'\nset format x '% h'\nunset key\n", f);
}

/*
 * The top of the colour scale: the most accesses a cell had, rounded up,
 * at least 1. Not every sample of an aggregation: a process that touches
 * its memory in short bursts (the case studies' work, a second's pause
 * after each) is found accessed by a few samples, and on a scale to 20
 * its map was black.
 */
static double colour_top(const struct heatmap_data *d)
{
	double most = 1;

	for (size_t i = 0; i < d->nr_times * d->rows; i++)
		if (d->cells[i] > most)
			most = d->cells[i];
	return (double)(uint64_t)(most + 0.999);
}

static void write_map_panel(FILE *f, const struct drawing *g)
{
	const struct heatmap_data *d = g->d;
	uint64_t samples = d->sample_us ? d->aggr_us / d->sample_us : 0;
	char mapped[16];

	ctl_format_bytes(mapped, sizeof(mapped), d->mapped);
	fprintf(f, "set tmargin at screen %.2f\nset bmargin at screen 0.08\n",
		g->nr_rates > 0 ? 0.68 : 0.92);
	fprintf(f, "set xlabel 'time since the first snapshot (s)'\n"
		"set ylabel 'mapped address ranges, gaps left out (%s in all)'\n"
		"set cblabel 'accesses found per aggregation (%" PRIu64 " ms: %" PRIu64
		" samples)'\n", mapped, d->aggr_us / 1000, samples);
	fprintf(f, "set cbrange [0:%.0f]\nset yrange [0:%zu]\n", colour_top(d), d->rows);
	fputs("set palette defined (0 '#000010', 1 '#301080', 2 '#c03060', 3 '#f89030', "
	      "4 '#ffffa0')\nset style fill solid 1.0 noborder\n", f);
	write_axis(f, d);
	fputs("plot '", f);
	gnuplot_quote(f, g->cells);
	fputs("' using 1:2:3:4:5:6:7 with boxxyerror lc palette\n", f);
}

/*
 * The gnuplot script: the process's fault rates in a panel above, if
 * pfprofd logged it then, and the map, on one time axis.
 */
static int write_script(const char *path, const struct drawing *g)
{
	const struct heatmap_data *d = g->d;
	time_t first = (time_t)(d->times[0] / 1000000000ULL);
	char when[32];
	FILE *f = fopen(path, "we");

	if (!f)
		return -errno;
	strftime(when, sizeof(when), "%Y-%m-%d %H:%M:%S UTC", gmtime(&first));
	gnuplot_set_output(f, g->svg, 1200, 800, g->out);
	fprintf(f, "set multiplot title 'PID %d (", (int)d->pid);
	gnuplot_quote(f, d->comm);
	fprintf(f, "): the accesses DAMON found, %zu snapshots from %s'\n", d->nr_times, when);
	fprintf(f, "set lmargin at screen 0.2\nset rmargin at screen 0.84\n"
		"set xrange [0:%.3f]\n", g->width_s);
	if (g->nr_rates > 0)
		write_rates_panel(f, g);
	write_map_panel(f, g);
	fputs("unset multiplot\n", f);
	return fclose(f) ? -errno : 0;
}

/*
 * g's faults per second from config's per-process logs, into dir/rates; a
 * failure leaves the map alone (said).
 */
static void find_rates(const struct ctl *ctl, struct drawing *g, const char *dir)
{
	const double from_s = (double)g->d->times[0] / 1e9;

	snprintf(g->rates, sizeof(g->rates), "%s/rates", dir);
	g->width_s = width_of(g->d);
	g->nr_rates = plotprocs_rates(&ctl->config, g->d->pid, g->d->comm, from_s,
				      from_s + g->width_s, g->rates);
	if (g->nr_rates < 0)
		ctl_error(g->nr_rates, "the faults of PID %d in %s/" LOGFORMAT_PROCS_FILE
			  ": the map alone", (int)g->d->pid, ctl->config.log_dir);
}

/* A directory for gnuplot's input, in dir: 0, or -1 (said). */
static int make_work_dir(char dir[static sizeof(WORK_DIR)])
{
	strcpy(dir, WORK_DIR);
	if (mkdtemp(dir))
		return 0;
	ctl_error(-errno, "creating %s", dir);
	return -1;
}

/* Draws g into its output, with what config's per-process logs say: 0, or the failure reported. */
static int draw(const struct ctl *ctl, struct drawing *g)
{
	char dir[sizeof(WORK_DIR)], script[sizeof(dir) + 16];
	int err, rc = 0;

	if (make_work_dir(dir))
		return -1;
	snprintf(g->cells, sizeof(g->cells), "%s/cells", dir);
	snprintf(script, sizeof(script), "%s/heatmap.gp", dir);
	find_rates(ctl, g, dir);
	err = write_cells(g->cells, g->d);
	if (!err)
		err = write_script(script, g);
	if (err)
		ctl_error(err, "writing gnuplot's input in %s", dir);
	else if ((rc = gnuplot_run(NULL, script)))
		gnuplot_failed(rc, script);
	gnuplot_remove_dir(dir);
	return err || rc ? -1 : 0;
}

/* Only whether the logs have g's faults, for --json without a picture. */
static int count_rates(const struct ctl *ctl, struct drawing *g)
{
	char dir[sizeof(WORK_DIR)];

	if (make_work_dir(dir))
		return -1;
	find_rates(ctl, g, dir);
	gnuplot_remove_dir(dir);
	return 0;
}

/* The log an operand names, opened: -1 to go on, else the exit status (said). */
static int open_log(const struct ctl *ctl, const char *operand, char *path, size_t size,
		    FILE **log)
{
	pid_t pid;

	if (!heatmap_log_named(ctl, operand, path, size))
		return PFPROF_EXIT_FAILED;
	*log = fopen(path, "re");
	if (*log)
		return -1;
	ctl_error(-errno, "%s", path);
	if (errno == ENOENT && ctl_parse_pid(operand, &pid))
		ctl_hint("record one first: pfprofctl heatmap --record %d", (int)pid);
	return PFPROF_EXIT_FAILED;
}

/* What was drawn (picture: the file, or NULL for none), as one JSON object (pfprofctl(8)). */
static bool print_summary_json(const char *picture, const struct heatmap_data *d, bool faults)
{
	struct json_object *o = ctl_json_object(), *bands = ctl_json_array();
	char hex[24];

	if (picture)
		ctl_json_add_string(o, "picture", picture);
	else
		ctl_json_add(o, "picture", NULL);
	ctl_json_add_int(o, "pid", d->pid);
	ctl_json_add_string(o, "comm", d->comm);
	ctl_json_add_uint(o, "snapshots", d->nr_times);
	ctl_json_add_double(o, "first_unix_time", d->times[0] / 1e9);
	ctl_json_add_double(o, "last_unix_time", d->times[d->nr_times - 1] / 1e9);
	ctl_json_add_uint(o, "mapped_bytes", d->mapped);
	ctl_json_add_bool(o, "faults_from_log", faults);
	for (size_t i = 0; i < d->nr_bands; i++) {
		struct json_object *band = ctl_json_object();

		ctl_json_add_string(band, "name", d->bands[i].name);
		snprintf(hex, sizeof(hex), "%llx", (unsigned long long)d->bands[i].start);
		ctl_json_add_string(band, "start", hex);
		snprintf(hex, sizeof(hex), "%llx", (unsigned long long)d->bands[i].end);
		ctl_json_add_string(band, "end", hex);
		ctl_json_add(bands, NULL, band);
	}
	ctl_json_add(o, "mapped_ranges", bands);
	return ctl_json_print(o);
}

/* d drawn into out (atomically): 0, or -1 (said). */
static int draw_picture(const struct ctl *ctl, struct drawing *g, const char *out)
{
	struct atomic_file image;
	int err = atomic_file_begin(&image, out);

	if (err) {
		ctl_error(err, "writing %s", out);
		return -1;
	}
	g->out = image.temp;
	g->svg = ctl_picture_of(out) == CTL_PICTURE_SVG;
	if (draw(ctl, g)) {
		atomic_file_abort(&image);
		return -1;
	}
	err = atomic_file_commit(&image, gnuplot_new_file_mode(), false);
	if (err) {
		ctl_error(err, "writing %s", out);
		return -1;
	}
	return 0;
}

int heatmap_draw_command(const struct ctl *ctl, const struct ctl_call *call)
{
	char path[PATH_MAX], default_out[64];
	const char *out = call->option[OPT_OUTPUT].string;
	bool json = call->option[OPT_JSON].set;
	struct heatmap_data d;
	struct drawing g;
	unsigned long line;
	int status, err;
	FILE *log;

	status = open_log(ctl, call->operands[0], path, sizeof(path), &log);
	if (status >= 0)
		return status;
	err = heatmap_data_read(log, DRAW_ROWS, &d, &line);
	fclose(log);
	if (err) {
		heatmap_log_failed(path, err, line);
		return PFPROF_EXIT_FAILED;
	}
	/* --json alone writes JSON alone: a picture only where --output asks for one. */
	if (!out && !json) {
		snprintf(default_out, sizeof(default_out), "heatmap-%d.png", (int)d.pid);
		out = default_out;
	}
	g = (struct drawing){ .d = &d };
	err = out ? draw_picture(ctl, &g, out) : count_rates(ctl, &g);
	if (!err && json)
		err = print_summary_json(out, &d, g.nr_rates > 0) ? 0 : -EIO;
	else if (!err)
		printf("%s: %zu snapshots of PID %d (%s), %zu mapped ranges, %s\n", out, d.nr_times,
		       (int)d.pid, d.comm, d.nr_bands, g.nr_rates > 0 ?
		       "its faults from pfprofd's log above" :
		       "no faults of it in pfprofd's log then (not profiled?)");
	heatmap_data_free(&d);
	return err ? PFPROF_EXIT_FAILED : PFPROF_EXIT_OK;
}
