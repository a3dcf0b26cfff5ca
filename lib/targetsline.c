// SPDX-License-Identifier: GPL-2.0
#include "targetsline.h"

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

int targetsline_parse(const char *line, size_t len, char *value)
{
	const char *end = line + len;
	const char *p = skip_space(line, end), *value_start;
	enum targetsfile_kind kind;

	if (p == end || *p == '#')
		return TARGETSLINE_BLANK;
	kind = parse_word(&p, end);
	value_start = p;
	/* An embedded NUL ends the value too, and is then neither space nor '#'. */
	while (!ends_value(p, end) && *p)
		p++;
	if (p == value_start || p - value_start >= TARGETSFILE_VALUE_MAX)
		return TARGETSLINE_BAD;
	if (holds_pid(kind)) {
		if (!canonical_pid(value_start, p - value_start, value))
			return TARGETSLINE_BAD;
	} else {
		memcpy(value, value_start, p - value_start);
		value[p - value_start] = '\0';
	}
	p = skip_space(p, end);
	if (p != end && *p != '#')
		return TARGETSLINE_BAD;
	return kind;
}

bool targetsline_valid_value(enum targetsfile_kind kind, const char *value)
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

const char *targetsline_words(enum targetsfile_kind kind)
{
	return kind_words[kind];
}

enum targetsfile_kind targetsline_maps_kind(enum targetsfile_kind plain)
{
	if (plain == TARGETSFILE_PID)
		return TARGETSFILE_MAPS;
	for (size_t i = 0; i < sizeof(maps_kinds) / sizeof(maps_kinds[0]); i++)
		if (maps_kinds[i][0] == plain)
			return maps_kinds[i][1];
	return plain;
}
