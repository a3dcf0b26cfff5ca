// SPDX-License-Identifier: GPL-2.0
#include "targetsread.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* Bad lines are quoted in reports up to this length. */
#define QUOTE_MAX 80

bool targetsfile_values_hold(const struct targetsfile_values *list, enum targetsfile_kind kind,
			     const char *value)
{
	for (size_t i = 0; i < list->count; i++) {
		if (list->kinds[i] == kind && !strcmp(list->values[i], value))
			return true;
	}
	return false;
}

/* getline() returns -1 both at the end and on errors; only errors leave feof() unset. */
int targetsfile_read_error(FILE *f)
{
	if (feof(f))
		return 0;
	return errno ? -errno : -EIO;
}

static int append_value(struct targetsfile_values *list, size_t *capacity,
			enum targetsfile_kind kind, const char *value)
{
	char *copy;

	if (list->count == *capacity) {
		size_t grown = *capacity ? 2 * *capacity : 16;
		char **values = reallocarray(list->values, grown, sizeof(*values));
		enum targetsfile_kind *kinds;

		if (!values)
			return -ENOMEM;
		list->values = values;
		kinds = reallocarray(list->kinds, grown, sizeof(*kinds));
		if (!kinds)
			return -ENOMEM;
		list->kinds = kinds;
		*capacity = grown;
	}
	copy = strdup(value);
	if (!copy)
		return -ENOMEM;
	list->kinds[list->count] = kind;
	list->values[list->count++] = copy;
	return 0;
}

static void report_bad_line(targetsfile_report_fn *report, void *ctx, const char *path,
			    unsigned int lineno, const char *line, size_t len)
{
	char message[QUOTE_MAX + 256];

	if (len > 0 && line[len - 1] == '\n')
		len--;
	snprintf(message, sizeof(message),
		 "bad line '%.*s%s': expected a PID, 'tree' and a PID, 'cgroup' and a path, "
		 "'unit' and a name, 'comm' and a command name, any of these after 'maps', "
		 "or a '#' comment",
		 len > QUOTE_MAX ? QUOTE_MAX : (int)len, line, len > QUOTE_MAX ? "..." : "");
	report(ctx, path, lineno, message);
}

/* The values of the lines of these kinds; bad lines go to report (if not NULL). */
static int read_values(FILE *f, const char *path, unsigned int kinds,
		       struct targetsfile_values *list, targetsfile_report_fn *report, void *ctx)
{
	char *line = NULL, value[TARGETSFILE_VALUE_MAX];
	unsigned int lineno = 0;
	size_t capacity = 0, size = 0;
	ssize_t len;
	int err = 0;

	while (!err && (len = getline(&line, &size, f)) >= 0) {
		int found = targetsline_parse(line, len, value);

		lineno++;
		if (found >= 0 && (kinds & TARGETSFILE_KIND(found)) &&
		    !targetsfile_values_hold(list, found, value))
			err = append_value(list, &capacity, found, value);
		else if (found == TARGETSLINE_BAD && report)
			report_bad_line(report, ctx, path, lineno, line, len);
	}
	free(line);
	return err ? err : targetsfile_read_error(f);
}

int targetsfile_read_values(const char *path, unsigned int kinds, struct targetsfile_values *list,
			    targetsfile_report_fn *report, void *ctx)
{
	FILE *f = fopen(path, "re");
	int err;

	*list = (struct targetsfile_values){ 0 };
	if (!f)
		return errno == ENOENT ? 0 : -errno;
	err = read_values(f, path, kinds, list, report, ctx);
	fclose(f);
	if (err)
		targetsfile_values_free(list);
	return err;
}

void targetsfile_values_free(struct targetsfile_values *list)
{
	for (size_t i = 0; i < list->count; i++)
		free(list->values[i]);
	free(list->values);
	free(list->kinds);
	*list = (struct targetsfile_values){ 0 };
}

/* The PIDs of a list of PID or tree values, which targetsline_parse() made canonical. */
static int values_to_pids(const struct targetsfile_values *values, struct pidlist *list)
{
	list->count = 0;
	list->pids = NULL;
	if (!values->count)
		return 0;
	list->pids = calloc(values->count, sizeof(*list->pids));
	if (!list->pids)
		return -ENOMEM;
	for (size_t i = 0; i < values->count; i++)
		list->pids[list->count++] = atoi(values->values[i]);
	return 0;
}

static int read_kind(const char *path, enum targetsfile_kind kind, struct pidlist *list,
		     targetsfile_report_fn *report, void *ctx)
{
	struct targetsfile_values values;
	int err = targetsfile_read_values(path, TARGETSFILE_KIND(kind), &values, report, ctx);

	list->pids = NULL;
	list->count = 0;
	if (err)
		return err;
	err = values_to_pids(&values, list);
	targetsfile_values_free(&values);
	return err;
}

int targetsfile_read_pids(const char *path, struct pidlist *list,
			  targetsfile_report_fn *report, void *ctx)
{
	return read_kind(path, TARGETSFILE_PID, list, report, ctx);
}

int targetsfile_read_trees(const char *path, struct pidlist *roots)
{
	return read_kind(path, TARGETSFILE_TREE, roots, NULL, NULL);
}

int targetsfile_read_kind(const char *path, enum targetsfile_kind kind, struct pidlist *list)
{
	return read_kind(path, kind, list, NULL, NULL);
}

void pidlist_free(struct pidlist *list)
{
	free(list->pids);
	list->pids = NULL;
	list->count = 0;
}
