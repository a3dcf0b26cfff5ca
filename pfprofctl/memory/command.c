// SPDX-License-Identifier: GPL-2.0
/*
 * pfprofctl memory: how much more memory would have kept in the pages each
 * process or target read back from swap, from the pages logs.
 */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/sysmacros.h>
#include <time.h>
#include <unistd.h>

#include "cgroupfs.h"
#include "cgroupmemory.h"
#include "ctl.h"
#include "ctljson.h"
#include "data.h"
#include "draw.h"
#include "timeline.h"
#include "plot/gnuplot.h"
#include "targets.h"

enum { OPT_LAST, OPT_TREE, OPT_UNIT, OPT_CGROUP, OPT_COMM, OPT_USER, OPT_JSON, OPT_OUTPUT,
       OPT_TIMELINE, OPT_MACHINE, OPT_FILES };

/* The shares of the pages read back that the columns say the memory for. */
static const double shares[] = { 0.5, 0.9, 0.99 };
#define SHARES (sizeof(shares) / sizeof(shares[0]))
/* The share NEEDS adds to the limit. */
#define NEEDS_SHARE 1

#define LABEL_MAX (PATH_MAX + 32)
/* Rows of --files's table, at most; --json has them all. */
#define FILES_SHOWN 20

/* Which owners to show: every one, or the target or process asked for. */
struct memory_query {
	bool one;
	uint32_t target;
	pid_t pid;
	char what[LABEL_MAX];		/* as asked: "unit nginx.service", for messages */
	double last_s;			/* the window; 0: the whole log */
	const char *output;		/* the picture to draw, or NULL */
	bool timeline;			/* of the one owner asked for, not the curves */
	bool machine;			/* distances in the machine's evictions */
	bool files;			/* the files read again, not the memory */
};

/* What one owner had and would have needed. */
struct owner_view {
	struct refault_owner *o;
	char label[LABEL_MAX];
	uint64_t extra[SHARES];		/* bytes */
	uint64_t away_ns;
	int limit_error;		/* -errno: its limit is not known */
	uint64_t limit;			/* memory.max, UINT64_MAX: none */
};

static bool wanted(const struct memory_query *q, const struct refault_owner *o)
{
	if (!q->one)
		return true;
	return q->target ? o->target == q->target : !o->target && o->pid == (uint32_t)q->pid;
}

/* The cgroup whose memory.max bounded the owner: a unit's or cgroup's now, a process's now. */
static int owner_limit(const struct target_list *targets, const struct refault_owner *o,
		       uint64_t *limit)
{
	const struct target *t = o->target ? target_list_find(targets, o->target) : NULL;
	char cgroup[PATH_MAX];
	int err = 0;

	if (t && !target_cgroup(t, cgroup, sizeof(cgroup)))
		err = -ENOENT;
	else if (!t && o->target)
		err = -ENOENT;
	else if (!t)
		err = cgroupfs_of_process((pid_t)o->pid, cgroup, sizeof(cgroup));
	return err ? err : cgroup_memory_limit(cgroup, limit);
}

/* The OWNER column: a target's label, or a process's PID and name. */
static void label_owner(const struct target_list *targets, const struct refault_owner *o,
			char *label, size_t size)
{
	if (o->target)
		target_label(targets, o->target, label, size);
	else
		snprintf(label, size, "pid %u (%s)", o->pid, o->comm);
}

static void view_owner(struct owner_view *v, struct refault_owner *o,
		       const struct target_list *targets)
{
	const uint64_t page = (uint64_t)sysconf(_SC_PAGESIZE);

	v->o = o;
	label_owner(targets, o, v->label, sizeof(v->label));
	for (size_t i = 0; i < SHARES; i++)
		v->extra[i] = refaults_extra(o, shares[i]) * page;
	v->away_ns = refaults_median_away(o);
	v->limit_error = owner_limit(targets, o, &v->limit);
}

/* "12 MiB", or "-" when there is nothing to say. */
static void format_size(char *buf, size_t size, uint64_t bytes, bool known)
{
	if (!known)
		snprintf(buf, size, "-");
	else if (bytes == UINT64_MAX)
		snprintf(buf, size, "max");
	else
		ctl_format_bytes(buf, size, bytes);
}

/* The median time away, or "-" when there is nothing to say. */
static void format_away(char *buf, size_t size, uint64_t ns, bool known)
{
	if (known)
		ctl_format_age(buf, size, ns);
	else
		snprintf(buf, size, "-");
}

static bool has_limit(const struct owner_view *v)
{
	return !v->limit_error && v->limit != UINT64_MAX;
}

static void print_row(const struct owner_view *v)
{
	bool refaulted = v->o->nr_refaults > 0;
	char extra[SHARES][24], away[24], limit[24], needs[24];

	for (size_t i = 0; i < SHARES; i++)
		format_size(extra[i], sizeof(extra[i]), v->extra[i], refaulted);
	format_away(away, sizeof(away), v->away_ns, refaulted);
	format_size(limit, sizeof(limit), v->limit, !v->limit_error);
	format_size(needs, sizeof(needs), v->limit + v->extra[NEEDS_SHARE],
		    refaulted && has_limit(v));
	printf("%9" PRIu64 " %9" PRIu64 " %9" PRIu64 " %10.1f %9s %9s %9s %9s %9s %9s %9" PRIu64
	       "  %s\n", v->o->out_pages, v->o->in_pages, v->o->read_pages,
	       (double)v->o->stall_ns / 1e6, away, extra[0], extra[1], extra[2], limit, needs,
	       v->o->file_refault_pages, v->label);
}

/* "the last 600 s, 2026-12-05 16:40:01 to 16:50:01 UTC" */
static void format_window(char *buf, size_t size, const struct memory_log *m,
			  const struct memory_query *q)
{
	char from[32], to[32], window[48];

	ctl_format_utc(from, sizeof(from), m->first_ns);
	ctl_format_utc(to, sizeof(to), m->last_ns);
	if (q->last_s)
		snprintf(window, sizeof(window), "the last %g s", q->last_s);
	else
		snprintf(window, sizeof(window), "the whole log");
	snprintf(buf, size, "%s, %s to %s UTC", window, from, to);
}

static void print_table(const struct memory_log *m, const struct owner_view *views, size_t n,
			const struct memory_query *q)
{
	uint64_t unmatched = 0, file_unmatched = 0;
	char window[128];

	format_window(window, sizeof(window), m, q);
	printf("Swap traffic in %s; +50%% +90%% +99%%: the memory beyond what %s "
	       "had that would have kept that share of its pages read back in (from swap, and "
	       "of files where their evictions are known); NEEDS: LIMIT (memory.max) +90%%; "
	       "FILE-RF: pages of files read again after reclaim dropped them\n", window,
	       q->machine ? "the machine" : "it");
	printf("%9s %9s %9s %10s %9s %9s %9s %9s %9s %9s %9s  %s\n", "OUT", "CACHED", "READ",
	       "STALL-MS", "AWAY", "+50%", "+90%", "+99%", "LIMIT", "NEEDS", "FILE-RF", "OWNER");
	for (size_t i = 0; i < n; i++) {
		print_row(&views[i]);
		unmatched += views[i].o->unmatched;
		file_unmatched += views[i].o->file_unmatched;
	}
	if (unmatched)
		printf("%" PRIu64 " pages read back had no swap-out in the logs (sent out before "
		       "their first line, again without a write, or shared memory sent out while no "
		       "traced process mapped it): they have no distance\n", unmatched);
	if (file_unmatched)
		printf("%" PRIu64 " pages of files read again had no eviction in the logs (their "
		       "owner is no unit or cgroup added with pages, or they went before the first "
		       "line): they have no distance\n", file_unmatched);
}

static struct json_object *owner_json(const struct owner_view *v)
{
	static const char *const keys[SHARES] = { "extra_50_bytes", "extra_90_bytes",
						  "extra_99_bytes" };
	struct json_object *o = ctl_json_object();
	bool refaulted = v->o->nr_refaults > 0;

	ctl_json_add_string(o, "owner", v->label);
	if (v->o->target)
		ctl_json_add(o, "pid", NULL);
	else
		ctl_json_add_uint(o, "pid", v->o->pid);
	ctl_json_add_uint(o, "out_pages", v->o->out_pages);
	ctl_json_add_uint(o, "cached_pages", v->o->in_pages);
	ctl_json_add_uint(o, "read_pages", v->o->read_pages);
	ctl_json_add_uint(o, "unmatched_pages", v->o->unmatched);
	ctl_json_add_uint(o, "stall_ns", v->o->stall_ns);
	ctl_json_add_uint(o, "file_refault_pages", v->o->file_refault_pages);
	ctl_json_add_uint(o, "file_unmatched_pages", v->o->file_unmatched);
	ctl_json_add_uint(o, "file_evicted_pages", v->o->file_evicted_pages);
	for (size_t i = 0; i < SHARES; i++)
		if (refaulted)
			ctl_json_add_uint(o, keys[i], v->extra[i]);
		else
			ctl_json_add(o, keys[i], NULL);
	if (refaulted)
		ctl_json_add_uint(o, "median_away_ns", v->away_ns);
	else
		ctl_json_add(o, "median_away_ns", NULL);
	if (has_limit(v))
		ctl_json_add_uint(o, "memory_max_bytes", v->limit);
	else
		ctl_json_add(o, "memory_max_bytes", NULL);
	return o;
}

static bool print_json(const struct memory_log *m, const struct owner_view *views, size_t n,
		       const struct memory_query *q)
{
	struct json_object *o = ctl_json_object(), *owners = ctl_json_array();

	if (q->last_s)
		ctl_json_add_double(o, "last_seconds", q->last_s);
	else
		ctl_json_add(o, "last_seconds", NULL);
	ctl_json_add_string(o, "distances", q->machine ? "machine" : "owner");
	ctl_json_add_double(o, "first_unix_time", (double)m->first_ns / 1e9);
	ctl_json_add_double(o, "last_unix_time", (double)m->last_ns / 1e9);
	for (size_t i = 0; i < n; i++)
		ctl_json_add(owners, NULL, owner_json(&views[i]));
	ctl_json_add(o, "owners", owners);
	return ctl_json_print(o);
}

static int by_reads(const void *a, const void *b)
{
	const struct owner_view *x = a, *y = b;

	if (x->o->read_pages != y->o->read_pages)
		return x->o->read_pages > y->o->read_pages ? -1 : 1;
	return strcmp(x->label, y->label);
}

/* The window's owners that paged, most pages read back first. */
static size_t collect(struct memory_log *m, const struct memory_query *q,
		      const struct target_list *targets, struct owner_view *views)
{
	size_t n = 0;

	for (size_t i = 0; i < m->replay.nr_owners; i++) {
		struct refault_owner *o = &m->replay.owners[i];

		if (wanted(q, o) &&
		    (o->out_pages || o->in_pages || o->read_pages || o->file_refault_pages))
			view_owner(&views[n++], o, targets);
	}
	qsort(views, n, sizeof(*views), by_reads);
	return n;
}

/* The owners' curves into q->output: an exit status. */
static int draw(const struct memory_log *m, const struct owner_view *views, size_t n,
		const struct memory_query *q)
{
	struct memory_curve *curves = calloc(n, sizeof(*curves));
	char window[128];
	int drawn;

	if (!curves) {
		ctl_error(-ENOMEM, "drawing %s", q->output);
		return PFPROF_EXIT_FAILED;
	}
	for (size_t i = 0; i < n; i++)
		curves[i] = (struct memory_curve){ .label = views[i].label, .owner = views[i].o };
	format_window(window, sizeof(window), m, q);
	drawn = memory_draw(q->output, window, curves, n);
	free(curves);
	if (drawn >= 0)
		printf("%s: the curves of %d owner%s\n", q->output, drawn, drawn == 1 ? "" : "s");
	return drawn < 0 ? PFPROF_EXIT_FAILED : PFPROF_EXIT_OK;
}

/* The one owner's timeline into q->output: an exit status. */
static int draw_timeline(const struct ctl *ctl, const struct memory_log *m,
			 const struct owner_view *v, const struct memory_query *q)
{
	const struct memory_timeline t = {
		.label = v->label, .owner = v->o,
		.from_ns = m->replay.from_ns ? m->replay.from_ns : m->first_ns,
		.to_ns = m->last_ns > m->first_ns ? m->last_ns : m->first_ns + 1000000000ULL,
		.needs_bytes = v->extra[NEEDS_SHARE],
	};

	if (memory_timeline_draw(&ctl->config, q->output, &t))
		return PFPROF_EXIT_FAILED;
	printf("%s: the timeline of %s\n", q->output, v->label);
	return PFPROF_EXIT_OK;
}

/* The replay's owner of a file's refaults: there is one, the replay saw its lines. */
static const struct refault_owner *owner_of_file(const struct memory_log *m,
						 const struct refault_file *x)
{
	for (size_t i = 0; i < m->replay.nr_owners; i++)
		if (m->replay.owners[i].target == x->target && m->replay.owners[i].pid == x->pid)
			return &m->replay.owners[i];
	return NULL;
}

static bool file_wanted(const struct memory_log *m, const struct memory_query *q,
			const struct refault_file *x)
{
	const struct refault_owner *o = owner_of_file(m, x);

	return o && wanted(q, o);
}

/* "fe:1:131075": the device as /proc/PID/maps gives it, and the inode. */
static void format_file(char *buf, size_t size, const struct refault_file *x)
{
	snprintf(buf, size, "%x:%x:%" PRIu64, major(x->dev), minor(x->dev), x->inode);
}

static struct json_object *file_json(const char *label, const char *file,
				     const struct refault_file *x)
{
	struct json_object *j = ctl_json_object();

	ctl_json_add_string(j, "owner", label);
	ctl_json_add_string(j, "file", file);
	ctl_json_add_uint(j, "inode", x->inode);
	ctl_json_add_uint(j, "pages", x->pages);
	ctl_json_add_uint(j, "distinct_pages", x->distinct);
	return j;
}

/*
 * The window's files read again, most pages first, into files (JSON: all
 * of them) or a table (FILES_SHOWN rows): an exit status.
 */
static int print_files(const struct memory_log *m, const struct memory_query *q,
		       const struct target_list *targets, struct json_object *files)
{
	size_t shown = 0;
	char window[128];

	format_window(window, sizeof(window), m, q);
	if (!files)
		printf("Pages of files read again after reclaim dropped them, in %s; DISTINCT: of "
		       "them, pages told apart (+: more past its 2^28th page); FILE: major:minor:inode "
		       "(find MOUNT -xdev -inum "
		       "INODE names it)\n%9s %9s  %-22s  %s\n", window, "PAGES", "DISTINCT",
		       "FILE", "OWNER");
	for (size_t i = 0; i < m->files.nr; i++) {
		const struct refault_file *x = &m->files.files[i];
		char label[LABEL_MAX], file[48];

		if (!file_wanted(m, q, x) || (!files && shown++ >= FILES_SHOWN))
			continue;
		label_owner(targets, owner_of_file(m, x), label, sizeof(label));
		format_file(file, sizeof(file), x);
		if (files)
			ctl_json_add(files, NULL, file_json(label, file, x));
		else
			printf("%9" PRIu64 " %9" PRIu64 "%s %-22s  %s\n", x->pages, x->distinct,
			       x->beyond ? "+" : " ", file, label);
	}
	if (files) {
		struct json_object *o = ctl_json_object();

		ctl_json_add(o, "files", files);
		return ctl_json_print(o) ? PFPROF_EXIT_OK : PFPROF_EXIT_FAILED;
	}
	if (shown > FILES_SHOWN)
		printf("and %zu more files (--json has them all)\n", shown - FILES_SHOWN);
	return PFPROF_EXIT_OK;
}

static int nothing_paged(const struct ctl *ctl, const struct memory_query *q)
{
	ctl_error(0, "no swap traffic of %s in %s%s/" LOGFORMAT_PAGES_FILE "*",
		  q->one ? q->what : "any process or target",
		  q->last_s ? "the last seconds asked of " : "", ctl->config.log_dir);
	ctl_hint("pfprofctl add --pages traces a process's or target's pages to swap and back, "
		 "while pfprofd runs");
	return PFPROF_EXIT_FAILED;
}

static int show(const struct ctl *ctl, const struct memory_query *q, bool json)
{
	uint64_t since = q->last_s ? (uint64_t)(((double)time(NULL) - q->last_s) * 1e9) : 0;
	struct target_list targets = { 0 };
	struct owner_view *views;
	struct memory_log m;
	int err = memory_log_read(&m, ctl->config.log_dir, ctl->config.keep, since, q->machine);
	int status = PFPROF_EXIT_FAILED;
	size_t n;

	if (err) {
		memory_log_free(&m);
		memory_log_failed(ctl->config.log_dir, err);
		return PFPROF_EXIT_FAILED;
	}
	/* Without the targets file, a target's label is its number. */
	target_list_read(ctl->config.targets_file, &targets, NULL, NULL);
	views = calloc(m.replay.nr_owners + 1, sizeof(*views));
	if (!views) {
		ctl_error(-ENOMEM, "replaying %s/" LOGFORMAT_PAGES_FILE, ctl->config.log_dir);
		goto out;
	}
	n = collect(&m, q, &targets, views);
	refault_files_sort(&m.files);
	if (!n)
		status = nothing_paged(ctl, q);
	else if (q->files)
		status = print_files(&m, q, &targets, json ? ctl_json_array() : NULL);
	else if (q->timeline)
		status = draw_timeline(ctl, &m, &views[0], q);
	else if (q->output)
		status = draw(&m, views, n, q);
	else if (json)
		status = print_json(&m, views, n, q) ? PFPROF_EXIT_OK : PFPROF_EXIT_FAILED;
	else {
		print_table(&m, views, n, q);
		status = PFPROF_EXIT_OK;
	}
	if (m.bad_lines)
		ctl_error(0, "%" PRIu64 " lines of %s/" LOGFORMAT_PAGES_FILE "* are no pages log "
			  "lines: left out", m.bad_lines, ctl->config.log_dir);
	free(views);
out:
	target_list_free(&targets);
	memory_log_free(&m);
	return status;
}

/* The operand, if any: a PID, or the target an option names; -1, or a usage error's status. */
static int parse_query(const struct ctl_call *call, struct memory_query *q)
{
	static const struct ctl_operand_options opts = {
		.kind = { [TARGET_TREE] = OPT_TREE, [TARGET_UNIT] = OPT_UNIT,
			  [TARGET_CGROUP] = OPT_CGROUP, [TARGET_COMM] = OPT_COMM },
		.user = OPT_USER,
	};
	struct ctl_operand operand;
	int status = ctl_parse_operand(&ctl_memory_command, call, &opts, &operand);

	q->one = call->operands[0] != NULL;
	q->pid = operand.pid;
	q->target = operand.target;
	if (operand.kind)
		snprintf(q->what, sizeof(q->what), "%s %s", operand.kind, operand.name);
	else
		snprintf(q->what, sizeof(q->what), "PID %d", (int)operand.pid);
	return status;
}

static int run(struct ctl *ctl, const struct ctl_call *call)
{
	struct memory_query q = { 0 };
	int status = parse_query(call, &q);
	char *end;

	if (status >= 0)
		return status;
	if (call->option[OPT_LAST].set) {
		errno = 0;
		q.last_s = strtod(call->option[OPT_LAST].string, &end);
		if (errno || end == call->option[OPT_LAST].string || *end || !isfinite(q.last_s) ||
		    q.last_s <= 0)
			return ctl_usage_error(&ctl_memory_command, "%s wants seconds, not '%s'",
					       call->option[OPT_LAST].typed,
					       call->option[OPT_LAST].string);
	}
	if (!ctl_picture_option_ok(&ctl_memory_command, call, OPT_OUTPUT))
		return PFPROF_EXIT_USAGE;
	if (call->option[OPT_OUTPUT].set) {
		q.output = call->option[OPT_OUTPUT].string;
		if (call->option[OPT_JSON].set)
			return ctl_usage_error(&ctl_memory_command, "--json goes without %s",
					       call->option[OPT_OUTPUT].typed);
	}
	q.timeline = call->option[OPT_TIMELINE].set;
	q.machine = call->option[OPT_MACHINE].set;
	q.files = call->option[OPT_FILES].set;
	if (q.files && (q.output || q.machine))
		return ctl_usage_error(&ctl_memory_command, "%s lists files: no picture, no "
				       "distances", call->option[OPT_FILES].typed);
	if (q.timeline && (!q.output || !q.one))
		return ctl_usage_error(&ctl_memory_command, "%s draws one process's or target's "
				       "paging: give it, and the picture with -o",
				       call->option[OPT_TIMELINE].typed);
	return show(ctl, &q, call->option[OPT_JSON].set);
}

const struct ctl_command ctl_memory_command = {
	.name = "memory", .operands = " | <pid> | --tree <pid> | --unit|--cgroup|--comm <name>",
	.min_operands = 0, .max_operands = 1,
	.summary = "Show how much more memory would end a target's paging",
	.details = "From pfprofd's pages logs (pfprof-pages.log and its rotated files), of the\n"
		   "processes and targets added with pfprofctl add --pages: a row each, most\n"
		   "pages read back first (or the one asked for): the pages it sent to swap\n"
		   "(OUT), took back from the swap cache (CACHED) and read back from swap\n"
		   "(READ), the time the swap-ins stalled its threads, the median time a page\n"
		   "read back was away, and how much more memory would have kept 50, 90 and\n"
		   "99 % of the pages it read back in: their refault distance (the pages it\n"
		   "sent to swap between a page's swap-out and its return) at that share.\n"
		   "LIMIT is the memory.max of its cgroup now, NEEDS that plus the +90 %\n"
		   "column: the limit that would have ended 90 % of its paging. FILE-RF\n"
		   "is the pages of files it read again after reclaim had dropped them\n"
		   "from the page cache (a module of ring version 13 or later; a unit's\n"
		   "or cgroup's have their distance among the columns before, their\n"
		   "evictions being traced); with --files, which files they are, and how\n"
		   "many of their pages. With\n"
		   "--output, the curves instead: for each owner (the first 8), the\n"
		   "memory beyond what it had against the share of its pages read back\n"
		   "that would have stayed in. With --machine, the distances count the\n"
		   "machine's pages written to swap instead of the owner's: the memory the\n"
		   "machine would have needed beyond what it had, for owners paged by the\n"
		   "machine's reclaim rather than by a limit of their own. With --timeline\n"
		   "too, one owner's paging on one time axis: pages sent out and read\n"
		   "back per second, each page's refault distance, and the time the\n"
		   "swap-ins stalled its threads; of a unit or cgroup also its file\n"
		   "refaults, memory.max, memory.current and memory.pressure, from\n"
		   "pfprofd's memory log.\n",
	.options = {
		[OPT_LAST] = { "last", 'l', CTL_STRING, "SECS",
			       "only the swap-ins of the last SECS seconds (default: all)" },
		CTL_OPERAND_OPTIONS(OPT_TREE, OPT_UNIT, OPT_CGROUP, OPT_COMM, OPT_USER),
		[OPT_JSON] = { "json", 0, CTL_STRING, NULL, "the table as JSON" },
		[OPT_OUTPUT] = { "output", 'o', CTL_STRING, "FILE",
				 "draw each owner's curve into FILE, .png or .svg" },
		[OPT_TIMELINE] = { "timeline", 0, CTL_STRING, NULL,
				   "with -o, the one owner's paging over time instead" },
		[OPT_MACHINE] = { "machine", 0, CTL_STRING, NULL,
				  "distances in the machine's swap-outs, not the owner's" },
		[OPT_FILES] = { "files", 0, CTL_STRING, NULL,
				"which files it read again, and how many of their pages" },
	},
	.run = run,
};
