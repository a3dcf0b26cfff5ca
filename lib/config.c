// SPDX-License-Identifier: GPL-2.0
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <linux/mp3.h>

#include "pfprof.h"

#define LINE_MAX_BYTES 4096
/* Quoted keys and values are cut to this length so that messages stay readable. */
#define QUOTE_MAX 80

struct unit {
	char suffix;		/* '\0' ends a unit table */
	uint64_t scale;
};

static const struct unit size_units[] = {
	{ 'K', 1ULL << 10 }, { 'M', 1ULL << 20 }, { 'G', 1ULL << 30 }, { '\0', 0 }
};
static const struct unit age_units[] = {
	{ 's', 1 }, { 'm', 60 }, { 'h', 3600 }, { 'd', 86400 }, { '\0', 0 }
};
static const struct unit no_units[] = { { '\0', 0 } };

/* Each parser stores into field only when text is valid, so a bad line changes nothing. */
struct value_type {
	bool (*parse)(const char *text, void *field);
	const char *expected;
};

struct key {
	const char *name;
	size_t offset;
	const struct value_type *type;
};

/* Where the line being applied comes from, for reports. */
struct source {
	const char *path;
	unsigned int lineno;
	config_report_fn *report;
	void *ctx;
};

static bool parse_path(const char *text, void *field)
{
	size_t len = strlen(text);

	/* The line limit keeps values shorter today; the length check guards the copy anyway. */
	if (text[0] != '/' || len >= PATH_MAX)
		return false;
	memcpy(field, text, len + 1);
	return true;
}

/* Decimal digits, then at most one suffix from units; false on anything else or overflow. */
static bool parse_scaled(const char *text, const struct unit *units, uint64_t *value)
{
	uint64_t number = 0, scale = 1;
	const char *p = text;

	/* Checked here rather than left to strtoull(), which takes signs and white space. */
	if (!isdigit((unsigned char)*p))
		return false;
	for (; isdigit((unsigned char)*p); p++) {
		unsigned int digit = *p - '0';

		if (number > (UINT64_MAX - digit) / 10)
			return false;
		number = number * 10 + digit;
	}
	if (*p) {
		while (units->suffix && units->suffix != *p)
			units++;
		if (!units->suffix || p[1])
			return false;
		scale = units->scale;
	}
	if (number > UINT64_MAX / scale)
		return false;
	*value = number * scale;
	return true;
}

static bool parse_size(const char *text, void *field)
{
	return parse_scaled(text, size_units, field);
}

static bool parse_age(const char *text, void *field)
{
	return parse_scaled(text, age_units, field);
}

/* An absolute path, or nothing: "" turns the feature off. */
static bool parse_optional_path(const char *text, void *field)
{
	if (!text[0]) {
		*(char *)field = '\0';
		return true;
	}
	return parse_path(text, field);
}

/* A period of at least a second. */
static bool parse_interval(const char *text, void *field)
{
	uint64_t seconds;

	if (!parse_scaled(text, age_units, &seconds) || !seconds)
		return false;
	*(uint64_t *)field = seconds;
	return true;
}

/* A whole number from 0 to max into an unsigned int. */
static bool parse_bounded(const char *text, void *field, uint64_t max)
{
	uint64_t number;

	if (!parse_scaled(text, no_units, &number) || number > max)
		return false;
	*(unsigned int *)field = number;
	return true;
}

static bool parse_keep(const char *text, void *field)
{
	return parse_bounded(text, field, 1000);
}

static bool parse_count(const char *text, void *field)
{
	return parse_bounded(text, field, 100000);
}

/* "on", or "leave" (as it is): a word each, rather than a boolean the reader must decode. */
static bool parse_on_or_leave(const char *text, void *field)
{
	if (strcmp(text, "on") && strcmp(text, "leave"))
		return false;
	*(bool *)field = !strcmp(text, "on");
	return true;
}

static const struct value_type path_type = { parse_path, "an absolute path" };
static const struct value_type size_type = { parse_size, "a size like 16M (K, M or G)" };
static const struct value_type age_type = { parse_age, "an age like 1d (s, m, h or d)" };
static const struct value_type keep_type = { parse_keep, "a number from 0 to 1000" };
static const struct value_type optional_path_type = {
	parse_optional_path, "an absolute path, or nothing to turn it off"
};
static const struct value_type interval_type = {
	parse_interval, "an interval of at least 1s (s, m, h or d)"
};
static const struct value_type count_type = {
	parse_count, "a number from 0 to 100000"
};
static const struct value_type on_or_leave_type = { parse_on_or_leave, "on or leave" };

#define KEY(name, type) { #name, offsetof(struct pfprof_config, name), &type }
static const struct key keys[] = {
	KEY(log_dir, path_type),
	KEY(rotate_size, size_type),
	{ "rotate_age", offsetof(struct pfprof_config, rotate_age_s), &age_type },
	KEY(keep, keep_type),
	{ "write_interval", offsetof(struct pfprof_config, write_interval_s), &age_type },
	KEY(targets_file, path_type),
	/* The older spelling, from when the file held only PIDs; configurations still use it. */
	{ "pid_file", offsetof(struct pfprof_config, targets_file), &path_type },
	KEY(device, path_type),
	KEY(status_file, path_type),
	KEY(runtime_dir, path_type),
	KEY(state_dir, path_type),
	KEY(prometheus_dir, optional_path_type),
	{ "prometheus_interval", offsetof(struct pfprof_config, prometheus_interval_s),
	  &interval_type },
	KEY(prometheus_max_processes, count_type),
	KEY(user_log_lines, count_type),
	KEY(delay_accounting, on_or_leave_type),
};

void config_defaults(struct pfprof_config *config)
{
	memset(config, 0, sizeof(*config));
	strcpy(config->log_dir, PFPROF_LOG_DIR);
	config->rotate_size = 16 * 1024 * 1024;
	config->rotate_age_s = 86400;
	config->keep = 10;
	config->write_interval_s = 1;
	strcpy(config->targets_file, PFPROF_TARGETS_FILE);
	strcpy(config->device, MP3_DEVICE_PATH);
	strcpy(config->status_file, MP3_STATUS_PATH);
	strcpy(config->runtime_dir, PFPROF_RUNTIME_DIR);
	strcpy(config->state_dir, PFPROF_STATE_DIR);
	strcpy(config->prometheus_dir, PFPROF_PROMETHEUS_DIR);
	config->prometheus_interval_s = 5;
	config->prometheus_max_processes = 100;
	config->user_log_lines = 100;
	config->delay_accounting = true;
}

__attribute__((format(printf, 2, 3)))
static void complain(const struct source *src, const char *fmt, ...)
{
	char message[2 * QUOTE_MAX + 256];
	va_list ap;

	if (!src->report)
		return;
	va_start(ap, fmt);
	vsnprintf(message, sizeof(message), fmt, ap);
	va_end(ap);
	src->report(src->ctx, src->path, src->lineno, message);
}

/* For "%.*s%s": the length to print and "..." when text was cut. */
static int quote_len(const char *text)
{
	return strlen(text) > QUOTE_MAX ? QUOTE_MAX : (int)strlen(text);
}

static const char *quote_cut(const char *text)
{
	return strlen(text) > QUOTE_MAX ? "..." : "";
}

static char *trim(char *text)
{
	char *end = text + strlen(text);

	while (isspace((unsigned char)*text))
		text++;
	while (end > text && isspace((unsigned char)end[-1]))
		end--;
	*end = '\0';
	return text;
}

/* Cuts line at its comment: a '#' that starts the line or follows white space. */
static void strip_comment(char *line)
{
	for (char *p = line; *p; p++) {
		if (*p == '#' && (p == line || isspace((unsigned char)p[-1]))) {
			*p = '\0';
			return;
		}
	}
}

static const struct key *find_key(const char *name)
{
	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
		if (!strcmp(keys[i].name, name))
			return &keys[i];
	}
	return NULL;
}

static void apply_line(struct pfprof_config *config, char *line, const struct source *src)
{
	const struct key *key;
	char *equals, *name, *value;

	strip_comment(line);
	line = trim(line);
	if (!*line)
		return;
	equals = strchr(line, '=');
	if (!equals || equals == line) {
		complain(src, "expected key = value");
		return;
	}
	*equals = '\0';
	name = trim(line);
	value = trim(equals + 1);
	key = find_key(name);
	if (!key) {
		complain(src, "unknown key '%.*s%s'", quote_len(name), name, quote_cut(name));
		return;
	}
	if (!key->type->parse(value, (char *)config + key->offset))
		complain(src, "bad value '%.*s%s' for %s: expected %s", quote_len(value), value,
		       quote_cut(value), key->name, key->type->expected);
}

/* Applies the lines of f; returns 0 or -errno if reading failed. */
static int apply_file(struct pfprof_config *config, FILE *f, struct source *src)
{
	char *line = NULL;
	size_t size = 0;
	ssize_t len;
	int err = 0;

	while ((len = getline(&line, &size, f)) >= 0) {
		src->lineno++;
		if (len > 0 && line[len - 1] == '\n')
			line[--len] = '\0';
		if (len > LINE_MAX_BYTES)
			complain(src, "line longer than %d bytes", LINE_MAX_BYTES);
		else if (strlen(line) != (size_t)len)
			complain(src, "NUL byte in line");
		else
			apply_line(config, line, src);
	}
	/* getline() returns -1 both at the end and on errors; only errors leave feof() unset. */
	if (!feof(f))
		err = errno ? -errno : -EIO;
	free(line);
	return err;
}

int config_load(struct pfprof_config *config, const char *path,
		config_report_fn *report, void *ctx)
{
	struct source src = { .path = path, .report = report, .ctx = ctx };
	FILE *f;
	int err;

	config_defaults(config);
	f = fopen(path, "re");
	if (!f)
		return -errno;
	err = apply_file(config, f, &src);
	fclose(f);
	/* Half a file is not what the administrator wrote: fall back to the defaults entirely. */
	if (err)
		config_defaults(config);
	return err;
}

int config_load_file(struct pfprof_config *config, const char *path,
		     config_report_fn *report, void *ctx)
{
	int err = config_load(config, path ? path : PFPROF_CONFIG_PATH, report, ctx);

	return err == -ENOENT && !path ? 0 : err;
}
