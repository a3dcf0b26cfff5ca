// SPDX-License-Identifier: GPL-2.0
/*
 * pfprofctl heatmap --record: DAMON's picture of which memory a process
 * keeps using, a snapshot a second into a heatmap log (heatmaplog.h). Run
 * by root, like perf record: DAMON's sysfs files are root's, and pfprofd
 * runs as its own user with /sys read-only (docs/damon.md). Without
 * --record: the log drawn by gnuplot (heatmapdata.h), time across and the
 * mapped address ranges up.
 */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "atomicfile.h"
#include "clock.h"
#include "ctl.h"
#include "damon.h"
#include "gnuplot.h"
#include "heatmapdata.h"
#include "heatmaplog.h"
#include "logformat.h"
#include "plotprocs.h"

enum { OPT_RECORD, OPT_SECONDS, OPT_OUTPUT, OPT_TAKE_DAMON };

#define SNAPSHOT_INTERVAL_NS 1000000000ULL
/* The address axis's rows: finer than a PNG of 800 pixels would show. */
#define DRAW_ROWS 400
/* Bands named on the axis: those of at least 1/DRAW_LABEL_SHARE of it. */
#define DRAW_LABEL_SHARE 100

static volatile sig_atomic_t stop_signal;

static void on_stop_signal(int sig)
{
	stop_signal = sig;
}

/* /proc/<pid>/<file>'s whole text (free() it); NULL with errno set. */
static char *read_proc_file(pid_t pid, const char *file)
{
	char path[64], *text = NULL;
	size_t size = 0;
	FILE *f, *out;
	int c;

	snprintf(path, sizeof(path), "/proc/%d/%s", (int)pid, file);
	f = fopen(path, "re");
	if (!f)
		return NULL;
	out = open_memstream(&text, &size);
	if (!out) {
		fclose(f);
		return NULL;
	}
	while ((c = getc(f)) != EOF)
		putc(c, out);
	c = ferror(f) ? errno : 0;
	fclose(f);
	if (fclose(out) || c) {
		free(text);
		errno = c ?: ENOMEM;
		return NULL;
	}
	return text;
}

/*
 * Whether pid is a process DAMON can watch: one with an address space. A
 * kernel thread has none (its maps file is empty): EINVAL.
 */
static int check_process(pid_t pid, char *comm, size_t size)
{
	char *text = read_proc_file(pid, "comm");
	int err;

	if (!text) {
		err = -errno;
		ctl_error(err == -ENOENT ? -ESRCH : err, "process %d", (int)pid);
		return PFPROF_EXIT_FAILED;
	}
	snprintf(comm, size, "%.*s", (int)strcspn(text, "\n"), text);
	free(text);
	text = read_proc_file(pid, "maps");
	err = !text ? -errno : !*text ? -EINVAL : 0;
	free(text);
	if (err) {
		ctl_error(err, "process %d (%s)%s", (int)pid, comm,
			  err == -EINVAL ? " is a kernel thread: it has no address space" : "");
		return PFPROF_EXIT_FAILED;
	}
	return -1;
}

/*
 * DAMON for us: the kernel has it, no kdamond of its sysfs interface is on
 * (someone else's: left alone), and damon_stat is off, or turned off if
 * allowed (*stat_taken then). -1 to go on, else the exit status.
 */
static int take_damon(bool may_take_stat, bool *stat_taken)
{
	int err = damon_check(DAMON_ADMIN), stat;

	*stat_taken = false;
	if (err == -ENOENT) {
		ctl_error(0, "this kernel has no DAMON (CONFIG_DAMON is not set, or no "
			  "CONFIG_DAMON_SYSFS): fault maps only (pfprofctl where)");
		return PFPROF_EXIT_FAILED;
	}
	if (err == -EBUSY) {
		ctl_error(err, "DAMON: a kdamond of %s is on, someone else's; it is left alone",
			  DAMON_ADMIN);
		return PFPROF_EXIT_FAILED;
	}
	if (err) {
		ctl_error(err, "%s", DAMON_ADMIN);
		return PFPROF_EXIT_FAILED;
	}
	stat = damon_stat_enabled(DAMON_STAT_ENABLED);
	if (stat <= 0)
		return -1;
	if (!may_take_stat) {
		ctl_error(-EBUSY, "DAMON is held by damon_stat, which this kernel starts at boot");
		ctl_hint("--take-damon turns damon_stat off while recording, and on again after");
		return PFPROF_EXIT_FAILED;
	}
	err = damon_stat_set(DAMON_STAT_ENABLED, 0);
	if (err) {
		ctl_error(err, "turning damon_stat off (%s)", DAMON_STAT_ENABLED);
		return PFPROF_EXIT_FAILED;
	}
	*stat_taken = true;
	return -1;
}

static void give_back_damon(bool stat_taken)
{
	int err = damon_stop(DAMON_ADMIN);

	if (err)
		ctl_error(err, "stopping DAMON's kdamond (%s/kdamonds/0/state)", DAMON_ADMIN);
	if (stat_taken) {
		err = damon_stat_set(DAMON_STAT_ENABLED, 1);
		if (err)
			ctl_error(err, "turning damon_stat on again (%s)", DAMON_STAT_ENABLED);
	}
}

/*
 * One snapshot into the log, with the mappings if they changed; -ESRCH
 * once pid exited. *empty: DAMON tried no region however often asked.
 */
static int record_snapshot(FILE *log, pid_t pid, char **last_maps, bool *empty)
{
	uint64_t wall_ns = clock_ns(CLOCK_REALTIME);
	struct damon_region *regions;
	char *maps;
	size_t count;
	int err = damon_snapshot(DAMON_ADMIN, &regions, &count);

	if (err)
		return err;
	*empty = !count;
	maps = read_proc_file(pid, "maps");
	if (maps && (!*last_maps || strcmp(maps, *last_maps))) {
		err = heatmap_log_maps(log, wall_ns, maps);
		free(*last_maps);
		*last_maps = maps;
	} else {
		free(maps);
	}
	if (!err)
		err = heatmap_log_regions(log, wall_ns, regions, count);
	free(regions);
	if (!err && fflush(log))
		err = -errno;
	return err;
}

/*
 * A snapshot a second from a second after DAMON started, until seconds
 * have passed (0: no limit), pid exits, or a signal. Not at once: right
 * after "on" the scheme has been applied to no region yet, and the first
 * snapshot was empty (seen in a fresh run on 6.12).
 */
static int record(FILE *log, const char *log_path, pid_t pid, uint64_t seconds)
{
	uint64_t start = clock_ns(CLOCK_MONOTONIC), next = start + SNAPSHOT_INTERVAL_NS;
	unsigned long snapshots = 0, empty_snapshots = 0;
	char *maps = NULL;
	int err = 0;

	while (!stop_signal && (!seconds || next - start <= seconds * SNAPSHOT_INTERVAL_NS)) {
		struct timespec wake = { .tv_sec = next / 1000000000ULL,
					 .tv_nsec = next % 1000000000ULL };
		bool empty;

		if (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &wake, NULL))
			continue;
		err = record_snapshot(log, pid, &maps, &empty);
		if (err)
			break;
		snapshots++;
		empty_snapshots += empty;
		if (isatty(STDERR_FILENO))
			fprintf(stderr, "\rpfprofctl heatmap: %lu snapshots of PID %d in %s", snapshots,
				(int)pid, log_path);
		next += SNAPSHOT_INTERVAL_NS;
	}
	if (isatty(STDERR_FILENO) && snapshots)
		fputc('\n', stderr);
	free(maps);
	if (err && err != -ESRCH) {
		ctl_error(err, snapshots ? "%s, after %lu snapshots" : "%s", log_path, snapshots);
		return PFPROF_EXIT_FAILED;
	}
	if (err)
		printf("process %d exited: %lu snapshots in %s\n", (int)pid, snapshots, log_path);
	else
		printf("%lu snapshots of process %d in %s\n", snapshots, (int)pid, log_path);
	if (empty_snapshots)
		printf("%lu of them empty: DAMON tried no region in %d updates (its kdamond was "
		       "behind: a busy CPU)\n", empty_snapshots, DAMON_SNAPSHOT_TRIES);
	return PFPROF_EXIT_OK;
}

/* The default log of pid: heatmap-<pid>.log in the configured log_dir; false if too long. */
static bool log_of(const struct ctl *ctl, pid_t pid, char *buf, size_t size)
{
	if (snprintf(buf, size, "%s/heatmap-%d.log", ctl->config.log_dir, (int)pid) < (int)size)
		return true;
	ctl_error(-ENAMETOOLONG, "%s/heatmap-%d.log", ctl->config.log_dir, (int)pid);
	return false;
}

static int record_command(const struct ctl *ctl, const struct ctl_call *call)
{
	const struct damon_attrs attrs = DAMON_ATTRS_DEFAULT;
	struct sigaction stop = { .sa_handler = on_stop_signal };
	char default_log[PATH_MAX], comm[32];
	const char *log_path = call->option[OPT_OUTPUT].string;
	bool stat_taken;
	int status, err;
	FILE *log;
	pid_t pid;

	if (!ctl_parse_pid(call->operands[0], &pid))
		return ctl_usage_error(&ctl_heatmap_command, "'%s' is not a PID",
				       call->operands[0]);
	status = check_process(pid, comm, sizeof(comm));
	if (status >= 0)
		return status;
	if (!log_path) {
		if (!log_of(ctl, pid, default_log, sizeof(default_log)))
			return PFPROF_EXIT_FAILED;
		log_path = default_log;
	}
	status = take_damon(call->option[OPT_TAKE_DAMON].set, &stat_taken);
	if (status >= 0)
		return status;
	sigaction(SIGINT, &stop, NULL);
	sigaction(SIGTERM, &stop, NULL);
	log = fopen(log_path, "we");
	if (!log) {
		ctl_error(-errno, "%s", log_path);
		give_back_damon(stat_taken);
		return PFPROF_EXIT_FAILED;
	}
	err = damon_start(DAMON_ADMIN, pid, &attrs);
	if (err)
		ctl_error(err, "starting DAMON on process %d (%s/kdamonds/0)", (int)pid,
			  DAMON_ADMIN);
	else if ((err = heatmap_log_header(log, pid, comm, &attrs)))
		ctl_error(err, "%s", log_path);
	status = err ? PFPROF_EXIT_FAILED : record(log, log_path, pid,
						   call->option[OPT_SECONDS].number);
	if (fclose(log) && !status) {
		ctl_error(-errno, "%s", log_path);
		status = PFPROF_EXIT_FAILED;
	}
	give_back_damon(stat_taken);
	return status;
}

/* name as a single-quoted gnuplot string's inside: quotes doubled. */
static void gnuplot_quote(FILE *f, const char *name)
{
	for (; *name; name++)
		fputs(*name == '\'' ? "''" : (char[]){ *name, '\0' }, f);
}

/* "12 MiB", "4 KiB". */
static void format_bytes(char *buf, size_t size, uint64_t bytes)
{
	const char *unit;
	double v = ctl_scale_bytes(bytes, &unit);

	snprintf(buf, size, v < 10 && bytes >= 1024 ? "%.1f %s" : "%.0f %s", v, unit);
}

/* A band's name on the axis: the file's base name, or what kind of memory. */
static const char *band_label(const struct heatmap_band *b)
{
	const char *slash = strrchr(b->name, '/');

	return !b->name[0] ? "[anon]" : slash && slash[1] ? slash + 1 : b->name;
}

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
		format_bytes(size, sizeof(size), b->end - b->start);
		fprintf(f, "%s'", first ? "" : ", ");
		gnuplot_quote(f, band_label(b));
		fprintf(f, " (%s)' %.2f", size, (b->row_from + b->row_to) / 2);
		first = false;
	}
	fputs(")\n", f);
	for (size_t i = 1; i < d->nr_bands; i++)
		fprintf(f, "set arrow from graph 0, first %.2f to graph 1, first %.2f nohead "
			"lc rgb 'gray60' lw 0.5 front\n", d->bands[i].row_from, d->bands[i].row_from);
}

/* The cells with a value, as boxes: "x y dx dy accesses", x in seconds from the first snapshot. */
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
				fprintf(f, "%.3f %.1f %.3f 0.5 %.2f\n", (from + to) / 2, r + 0.5,
					(to - from) / 2, d->cells[t * d->rows + r]);
	}
	return fclose(f) ? -errno : 0;
}

/* What one picture is drawn from, and into. */
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

static void write_map_panel(FILE *f, const struct drawing *g)
{
	const struct heatmap_data *d = g->d;
	uint64_t samples = d->sample_us ? d->aggr_us / d->sample_us : 0;
	char mapped[16];

	format_bytes(mapped, sizeof(mapped), d->mapped);
	fprintf(f, "set tmargin at screen %.2f\nset bmargin at screen 0.08\n",
		g->nr_rates > 0 ? 0.68 : 0.92);
	fprintf(f, "set xlabel 'time since the first snapshot (s)'\n"
		"set ylabel 'mapped address ranges, gaps left out (%s in all)'\n"
		"set cblabel 'accesses found per aggregation (%" PRIu64 " ms: %" PRIu64
		" samples)'\n", mapped, d->aggr_us / 1000, samples);
	fprintf(f, "set cbrange [0:%" PRIu64 "]\nset yrange [0:%zu]\n", samples ? samples : 1,
		d->rows);
	fputs("set palette defined (0 '#000010', 1 '#301080', 2 '#c03060', 3 '#f89030', "
	      "4 '#ffffa0')\nset style fill solid 1.0 noborder\n", f);
	write_axis(f, d);
	fputs("plot '", f);
	gnuplot_quote(f, g->cells);
	fputs("' using 1:2:3:4:5 with boxxyerror lc palette\n", f);
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
	fprintf(f, "set terminal %s size 1200,800 noenhanced\nset output '",
		g->svg ? "svg" : "pngcairo");
	gnuplot_quote(f, g->out);
	fprintf(f, "'\nset multiplot title 'PID %d (", (int)d->pid);
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

/* Draws g into its output, with what config's per-process logs say: 0, or the failure reported. */
static int draw(const struct ctl *ctl, struct drawing *g)
{
	char dir[] = "/tmp/pfprof-heatmap.XXXXXX", script[sizeof(dir) + 16];
	const double from_s = (double)g->d->times[0] / 1e9;
	int err, rc = 0;

	if (!mkdtemp(dir)) {
		ctl_error(-errno, "creating %s", dir);
		return -1;
	}
	snprintf(g->cells, sizeof(g->cells), "%s/cells", dir);
	snprintf(g->rates, sizeof(g->rates), "%s/rates", dir);
	snprintf(script, sizeof(script), "%s/heatmap.gp", dir);
	g->width_s = width_of(g->d);
	g->nr_rates = plotprocs_rates(&ctl->config, g->d->pid, g->d->comm, from_s,
				      from_s + g->width_s, g->rates);
	if (g->nr_rates < 0)
		ctl_error(g->nr_rates, "the faults of PID %d in %s/" LOGFORMAT_PROCS_FILE
			  ": the map alone", (int)g->d->pid, ctl->config.log_dir);
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

static bool is_svg(const char *path)
{
	const char *dot = strrchr(path, '.');

	return dot && !strcmp(dot, ".svg");
}

/* The log named by the operand: a PID's in log_dir, or a file. */
static int open_log(const struct ctl *ctl, const char *operand, char *path, size_t size,
		    FILE **log)
{
	pid_t pid;

	if (!ctl_parse_pid(operand, &pid))
		snprintf(path, size, "%s", operand);
	else if (!log_of(ctl, pid, path, size))
		return PFPROF_EXIT_FAILED;
	*log = fopen(path, "re");
	if (*log)
		return -1;
	ctl_error(-errno, "%s", path);
	if (errno == ENOENT && ctl_parse_pid(operand, &pid))
		ctl_hint("record one first: pfprofctl heatmap --record %d", (int)pid);
	return PFPROF_EXIT_FAILED;
}

static int draw_command(const struct ctl *ctl, const struct ctl_call *call)
{
	char path[PATH_MAX], default_out[64];
	const char *out = call->option[OPT_OUTPUT].string;
	struct heatmap_data d;
	struct atomic_file image;
	struct drawing g;
	unsigned long line;
	int status, err;
	FILE *log;

	if (call->option[OPT_SECONDS].set || call->option[OPT_TAKE_DAMON].set)
		return ctl_usage_error(&ctl_heatmap_command, "%s goes with --record",
				       call->option[OPT_SECONDS].set ?
				       call->option[OPT_SECONDS].typed :
				       call->option[OPT_TAKE_DAMON].typed);
	status = open_log(ctl, call->operands[0], path, sizeof(path), &log);
	if (status >= 0)
		return status;
	err = heatmap_data_read(log, DRAW_ROWS, &d, &line);
	fclose(log);
	if (err) {
		if (err == -EPROTO)
			ctl_error(0, "%s:%lu: not a line of a heatmap log", path, line);
		else
			ctl_error(err, "%s: %s", path, err == -ENODATA ?
				  "no snapshot or no mapping in it" : "reading it");
		return PFPROF_EXIT_FAILED;
	}
	if (!out) {
		snprintf(default_out, sizeof(default_out), "heatmap-%d.png", (int)d.pid);
		out = default_out;
	}
	err = atomic_file_begin(&image, out);
	g = (struct drawing){ .d = &d, .out = image.temp, .svg = is_svg(out) };
	if (err) {
		ctl_error(err, "writing %s", out);
	} else if (draw(ctl, &g)) {
		atomic_file_abort(&image);
		err = -1;
	} else if ((err = atomic_file_commit(&image, gnuplot_new_file_mode(), false))) {
		ctl_error(err, "writing %s", out);
	} else {
		printf("%s: %zu snapshots of PID %d (%s), %zu mapped ranges, %s\n", out, d.nr_times,
		       (int)d.pid, d.comm, d.nr_bands, g.nr_rates > 0 ?
		       "its faults from pfprofd's log above" :
		       "no faults of it in pfprofd's log then (not profiled?)");
	}
	heatmap_data_free(&d);
	return err ? PFPROF_EXIT_FAILED : PFPROF_EXIT_OK;
}

static int run(struct ctl *ctl, const struct ctl_call *call)
{
	return call->option[OPT_RECORD].set ? record_command(ctl, call) :
					      draw_command(ctl, call);
}


const struct ctl_command ctl_heatmap_command = {
	.name = "heatmap", .operands = "--record <pid> | <pid> | <log>",
	.min_operands = 1, .max_operands = 1,
	.missing_operands = "which PID?",
	.summary = "Record and draw which memory a process keeps using (DAMON)",
	.details = "With --record, as root: the kernel's DAMON (Linux 6.2 or later, built with\n"
		   "CONFIG_DAMON_SYSFS) watches the process's address space, sampling every\n"
		   "5 ms, 10 to 1000 regions; a snapshot of its regions and how often each was\n"
		   "accessed goes into the log every second, with the process's mappings\n"
		   "whenever they change, until the process exits, --seconds have passed, or\n"
		   "Ctrl-C. DAMON's own cost is bounded by its number of regions, not by the\n"
		   "process's size. A kernel that starts damon_stat at boot (Debian's 7.x)\n"
		   "keeps DAMON for itself: --take-damon turns it off while recording and on\n"
		   "again after.\n"
		   "Without --record: the log of the PID (in the log directory) or the log\n"
		   "given, drawn with gnuplot: time across, the mapped address ranges up with\n"
		   "the gaps between them left out, each named, and how often DAMON found\n"
		   "each part accessed as the colour.\n",
	.options = {
		[OPT_RECORD] = { "record", 'r', CTL_STRING, NULL, "record the process into its log" },
		[OPT_SECONDS] = { "seconds", 's', CTL_COUNT, "N",
				  "with --record: stop after N seconds (default: at its exit)" },
		[OPT_OUTPUT] = { "output", 'o', CTL_STRING, "FILE",
				 "the log (--record; default <log_dir>/heatmap-<pid>.log), or "
				 "the picture (default heatmap-<pid>.png; FILE.svg: SVG)" },
		[OPT_TAKE_DAMON] = { "take-damon", 0, CTL_STRING, NULL,
				     "with --record: turn damon_stat off, and on after" },
	},
	.run = run,
};
