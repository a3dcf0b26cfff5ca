// SPDX-License-Identifier: GPL-2.0
#include "targetsfile.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The word before a line's value, by kind; a PID's line has none. */
static const char *const kind_words[] = {
	[TARGETSFILE_PID] = "", [TARGETSFILE_TREE] = "tree", [TARGETSFILE_CGROUP] = "cgroup",
	[TARGETSFILE_UNIT] = "unit", [TARGETSFILE_COMM] = "comm", [TARGETSFILE_MAPS] = "maps",
	[TARGETSFILE_MAPS_TREE] = "maps tree", [TARGETSFILE_MAPS_CGROUP] = "maps cgroup",
	[TARGETSFILE_MAPS_UNIT] = "maps unit", [TARGETSFILE_MAPS_COMM] = "maps comm",
};

/* "maps" before a target's word: the kind of that line. */
static const enum targetsfile_kind maps_kinds[][2] = {
	{ TARGETSFILE_TREE, TARGETSFILE_MAPS_TREE }, { TARGETSFILE_CGROUP, TARGETSFILE_MAPS_CGROUP },
	{ TARGETSFILE_UNIT, TARGETSFILE_MAPS_UNIT }, { TARGETSFILE_COMM, TARGETSFILE_MAPS_COMM },
};

static const char *skip_space(const char *p, const char *end)
{
	while (p < end && isspace((unsigned char)*p))
		p++;
	return p;
}

static bool ends_value(const char *p, const char *end)
{
	return p == end || isspace((unsigned char)*p) || *p == '#';
}

/* Whether the lines of kind hold a PID. */
static bool holds_pid(enum targetsfile_kind kind)
{
	return kind == TARGETSFILE_PID || kind == TARGETSFILE_TREE || kind == TARGETSFILE_MAPS ||
	       kind == TARGETSFILE_MAPS_TREE;
}

/* The kind of one word at *p (moving *p past it and the space after), or TARGETSFILE_PID. */
static enum targetsfile_kind parse_one_word(const char **p, const char *end)
{
	for (size_t k = 1; k <= TARGETSFILE_MAPS; k++) {
		size_t len = strlen(kind_words[k]);

		if ((size_t)(end - *p) > len && !strncmp(*p, kind_words[k], len) &&
		    isspace((unsigned char)(*p)[len])) {
			*p = skip_space(*p + len, end);
			return k;
		}
	}
	return TARGETSFILE_PID;
}

/* The kind whose words start the line at *p (moving *p past them), or TARGETSFILE_PID. */
static enum targetsfile_kind parse_word(const char **p, const char *end)
{
	enum targetsfile_kind kind = parse_one_word(p, end), target;
	const char *after = *p;

	if (kind != TARGETSFILE_MAPS)
		return kind;
	target = parse_one_word(&after, end);
	for (size_t i = 0; i < sizeof(maps_kinds) / sizeof(maps_kinds[0]); i++) {
		if (maps_kinds[i][0] == target) {
			*p = after;
			return maps_kinds[i][1];
		}
	}
	return TARGETSFILE_MAPS;
}

/* A PID's canonical text: digits only (strtol() would also take a sign), 1..INT_MAX. */
static bool canonical_pid(const char *value, size_t len, char *canon)
{
	char *number_end;
	long pid;

	if (!len || !isdigit((unsigned char)*value))
		return false;
	errno = 0;
	pid = strtol(value, &number_end, 10);
	if (errno || pid < 1 || pid > INT_MAX || number_end != value + len)
		return false;
	snprintf(canon, TARGETSFILE_VALUE_MAX, "%ld", pid);
	return true;
}

int targetsfile_parse_line(const char *line, size_t len, char *value)
{
	const char *end = line + len;
	const char *p = skip_space(line, end), *value_start;
	enum targetsfile_kind kind;

	if (p == end || *p == '#')
		return TARGETSFILE_LINE_BLANK;
	kind = parse_word(&p, end);
	value_start = p;
	/* An embedded NUL ends the value too, and is then neither space nor '#'. */
	while (!ends_value(p, end) && *p)
		p++;
	if (p == value_start || p - value_start >= TARGETSFILE_VALUE_MAX)
		return TARGETSFILE_LINE_BAD;
	if (holds_pid(kind)) {
		if (!canonical_pid(value_start, p - value_start, value))
			return TARGETSFILE_LINE_BAD;
	} else {
		memcpy(value, value_start, p - value_start);
		value[p - value_start] = '\0';
	}
	p = skip_space(p, end);
	if (p != end && *p != '#')
		return TARGETSFILE_LINE_BAD;
	return kind;
}

bool targetsfile_valid_value(enum targetsfile_kind kind, const char *value)
{
	size_t len = strlen(value);

	if (holds_pid(kind)) {
		char canon[TARGETSFILE_VALUE_MAX];

		return canonical_pid(value, len, canon) && !strcmp(canon, value);
	}
	if (!len || len >= TARGETSFILE_VALUE_MAX)
		return false;
	for (const char *p = value; *p; p++)
		if (ends_value(p, p + 1))
			return false;
	return true;
}

const char *targetsfile_words(enum targetsfile_kind kind)
{
	return kind_words[kind];
}

enum targetsfile_kind targetsfile_maps_kind(enum targetsfile_kind plain)
{
	if (plain == TARGETSFILE_PID)
		return TARGETSFILE_MAPS;
	for (size_t i = 0; i < sizeof(maps_kinds) / sizeof(maps_kinds[0]); i++)
		if (maps_kinds[i][0] == plain)
			return maps_kinds[i][1];
	return plain;
}

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
		int found = targetsfile_parse_line(line, len, value);

		lineno++;
		if (found >= 0 && (kinds & TARGETSFILE_KIND(found)) &&
		    !targetsfile_values_hold(list, found, value))
			err = append_value(list, &capacity, found, value);
		else if (found == TARGETSFILE_LINE_BAD && report)
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

/* The PIDs of a list of PID or tree values, which targetsfile_parse_line() made canonical. */
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
