// SPDX-License-Identifier: GPL-2.0
#include "procs.h"

#include <errno.h>
#include <stdbool.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "logformat.h"
#include "logscan.h"
#include "printable.h"
#include "words.h"
#include "proctable.h"
#include "top/data.h"

struct proc_line {
	double wall;
	int pid;
	char comm[24];
	unsigned long long minor, major;
	unsigned int target;
};

/* The first seven columns, where both formats have them, and format 2's target. */
static bool parse(const char *text, struct proc_line *l)
{
	unsigned long long seq;
	double cpu_ms;

	l->target = 0;		/* format 1 knew no targets */
	if (text[0] == '#' ||
	    sscanf(text, "%llu\t%lf\t%d\t%23[^\t]\t%llu\t%llu\t%lf\t%u", &seq, &l->wall,
		   &l->pid, l->comm, &l->minor, &l->major, &cpu_ms, &l->target) < 7)
		return false;
	/* Logs written before names were made printable may hold control characters. */
	printable(l->comm);
	return true;
}

/* Where each_line() hands the lines it parsed. */
struct line_sink {
	void (*fn)(const struct proc_line *l, void *ctx);
	void *ctx;
};

static void parse_line(char *text, void *arg)
{
	struct proc_line l;

	if (parse(text, &l)) {
		const struct line_sink *sink = arg;

		sink->fn(&l, sink->ctx);
	}
}

/* Calls fn on every line of every per-process log, oldest first. */
static int each_line(const struct pfprof_config *config,
		     void (*fn)(const struct proc_line *l, void *ctx), void *ctx)
{
	struct line_sink sink = { fn, ctx };

	return logscan_forward(config->log_dir, LOGKIND_PROCS, config->keep, parse_line, &sink);
}

static void count(const struct proc_line *l, void *ctx)
{
	struct proc_entry *e = proctable_find_or_add(ctx, l->pid);

	if (!e)
		return;
	e->minor += l->minor;
	e->major += l->major;
	e->samples++;
	/* A process moved to another target is drawn beneath its last; totals go by line. */
	e->target = l->target;
	memcpy(e->comm, l->comm, sizeof(e->comm));
}

static int by_faults(const void *a, const void *b)
{
	const struct proc_entry *p = a, *q = b;
	uint64_t fp = p->minor + p->major, fq = q->minor + q->major;

	return fp < fq ? 1 : fp > fq ? -1 : 0;
}

static int by_group_faults(const void *a, const void *b)
{
	const struct top_group *g = a, *h = b;

	return by_faults(&g->sum, &h->sum);
}

void plotprocs_free(struct plot_procs *procs)
{
	plot_words_free(&procs->procfiles);
	plot_words_free(&procs->proctitles);
	plot_words_free(&procs->targetfiles);
	plot_words_free(&procs->targettitles);
	plot_words_free(&procs->targetprocs);
	plot_words_free(&procs->targetprocfiles);
	plot_words_free(&procs->targetproctitles);
	memset(procs, 0, sizeof(*procs));
}

#define SPLIT_PROCS_MAX (PLOTPROCS_MAX + PLOTPROCS_TARGETS_MAX * PLOTPROCS_PER_TARGET)

/* Where the second reading writes each line: its process's file, its target's. */
struct split {
	pid_t pids[SPLIT_PROCS_MAX];
	FILE *proc_files[SPLIT_PROCS_MAX];
	int nprocs;
	uint32_t targets[PLOTPROCS_TARGETS_MAX];
	FILE *target_files[PLOTPROCS_TARGETS_MAX];
	int ntargets;
};

static void write_point(FILE *f, const struct proc_line *l)
{
	fprintf(f, "%.6f %llu %llu\n", l->wall, l->minor, l->major);
}

static void write_line(const struct proc_line *l, void *ctx)
{
	struct split *s = ctx;

	for (int i = 0; i < s->nprocs; i++)
		if (s->pids[i] == l->pid)
			write_point(s->proc_files[i], l);
	/* Drawn or not, exited or not, every process of a target is in its total. */
	for (int i = 0; i < s->ntargets; i++)
		if (s->targets[i] == l->target)
			write_point(s->target_files[i], l);
}

/* Creates dir/name and adds its path to files; NULL with errno set. */
static FILE *create_split(const char *dir, const char *name, struct plot_words *files)
{
	char path[PATH_MAX];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "we");
	if (f && plot_words_add(files, "%s", path)) {
		fclose(f);
		errno = ENOMEM;
		return NULL;
	}
	return f;
}

/* The first max processes of group g, a file and a title each: how many, or -errno. */
static int split_procs(struct split *s, const char *dir, const struct top_snapshot *snap,
		       const struct top_group *g, int max, struct plot_words *files,
		       struct plot_words *titles)
{
	int n;

	for (n = 0; n < max && (size_t)n < g->count; n++) {
		const struct proc_entry *e = &snap->procs[g->first + n];
		char name[16];

		snprintf(name, sizeof(name), "%d", (int)e->tgid);
		s->proc_files[s->nprocs] = create_split(dir, name, files);
		if (!s->proc_files[s->nprocs])
			return -errno;
		s->pids[s->nprocs++] = e->tgid;
		if (plot_words_add(titles, "%s/%d", e->comm, (int)e->tgid))
			return -ENOMEM;
	}
	return n;
}

/* Target g's panel: the file of its total, its label, its processes' curves. */
static int split_target(struct split *s, const char *dir, const struct target_list *targets,
			const struct top_snapshot *snap, const struct top_group *g,
			struct plot_procs *out)
{
	char name[32], label[PATH_MAX + 16];
	int n;

	snprintf(name, sizeof(name), "target-%u", (unsigned int)g->sum.target);
	s->target_files[s->ntargets] = create_split(dir, name, &out->targetfiles);
	if (!s->target_files[s->ntargets])
		return -errno;
	s->targets[s->ntargets++] = g->sum.target;
	n = split_procs(s, dir, snap, g, PLOTPROCS_PER_TARGET, &out->targetprocfiles,
			&out->targetproctitles);
	if (n < 0)
		return n;
	out->targets++;
	if (plot_words_add(&out->targettitles, "%s",
		     target_label(targets, g->sum.target, label, sizeof(label))) ||
	    plot_words_add(&out->targetprocs, "%d", n))
		return -ENOMEM;
	return 0;
}

/* The processes of t grouped by target (0: none), groups and processes by total faults. */
static int group(struct proc_table *t, struct top_snapshot *snap)
{
	int err;

	*snap = (struct top_snapshot){ 0 };
	snap->procs = calloc(t->used ? t->used : 1, sizeof(*snap->procs));
	if (!snap->procs)
		return -ENOMEM;
	for (size_t i = 0; i < t->cap; i++)
		if (t->slots[i].tgid)
			snap->procs[snap->nr_procs++] = t->slots[i];
	err = top_group(snap);
	if (err)
		return err;
	/* top_group() puts major faults first, as top shows them; a plot shows the sum. */
	qsort(snap->groups, snap->nr_groups, sizeof(*snap->groups), by_group_faults);
	for (size_t i = 0; i < snap->nr_groups; i++)
		qsort(&snap->procs[snap->groups[i].first], snap->groups[i].count,
		      sizeof(*snap->procs), by_faults);
	return 0;
}

/* The processes and targets to draw, their files opened in dir. */
static int choose(struct proc_table *t, const struct target_list *targets, const char *dir,
		  struct split *s, struct plot_procs *out)
{
	struct top_snapshot snap;
	int err = group(t, &snap);

	for (size_t i = 0; !err && i < snap.nr_groups; i++) {
		const struct top_group *g = &snap.groups[i];

		if (!g->sum.target) {
			out->n = split_procs(s, dir, &snap, g, PLOTPROCS_MAX, &out->procfiles,
					     &out->proctitles);
			err = out->n < 0 ? out->n : 0;
		} else if (out->targets_seen++ < PLOTPROCS_TARGETS_MAX) {
			err = split_target(s, dir, targets, &snap, g, out);
		}
	}
	top_snapshot_free(&snap);
	return err;
}

/* Closes n files; err, or the first failure to write one out. */
static int close_all(FILE **files, int n, int err)
{
	for (int i = 0; i < n; i++)
		if (fclose(files[i]) && !err)
			err = -errno;
	return err;
}

int plotprocs_split(const struct pfprof_config *config, const struct target_list *targets,
		    const char *dir, struct plot_procs *out)
{
	struct proc_table table = { 0 };
	struct split s = { .nprocs = 0 };
	int err;

	memset(out, 0, sizeof(*out));
	err = each_line(config, count, &table);
	if (!err)
		err = choose(&table, targets, dir, &s, out);
	if (!err)
		err = each_line(config, write_line, &s);
	err = close_all(s.proc_files, s.nprocs, err);
	err = close_all(s.target_files, s.ntargets, err);
	proctable_free(&table);
	if (err)
		plotprocs_free(out);
	return err;
}

/* One process's faults in one-second bins of a window (plotprocs_rates()). */
struct rates {
	pid_t pid;
	const char *comm;
	double from_s;
	size_t nr_bins;
	struct rate_bin {
		unsigned long long minor, major;
		bool seen;
	} *bins;
};

static void add_to_bin(const struct proc_line *l, void *ctx)
{
	struct rates *r = ctx;
	double at = l->wall - r->from_s;
	struct rate_bin *bin;

	if (l->pid != r->pid || strcmp(l->comm, r->comm) || at < 0 || at >= (double)r->nr_bins)
		return;
	bin = &r->bins[(size_t)at];
	bin->minor += l->minor;
	bin->major += l->major;
	bin->seen = true;
}

int plotprocs_rates(const struct pfprof_config *config, pid_t pid, const char *comm,
		    double from_s, double to_s, const char *path)
{
	struct rates r = { .pid = pid, .comm = comm, .from_s = from_s,
			   .nr_bins = to_s > from_s ? (size_t)(to_s - from_s) + 1 : 1 };
	int err, bins = 0;
	FILE *f;

	r.bins = calloc(r.nr_bins, sizeof(*r.bins));
	if (!r.bins)
		return -ENOMEM;
	err = each_line(config, add_to_bin, &r);
	f = err ? NULL : fopen(path, "we");
	if (!err && !f)
		err = -errno;
	for (size_t i = 0; f && i < r.nr_bins; i++) {
		if (!r.bins[i].seen)
			continue;
		fprintf(f, "%zu %llu %llu\n", i, r.bins[i].minor, r.bins[i].major);
		bins++;
	}
	if (f && fclose(f) && !err)
		err = -errno;
	free(r.bins);
	return err ? err : bins;
}
