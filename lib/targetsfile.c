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
	[TARGET_PID] = "", [TARGET_TREE] = "tree", [TARGET_CGROUP] = "cgroup",
	[TARGET_UNIT] = "unit", [TARGET_COMM] = "comm",
};

#define NR_KINDS (sizeof(kind_words) / sizeof(kind_words[0]))

/* The words of each set of options, in the order lines are written and "R" takes them. */
static const char *const option_words[TARGETSFILE_OPTS + 1] = {
	[0] = "", [TARGETSFILE_OPT_MAPS] = "maps", [TARGETSFILE_OPT_LATENCY] = "latency",
	[TARGETSFILE_OPT_MAPS | TARGETSFILE_OPT_LATENCY] = "maps latency",
	[TARGETSFILE_OPT_PAGES] = "pages",
	[TARGETSFILE_OPT_MAPS | TARGETSFILE_OPT_PAGES] = "maps pages",
	[TARGETSFILE_OPT_LATENCY | TARGETSFILE_OPT_PAGES] = "latency pages",
	[TARGETSFILE_OPTS] = "maps latency pages",
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
static bool holds_pid(enum target_kind kind)
{
	return kind == TARGET_PID || kind == TARGET_TREE;
}

/* Whether word starts *p and is followed by space: then *p moves past both. */
static bool take_word(const char **p, const char *end, const char *word)
{
	size_t len = strlen(word);

	if ((size_t)(end - *p) <= len || strncmp(*p, word, len) || !isspace((unsigned char)(*p)[len]))
		return false;
	*p = skip_space(*p + len, end);
	return true;
}

#define USER_WORD "user="

/* A "user=USER" word at *p: USER into user, *p past it and its space. False if none, or bad. */
static bool take_user(const char **p, const char *end, char *user)
{
	const char *start = *p + strlen(USER_WORD), *q = start;

	if ((size_t)(end - *p) <= strlen(USER_WORD) || strncmp(*p, USER_WORD, strlen(USER_WORD)))
		return false;
	while (!ends_value(q, end) && *q)
		q++;
	if (q == start || q - start >= TARGETSFILE_USER_MAX || q == end ||
	    !isspace((unsigned char)*q))
		return false;
	memcpy(user, start, q - start);
	user[q - start] = '\0';
	*p = skip_space(q, end);
	return true;
}

/* The options whose words start the line at *p, moving *p past them; a user's into user. */
static unsigned int parse_options(const char **p, const char *end, char *user)
{
	unsigned int options = 0;
	bool taken;

	do {
		taken = take_user(p, end, user);
		for (unsigned int o = 1; o & TARGETSFILE_OPTS; o <<= 1) {
			if (take_word(p, end, option_words[o])) {
				options |= o;
				taken = true;
			}
		}
	} while (taken);
	return options;
}

/* The kind whose word is at *p (moving *p past it), or TARGET_PID. */
static enum target_kind parse_kind(const char **p, const char *end)
{
	for (size_t k = 1; k < NR_KINDS; k++)
		if (take_word(p, end, kind_words[k]))
			return k;
	return TARGET_PID;
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

int targetsfile_parse_line(const char *line, size_t len, char *value, unsigned int *options,
			   char *user)
{
	const char *end = line + len;
	const char *p = skip_space(line, end), *value_start;
	enum target_kind kind;

	user[0] = '\0';
	if (p == end || *p == '#')
		return TARGETSFILE_LINE_BLANK;
	*options = parse_options(&p, end, user);
	kind = parse_kind(&p, end);
	/* One user's processes: of a name only. */
	if (user[0] && kind != TARGET_COMM)
		return TARGETSFILE_LINE_BAD;
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

bool targetsfile_valid_value(enum target_kind kind, const char *value)
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

bool targetsfile_valid_user(const char *user)
{
	size_t len = strlen(user);

	for (const char *p = user; *p; p++)
		if (ends_value(p, p + 1))
			return false;
	return len > 0 && len < TARGETSFILE_USER_MAX;
}

const char *targetsfile_words(enum target_kind kind)
{
	return kind_words[kind];
}

const char *targetsfile_option_words(unsigned int options)
{
	return option_words[options & TARGETSFILE_OPTS];
}

const char *targetsfile_options_list(unsigned int options,
				     const char *const names[TARGETSFILE_NR_OPTS], char *buf,
				     size_t size)
{
	unsigned int left = options & TARGETSFILE_OPTS;
	size_t len = 0;

	buf[0] = '\0';
	for (unsigned int i = 0; left && len < size; i++) {
		unsigned int o = 1u << i;

		if (!(left & o))
			continue;
		left &= ~o;
		/* Before the last: " and "; before the others but the first: ", ". */
		len += (size_t)snprintf(buf + len, size - len, "%s%s",
					len ? (left ? ", " : " and ") : "", names[i]);
	}
	return buf;
}

/* Bad lines are quoted in reports up to this length. */
#define QUOTE_MAX 80

/* Whether two users are the same: both none, or one name. */
static bool same_user(const char *a, const char *b)
{
	return a && b ? !strcmp(a, b) : a == b;
}

ssize_t targetsfile_values_find(const struct targetsfile_values *list, enum target_kind kind,
				const char *value, const char *user)
{
	for (size_t i = 0; i < list->count; i++) {
		if (list->kinds[i] == kind && !strcmp(list->values[i], value) &&
		    same_user(list->users[i], user))
			return i;
	}
	return -1;
}

/* getline() returns -1 both at the end and on errors; only errors leave feof() unset. */
int targetsfile_read_error(FILE *f)
{
	if (feof(f))
		return 0;
	return errno ? -errno : -EIO;
}

/* Grows each of list's arrays to grown entries; 0 or -ENOMEM. */
static int grow_values(struct targetsfile_values *list, size_t grown)
{
	char **values = reallocarray(list->values, grown, sizeof(*values)), **users;
	enum target_kind *kinds;
	unsigned int *options;

	if (!values)
		return -ENOMEM;
	list->values = values;
	users = reallocarray(list->users, grown, sizeof(*users));
	if (!users)
		return -ENOMEM;
	list->users = users;
	kinds = reallocarray(list->kinds, grown, sizeof(*kinds));
	if (!kinds)
		return -ENOMEM;
	list->kinds = kinds;
	options = reallocarray(list->options, grown, sizeof(*options));
	if (!options)
		return -ENOMEM;
	list->options = options;
	return 0;
}

/* A value seen again gains its line's options: the list has one entry per kind and value. */
static int append_value(struct targetsfile_values *list, size_t *capacity,
			enum target_kind kind, unsigned int options, const char *value,
			const char *user)
{
	ssize_t seen = targetsfile_values_find(list, kind, value, user);
	char *copy, *user_copy = NULL;

	if (seen >= 0) {
		list->options[seen] |= options;
		return 0;
	}
	if (list->count == *capacity) {
		size_t grown = *capacity ? 2 * *capacity : 16;
		int err = grow_values(list, grown);

		if (err)
			return err;
		*capacity = grown;
	}
	copy = strdup(value);
	if (user)
		user_copy = strdup(user);
	if (!copy || (user && !user_copy)) {
		free(copy);
		free(user_copy);
		return -ENOMEM;
	}
	list->users[list->count] = user_copy;
	list->kinds[list->count] = kind;
	list->options[list->count] = options;
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
		 "'latency' or both, 'comm' also after 'user=USER', or a '#' comment",
		 len > QUOTE_MAX ? QUOTE_MAX : (int)len, line, len > QUOTE_MAX ? "..." : "");
	report(ctx, path, lineno, message);
}

/* The values of the lines of these kinds; bad lines go to report (if not NULL). */
static int read_values(FILE *f, const char *path, unsigned int kinds,
		       struct targetsfile_values *list, targetsfile_report_fn *report, void *ctx)
{
	char *line = NULL, value[TARGETSFILE_VALUE_MAX], user[TARGETSFILE_USER_MAX];
	unsigned int lineno = 0;
	size_t capacity = 0, size = 0;
	ssize_t len;
	int err = 0;

	while (!err && (len = getline(&line, &size, f)) >= 0) {
		unsigned int options;
		int found = targetsfile_parse_line(line, len, value, &options, user);

		lineno++;
		if (found >= 0 && (kinds & TARGETSFILE_KIND(found)))
			err = append_value(list, &capacity, found, options, value,
					   user[0] ? user : NULL);
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
	for (size_t i = 0; i < list->count; i++) {
		free(list->values[i]);
		free(list->users[i]);
	}
	free(list->values);
	free(list->users);
	free(list->kinds);
	free(list->options);
	*list = (struct targetsfile_values){ 0 };
}

void pidlist_free(struct pidlist *list)
{
	free(list->pids);
	free(list->options);
	*list = (struct pidlist){ 0 };
}
