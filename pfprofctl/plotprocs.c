// SPDX-License-Identifier: GPL-2.0
#include "plotprocs.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "logformat.h"
#include "proctable.h"

struct proc_line {
	double wall;
	int pid;
	char comm[24];
	unsigned long long minor, major;
};

/* The first seven columns, where both formats have them; the curves need no target. */
static bool parse(const char *text, struct proc_line *l)
{
	unsigned long long seq;
	double cpu_ms;

	return text[0] != '#' &&
	       sscanf(text, "%llu\t%lf\t%d\t%23[^\t]\t%llu\t%llu\t%lf", &seq, &l->wall, &l->pid,
		      l->comm, &l->minor, &l->major, &cpu_ms) == 7;
}

/* Calls fn on every line of every per-process log, oldest first. */
static int each_line(const struct pfprof_config *config,
		     void (*fn)(const struct proc_line *l, void *ctx), void *ctx)
{
	char path[PATH_MAX], text[4096];	/* header lines are longer than data lines */
	struct proc_line l;

	for (int i = config->keep; i >= 0; i--) {
		FILE *f;

		if (logformat_path(path, sizeof(path), config->log_dir, LOGKIND_PROCS, i))
			return -ENAMETOOLONG;
		f = fopen(path, "re");
		if (!f && errno == ENOENT)
			continue;
		if (!f)
			return -errno;
		while (fgets(text, sizeof(text), f))
			if (parse(text, &l))
				fn(&l, ctx);
		fclose(f);
	}
	return 0;
}

static void count(const struct proc_line *l, void *ctx)
{
	struct proc_entry *e = proctable_find_or_add(ctx, l->pid);

	if (!e)
		return;
	e->minor += l->minor;
	e->major += l->major;
	e->samples++;
	memcpy(e->comm, l->comm, sizeof(e->comm));
}

static int by_faults(const void *a, const void *b)
{
	const struct proc_entry *p = a, *q = b;
	uint64_t fp = p->minor + p->major, fq = q->minor + q->major;

	return fp < fq ? 1 : fp > fq ? -1 : 0;
}

struct split {
	struct proc_entry chosen[PLOTPROCS_MAX];
	FILE *files[PLOTPROCS_MAX];
	int n;
};

static void write_line(const struct proc_line *l, void *ctx)
{
	struct split *s = ctx;

	for (int i = 0; i < s->n; i++)
		if (s->chosen[i].tgid == l->pid)
			fprintf(s->files[i], "%.6f %llu %llu\n", l->wall, l->minor, l->major);
}

/* The most faulting processes of t into s, their files opened in dir. */
static int choose(struct proc_table *t, const char *dir, struct split *s, struct plot_procs *out)
{
	struct proc_entry *all = calloc(t->used ? t->used : 1, sizeof(*all));
	size_t n = 0;

	if (!all)
		return -ENOMEM;
	for (size_t i = 0; i < t->cap; i++)
		if (t->slots[i].tgid)
			all[n++] = t->slots[i];
	qsort(all, n, sizeof(*all), by_faults);
	for (s->n = 0; s->n < PLOTPROCS_MAX && (size_t)s->n < n; s->n++) {
		struct proc_entry *e = &s->chosen[s->n];
		char path[PATH_MAX];

		*e = all[s->n];
		snprintf(path, sizeof(path), "%s/%d", dir, (int)e->tgid);
		s->files[s->n] = fopen(path, "we");
		if (!s->files[s->n])
			break;
		/* Words for gnuplot's word(): no spaces or quotes in a name. */
		for (char *c = e->comm; *c; c++)
			if (*c == ' ' || *c == '\'' || *c == '"')
				*c = '_';
		snprintf(out->files + strlen(out->files), sizeof(out->files) - strlen(out->files),
			 "%s%s", s->n ? " " : "", path);
		snprintf(out->titles + strlen(out->titles), sizeof(out->titles) - strlen(out->titles),
			 "%s%s/%d", s->n ? " " : "", e->comm, (int)e->tgid);
	}
	free(all);
	return s->n < PLOTPROCS_MAX && (size_t)s->n < n ? -errno : 0;
}

int plotprocs_split(const struct pfprof_config *config, const char *dir, struct plot_procs *out)
{
	struct proc_table table = { 0 };
	struct split s = { .n = 0 };
	int err;

	memset(out, 0, sizeof(*out));
	err = each_line(config, count, &table);
	if (!err)
		err = choose(&table, dir, &s, out);
	if (!err)
		err = each_line(config, write_line, &s);
	for (int i = 0; i < s.n; i++)
		if (fclose(s.files[i]) && !err)
			err = -errno;
	out->n = err ? 0 : s.n;
	proctable_free(&table);
	return err;
}
