// SPDX-License-Identifier: GPL-2.0
/* pfprofctl where: in which mappings a process or target takes its faults, from the faults logs. */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include <linux/mp3.h>

#include "ctl.h"
#include "ctljson.h"
#include "logformat.h"
#include "screen.h"
#include "targets.h"
#include "data.h"

enum { OPT_LAST, OPT_WATCH, OPT_DELAY, OPT_TREE, OPT_UNIT, OPT_CGROUP, OPT_COMM, OPT_USER,
       OPT_JSON };

#define HEADER_LINES 2
/* "cgroup " and a path. */
#define WHAT_MAX (PATH_MAX + 16)
#define WATCH_LAST_S 10.0	/* --watch's window without --last */

/* What one table shows: a process's or a target's mappings over a window of the logs. */
struct where_view {
	const struct ctl *ctl;
	pid_t pid;
	const char *kind;		/* a target's: "tree", "unit"...; NULL: the process pid */
	const char *name;		/* the target's, as given */
	uint32_t target;
	double last_s;			/* the window; 0: the whole log */
	struct where_table table;
};

/* "PID 42" or "unit nginx.service". */
static void format_what(char *buf, size_t size, const struct where_view *v)
{
	if (v->kind)
		snprintf(buf, size, "%s %s", v->kind, v->name);
	else
		snprintf(buf, size, "PID %d", (int)v->pid);
}

/* "1.5 MiB", "-" for unknown. */
static void format_size(char *buf, size_t size, uint64_t bytes)
{
	if (!bytes)
		snprintf(buf, size, "-");
	else
		ctl_format_bytes(buf, size, bytes);
}

/* A major fault is a read of the file on a file mapping, a swap-in on the others. */
static bool is_file(const struct where_row *r)
{
	return r->mapping == MP3_MAPPING_FILE;
}

/*
 * The time the faults timed took, in ms ("12.345"), and their mean in µs
 * ("1.23"): columns of fixed units, which line up; "-" when unknown.
 */
static void format_times(const struct where_time time[LATENCY_KINDS], char *total, char *mean,
			 size_t size)
{
	uint64_t ns, faults;
	bool known = where_time_total(time, &ns, &faults);

	snprintf(total, size, "-");
	snprintf(mean, size, "-");
	if (known)
		snprintf(total, size, "%.3f", (double)ns / 1e6);
	if (faults)
		snprintf(mean, size, "%.2f", (double)ns / 1e3 / (double)faults);
}

static void print_row(const struct where_table *t, const struct where_row *r,
		      struct screen_size size, const char *eol)
{
	double faults = (double)(t->minor + t->major);
	char bytes[24], start[20] = "-", total[32], mean[32];

	format_size(bytes, sizeof(bytes), r->size);
	format_times(r->time, total, mean, sizeof(total));
	/* A target's row adds up the mappings of that name of every process. */
	if (!t->target)
		snprintf(start, sizeof(start), "%llx", (unsigned long long)r->start);
	screen_put_line(size.cols, eol,
			"%9llu %9llu %8llu %8llu %5.1f%% %10s %8s %10s %-10s %12s  %s",
			(unsigned long long)r->major, (unsigned long long)r->minor,
			(unsigned long long)(is_file(r) ? 0 : r->major),
			(unsigned long long)(is_file(r) ? r->major : 0),
			faults ? 100.0 * (double)(r->minor + r->major) / faults : 0.0, total, mean,
			bytes, logformat_mapping_word(r->mapping), start, r->name);
}

/* "; 1234 faults timed: 12.345 ms" of a table whose time is known, else "". */
static void format_table_time(char *buf, size_t size, const struct where_table *t)
{
	uint64_t ns, faults;

	if (where_time_total(t->time, &ns, &faults))
		snprintf(buf, size, "; %llu faults timed: %.3f ms", (unsigned long long)faults,
			 (double)ns / 1e6);
	else
		buf[0] = '\0';
}

static void print_table(void *ctx, struct screen_size size, const char *eol)
{
	const struct where_view *v = ctx;
	const struct where_table *t = &v->table;
	char from[32], to[32], window[48], what[WHAT_MAX], comm[48], time[80];
	size_t rows = t->count;

	if (v->last_s)
		snprintf(window, sizeof(window), "the last %g s", v->last_s);
	else
		snprintf(window, sizeof(window), "the whole log");
	ctl_format_utc(from, sizeof(from), (uint64_t)(t->first_s * 1e9));
	ctl_format_utc(to, sizeof(to), (uint64_t)(t->last_s * 1e9));
	format_what(what, sizeof(what), v);
	if (v->kind)
		snprintf(comm, sizeof(comm), "%zu process%s", t->nr_pids,
			 t->nr_pids == 1 ? "" : "es");
	else
		snprintf(comm, sizeof(comm), "%s", t->comm);
	format_table_time(time, sizeof(time), t);
	if (t->lines)
		screen_put_line(size.cols, eol, "%s (%s), %s: %llu minor and %llu major faults "
				"in %zu mappings, %s to %s UTC%s", what, comm, window,
				(unsigned long long)t->minor, (unsigned long long)t->major,
				t->count, from, to, time);
	else
		screen_put_line(size.cols, eol, "%s, %s: no faults placed", what, window);
	screen_put_line(size.cols, eol, "%9s %9s %8s %8s %6s %10s %8s %10s %-10s %12s  %s",
			"MAJOR", "MINOR", "SWAP-IN", "READS", "SHARE", "TIME-MS", "MEAN-US", "SIZE",
			"KIND", "START", "MAPPING");
	/* The last line stays empty: a newline there would scroll the header away. */
	if (size.rows && size.rows - HEADER_LINES - 1 < rows)
		rows = size.rows - HEADER_LINES - 1;
	for (size_t i = 0; i < rows; i++)
		print_row(t, &t->rows[i], size, eol);
}

/*
 * Each kind's time in ns, exact (null when no line knew it), and the faults
 * timed: minor_time_ns, minor_timed_faults, major_...
 */
static void add_times_json(struct json_object *o, const struct where_time time[LATENCY_KINDS])
{
	for (int k = 0; k < LATENCY_KINDS; k++) {
		char key[32];

		snprintf(key, sizeof(key), "%s_time_ns", latency_kind_word(k));
		if (time[k].known)
			ctl_json_add_uint(o, key, time[k].ns);
		else
			ctl_json_add(o, key, NULL);
		snprintf(key, sizeof(key), "%s_timed_faults", latency_kind_word(k));
		ctl_json_add_uint(o, key, time[k].faults);
	}
}

static struct json_object *row_json(const struct where_table *t, const struct where_row *r)
{
	struct json_object *o = ctl_json_object();
	double faults = (double)(t->minor + t->major);
	char start[20];

	snprintf(start, sizeof(start), "%llx", (unsigned long long)r->start);
	ctl_json_add_string(o, "name", r->name);
	ctl_json_add_string(o, "kind", logformat_mapping_word(r->mapping));
	ctl_json_add_string(o, "start", t->target ? NULL : start);
	if (r->size && !t->target)
		ctl_json_add_uint(o, "size_bytes", r->size);
	else
		ctl_json_add(o, "size_bytes", NULL);
	ctl_json_add_uint(o, "major_faults", r->major);
	ctl_json_add_uint(o, "minor_faults", r->minor);
	ctl_json_add_uint(o, "swap_ins", is_file(r) ? 0 : r->major);
	ctl_json_add_uint(o, "file_reads", is_file(r) ? r->major : 0);
	ctl_json_add_double(o, "share_percent",
			    faults ? 100.0 * (double)(r->minor + r->major) / faults : 0.0);
	add_times_json(o, r->time);
	return o;
}

/* The table as one JSON object: what it is of, its window, its rows. */
static bool print_json(const struct where_view *v)
{
	const struct where_table *t = &v->table;
	struct json_object *o = ctl_json_object(), *rows = ctl_json_array();
	char target[WHAT_MAX];

	snprintf(target, sizeof(target), "%s:%s", v->kind ? v->kind : "", v->name ? v->name : "");
	if (v->kind)
		ctl_json_add(o, "pid", NULL);
	else
		ctl_json_add_int(o, "pid", v->pid);
	ctl_json_add_string(o, "target", v->kind ? target : NULL);
	ctl_json_add_string(o, "comm", v->kind ? NULL : t->comm);
	ctl_json_add_uint(o, "processes", t->nr_pids);
	if (v->last_s)
		ctl_json_add_double(o, "last_seconds", v->last_s);
	else
		ctl_json_add(o, "last_seconds", NULL);
	ctl_json_add_double(o, "first_unix_time", t->first_s);
	ctl_json_add_double(o, "last_unix_time", t->last_s);
	ctl_json_add_uint(o, "minor_faults", t->minor);
	ctl_json_add_uint(o, "major_faults", t->major);
	add_times_json(o, t->time);
	for (size_t i = 0; i < t->count; i++)
		ctl_json_add(rows, NULL, row_json(t, &t->rows[i]));
	ctl_json_add(o, "mappings", rows);
	return ctl_json_print(o);
}

/* Reads the window's lines into where_view ctx's table anew; 0 or -errno. */
static int take(void *ctx)
{
	struct where_view *v = ctx;
	const struct pfprof_config *c = &v->ctl->config;
	double since = v->last_s ? (double)time(NULL) - v->last_s : 0;
	int err;

	where_table_free(&v->table);
	v->table = (struct where_table){ .pid = v->pid, .target = v->target };
	err = where_read_logs(&v->table, c->log_dir, c->keep, since);
	where_sort(&v->table);
	return err;
}

static void take_failed(const struct where_view *v, int err)
{
	if (err == -EPROTO)
		ctl_error(0, "%s/" LOGFORMAT_FAULTS_FILE "* holds a file that is not a pfprof "
			  "faults log (its first line is not '" LOGFORMAT_FAULTS_MAGIC "N')",
			  v->ctl->config.log_dir);
	else
		ctl_error(err, "reading %s/" LOGFORMAT_FAULTS_FILE, v->ctl->config.log_dir);
}

static int watch(struct where_view *v, int delay_ms)
{
	int err;

	if (!screen_watch(take, print_table, v, HEADER_LINES + 2, delay_ms, &err)) {
		ctl_error(0, "where --watch draws on a terminal: run it in one");
		return PFPROF_EXIT_FAILED;
	}
	if (err)
		take_failed(v, err);
	return err ? PFPROF_EXIT_FAILED : PFPROF_EXIT_OK;
}

/* Seconds: a positive, finite number; -1 if not one. */
static double parse_seconds(const char *arg)
{
	char *end;
	double s;

	errno = 0;
	s = strtod(arg, &end);
	return errno || end == arg || *end || !isfinite(s) || s <= 0 ? -1 : s;
}

static int once(struct where_view *v, bool json)
{
	int err = take(v);

	if (err) {
		take_failed(v, err);
		return PFPROF_EXIT_FAILED;
	}
	if (!v->table.lines) {
		char what[WHAT_MAX];

		format_what(what, sizeof(what), v);
		ctl_error(0, "no faults of %s placed in %s%s/" LOGFORMAT_FAULTS_FILE "*", what,
			  v->last_s ? "the last seconds asked of " : "", v->ctl->config.log_dir);
		if (v->kind)
			ctl_hint("pfprofctl add --maps --%s %s places its processes' faults, "
				 "while pfprofd runs", v->kind, v->name);
		else
			ctl_hint("pfprofctl add --maps %d places its faults, while pfprofd runs",
				 (int)v->pid);
		return PFPROF_EXIT_FAILED;
	}
	if (json)
		return print_json(v) ? PFPROF_EXIT_OK : PFPROF_EXIT_FAILED;
	/* A write that fails is main()'s to say, as for every command. */
	print_table(v, (struct screen_size){ 0 }, "");
	return PFPROF_EXIT_OK;
}

/* The operand: a PID, or the target an option names; -1, or a usage error's status. */
static int parse_what(const struct ctl_call *call, struct where_view *v)
{
	static const struct ctl_operand_options opts = {
		.kind = { [TARGET_TREE] = OPT_TREE, [TARGET_UNIT] = OPT_UNIT,
			  [TARGET_CGROUP] = OPT_CGROUP, [TARGET_COMM] = OPT_COMM },
		.user = OPT_USER,
	};
	struct ctl_operand operand;
	int status = ctl_parse_operand(&ctl_where_command, call, &opts, &operand);

	v->pid = operand.pid;
	v->kind = operand.kind;
	v->name = operand.name;
	v->target = operand.target;
	return status;
}

static int run(struct ctl *ctl, const struct ctl_call *call)
{
	struct where_view v = { .ctl = ctl };
	bool watching = call->option[OPT_WATCH].set;
	int delay_ms = 1000, status;

	status = parse_what(call, &v);
	if (status >= 0)
		return status;
	if (call->option[OPT_LAST].set) {
		v.last_s = parse_seconds(call->option[OPT_LAST].string);
		if (v.last_s < 0)
			return ctl_usage_error(&ctl_where_command, "%s wants seconds, not '%s'",
					       call->option[OPT_LAST].typed,
					       call->option[OPT_LAST].string);
	} else if (watching) {
		v.last_s = WATCH_LAST_S;
	}
	if (call->option[OPT_DELAY].set) {
		delay_ms = screen_parse_delay(call->option[OPT_DELAY].string);
		if (delay_ms < 0 || !watching)
			return ctl_usage_error(&ctl_where_command, !watching ?
					       "%s goes with --watch" :
					       "%s wants seconds from 0.05 to 3600, not '%s'",
					       call->option[OPT_DELAY].typed,
					       call->option[OPT_DELAY].string);
	}
	if (watching && call->option[OPT_JSON].set)
		return ctl_usage_error(&ctl_where_command, "--json goes without --watch");
	status = watching ? watch(&v, delay_ms) : once(&v, call->option[OPT_JSON].set);
	where_table_free(&v.table);
	return status;
}

const struct ctl_command ctl_where_command = {
	.name = "where", .operands = "<pid> | --tree <pid> | --unit|--cgroup|--comm <name>",
	.min_operands = 1, .max_operands = 1,
	.missing_operands = "which PID?",
	.summary = "Show in which mappings a process or target takes its faults",
	.details = "From pfprofd's faults logs (pfprof-faults.log and its rotated files), of a\n"
		   "process added with pfprofctl add --maps: a row per mapping (its path,\n"
		   "[heap], [stack], [anon], or [unresolved] for faults the module could not\n"
		   "place), sorted by major faults: major and minor faults, the major ones\n"
		   "that were swap-ins (anonymous and shared memory) or reads of the file\n"
		   "(file mappings), its share of the process's faults, the time its faults\n"
		   "took (ms) and their mean (µs) if it was added with --latency too, its\n"
		   "size, kind and first address. With --tree, --unit, --cgroup or --comm,\n"
		   "of a target added with --maps: its processes' mappings of one kind and\n"
		   "name in one row (every process's copy of a library together). --watch\n"
		   "redraws it every second over the last 10 s (or --last); q quits.\n",
	.options = {
		[OPT_LAST] = { "last", 'l', CTL_STRING, "SECS",
			       "only the faults of the last SECS seconds (default: all)" },
		[OPT_WATCH] = { "watch", 'w', CTL_STRING, NULL,
				"redraw live, like top, until q" },
		[OPT_DELAY] = { "delay", 'd', CTL_STRING, "SECS",
				"with --watch: the interval, 0.05 to 3600 s (default 1)" },
		CTL_OPERAND_OPTIONS(OPT_TREE, OPT_UNIT, OPT_CGROUP, OPT_COMM, OPT_USER),
		[OPT_JSON] = { "json", 0, CTL_STRING, NULL, "the table as JSON" },
	},
	.run = run,
};
