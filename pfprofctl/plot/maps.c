// SPDX-License-Identifier: GPL-2.0
#include "maps.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "logformat.h"
#include "logscan.h"
#include "where/data.h"

/* Where the second reading writes each line: the file of its mapping, if drawn. */
struct split {
	const struct where_row *rows;	/* the mappings drawn */
	FILE *files[PLOTMAPS_MAX];
	int n;
};

static bool same_mapping(const struct where_row *r, const struct log_fault *f)
{
	return (uint32_t)r->pid == f->pid && r->start == f->start && r->mapping == f->mapping &&
	       r->inode == f->inode;
}

/* Writes a line of the faults logs to its mapping's file, if that is drawn. */
static void write_line(char *text, void *ctx)
{
	const struct split *s = ctx;
	struct log_fault f;

	if (!logformat_parse_fault(text, &f))
		return;
	for (int m = 0; m < s->n; m++)
		if (same_mapping(&s->rows[m], &f))
			fprintf(s->files[m], "%.6f %llu %llu\n", (double)f.wall_ns / 1e9,
				(unsigned long long)f.minor, (unsigned long long)f.major);
}

/* Opens a file in dir for each of the first n rows, with its title; 0 or -errno. */
static int open_files(const char *dir, const struct where_table *t, struct split *s,
		      struct plot_maps *out)
{
	for (s->n = 0; s->n < out->n;) {
		const struct where_row *r = &t->rows[s->n];
		char path[PATH_MAX];

		snprintf(path, sizeof(path), "%s/map-%d", dir, s->n);
		s->files[s->n] = fopen(path, "we");
		if (!s->files[s->n])
			return -errno;
		s->n++;		/* closed by the caller from here on */
		if (plot_words_add(&out->mapfiles, "%s", path) ||
		    plot_words_add(&out->maptitles, "%s:%s/%d", r->name, r->comm, (int)r->pid))
			return -ENOMEM;
	}
	return 0;
}

int plotmaps_split(const struct pfprof_config *config, const char *dir, struct plot_maps *out)
{
	struct where_table t = { .pid = 0 };
	struct split s = { .n = 0 };
	int err;

	memset(out, 0, sizeof(*out));
	err = where_read_logs(&t, config->log_dir, config->keep, 0);
	where_sort(&t);
	out->seen = (int)t.count;
	out->n = t.count < PLOTMAPS_MAX ? (int)t.count : PLOTMAPS_MAX;
	for (int i = 0; i < out->n; i++)
		out->majors |= t.rows[i].major > 0;
	s.rows = t.rows;
	if (!err)
		err = open_files(dir, &t, &s, out);
	if (!err)
		err = logscan_forward(config->log_dir, LOGKIND_FAULTS, config->keep, write_line,
				      &s);
	for (int i = 0; i < s.n; i++)
		if (fclose(s.files[i]) && !err)
			err = -errno;
	where_table_free(&t);
	if (err)
		plotmaps_free(out);
	return err;
}

void plotmaps_free(struct plot_maps *maps)
{
	plot_words_free(&maps->mapfiles);
	plot_words_free(&maps->maptitles);
	memset(maps, 0, sizeof(*maps));
}
