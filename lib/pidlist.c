// SPDX-License-Identifier: GPL-2.0
#include "pidlist.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "atomicfile.h"
#include "privfile.h"

/* Bad lines are quoted in reports up to this length. */
#define QUOTE_MAX 80

/* A line: blank (or a comment), malformed, or one of the kinds in pidlist.h. */
#define LINE_BLANK (-1)
#define LINE_BAD (-2)

/* The word before a line's value, by kind; a PID's line has none. */
static const char *const kind_words[] = {
	[PIDLIST_PID] = "", [PIDLIST_TREE] = "tree", [PIDLIST_CGROUP] = "cgroup",
	[PIDLIST_UNIT] = "unit", [PIDLIST_COMM] = "comm", [PIDLIST_MAPS] = "maps",
	[PIDLIST_MAPS_TREE] = "maps tree", [PIDLIST_MAPS_CGROUP] = "maps cgroup",
	[PIDLIST_MAPS_UNIT] = "maps unit", [PIDLIST_MAPS_COMM] = "maps comm",
};

/* "maps" before a target's word: the kind of that line. */
static const enum pidlist_kind maps_kinds[][2] = {
	{ PIDLIST_TREE, PIDLIST_MAPS_TREE }, { PIDLIST_CGROUP, PIDLIST_MAPS_CGROUP },
	{ PIDLIST_UNIT, PIDLIST_MAPS_UNIT }, { PIDLIST_COMM, PIDLIST_MAPS_COMM },
};

#define NR_KINDS (sizeof(kind_words) / sizeof(kind_words[0]))

/* What pidlist_add*() or pidlist_remove*() does to the file. */
struct edit {
	enum pidlist_kind kind;	/* of the lines it adds or removes */
	const char *const *values;
	size_t count;
	bool removing;
	bool *present;		/* adding: values[i] is in the file already */
	bool changed;
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
static bool holds_pid(enum pidlist_kind kind)
{
	return kind == PIDLIST_PID || kind == PIDLIST_TREE || kind == PIDLIST_MAPS ||
	       kind == PIDLIST_MAPS_TREE;
}

/* The kind of one word at *p (moving *p past it and the space after), or PIDLIST_PID. */
static enum pidlist_kind parse_one_word(const char **p, const char *end)
{
	for (size_t k = 1; k <= PIDLIST_MAPS; k++) {
		size_t len = strlen(kind_words[k]);

		if ((size_t)(end - *p) > len && !strncmp(*p, kind_words[k], len) &&
		    isspace((unsigned char)(*p)[len])) {
			*p = skip_space(*p + len, end);
			return k;
		}
	}
	return PIDLIST_PID;
}

/* The kind whose words start the line at *p (moving *p past them), or PIDLIST_PID. */
static enum pidlist_kind parse_word(const char **p, const char *end)
{
	enum pidlist_kind kind = parse_one_word(p, end), target;
	const char *after = *p;

	if (kind != PIDLIST_MAPS)
		return kind;
	target = parse_one_word(&after, end);
	for (size_t i = 0; i < sizeof(maps_kinds) / sizeof(maps_kinds[0]); i++) {
		if (maps_kinds[i][0] == target) {
			*p = after;
			return maps_kinds[i][1];
		}
	}
	return PIDLIST_MAPS;
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
	snprintf(canon, PIDLIST_VALUE_MAX, "%ld", pid);
	return true;
}

/*
 * A line is blank, a comment, or a kind's word (none for a PID), white space
 * and a value, then optional white space and comment. The value goes to
 * value (PIDLIST_VALUE_MAX bytes), a PID's in canonical form. line[len] must
 * be '\0' (getline() ensures it) so that strtol() stops in the buffer.
 */
static int parse_line(const char *line, size_t len, char *value)
{
	const char *end = line + len;
	const char *p = skip_space(line, end), *value_start;
	enum pidlist_kind kind;

	if (p == end || *p == '#')
		return LINE_BLANK;
	kind = parse_word(&p, end);
	value_start = p;
	/* An embedded NUL ends the value too, and is then neither space nor '#'. */
	while (!ends_value(p, end) && *p)
		p++;
	if (p == value_start || p - value_start >= PIDLIST_VALUE_MAX)
		return LINE_BAD;
	if (holds_pid(kind)) {
		if (!canonical_pid(value_start, p - value_start, value))
			return LINE_BAD;
	} else {
		memcpy(value, value_start, p - value_start);
		value[p - value_start] = '\0';
	}
	p = skip_space(p, end);
	if (p != end && *p != '#')
		return LINE_BAD;
	return kind;
}

static bool holds(const char *const *values, size_t count, const char *value)
{
	for (size_t i = 0; i < count; i++) {
		if (!strcmp(values[i], value))
			return true;
	}
	return false;
}

/* Whether list has that line already. */
static bool list_holds(const struct pidlist_values *list, enum pidlist_kind kind,
		       const char *value)
{
	for (size_t i = 0; i < list->count; i++) {
		if (list->kinds[i] == kind && !strcmp(list->values[i], value))
			return true;
	}
	return false;
}

/* getline() returns -1 both at the end and on errors; only errors leave feof() unset. */
static int read_error(FILE *f)
{
	if (feof(f))
		return 0;
	return errno ? -errno : -EIO;
}

static int append_value(struct pidlist_values *list, size_t *capacity, enum pidlist_kind kind,
			const char *value)
{
	char *copy;

	if (list->count == *capacity) {
		size_t grown = *capacity ? 2 * *capacity : 16;
		char **values = reallocarray(list->values, grown, sizeof(*values));
		enum pidlist_kind *kinds;

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

static void report_bad_line(pidlist_report_fn *report, void *ctx, const char *path,
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
		       struct pidlist_values *list, pidlist_report_fn *report, void *ctx)
{
	char *line = NULL, value[PIDLIST_VALUE_MAX];
	unsigned int lineno = 0;
	size_t capacity = 0, size = 0;
	ssize_t len;
	int err = 0;

	while (!err && (len = getline(&line, &size, f)) >= 0) {
		int found = parse_line(line, len, value);

		lineno++;
		if (found >= 0 && (kinds & PIDLIST_KIND(found)) && !list_holds(list, found, value))
			err = append_value(list, &capacity, found, value);
		else if (found == LINE_BAD && report)
			report_bad_line(report, ctx, path, lineno, line, len);
	}
	free(line);
	return err ? err : read_error(f);
}

int pidlist_read_values(const char *path, unsigned int kinds, struct pidlist_values *list,
			pidlist_report_fn *report, void *ctx)
{
	FILE *f = fopen(path, "re");
	int err;

	*list = (struct pidlist_values){ 0 };
	if (!f)
		return errno == ENOENT ? 0 : -errno;
	err = read_values(f, path, kinds, list, report, ctx);
	fclose(f);
	if (err)
		pidlist_values_free(list);
	return err;
}

void pidlist_values_free(struct pidlist_values *list)
{
	for (size_t i = 0; i < list->count; i++)
		free(list->values[i]);
	free(list->values);
	free(list->kinds);
	*list = (struct pidlist_values){ 0 };
}

/* The PIDs of a list of PID or tree values, which parse_line() made canonical. */
static int values_to_pids(const struct pidlist_values *values, struct pidlist *list)
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

static int read_kind(const char *path, enum pidlist_kind kind, struct pidlist *list,
		     pidlist_report_fn *report, void *ctx)
{
	struct pidlist_values values;
	int err = pidlist_read_values(path, PIDLIST_KIND(kind), &values, report, ctx);

	list->pids = NULL;
	list->count = 0;
	if (err)
		return err;
	err = values_to_pids(&values, list);
	pidlist_values_free(&values);
	return err;
}

int pidlist_read(const char *path, struct pidlist *list,
		 pidlist_report_fn *report, void *ctx)
{
	return read_kind(path, PIDLIST_PID, list, report, ctx);
}

int pidlist_read_trees(const char *path, struct pidlist *roots)
{
	return read_kind(path, PIDLIST_TREE, roots, NULL, NULL);
}

int pidlist_read_kind(const char *path, enum pidlist_kind kind, struct pidlist *list)
{
	return read_kind(path, kind, list, NULL, NULL);
}

void pidlist_free(struct pidlist *list)
{
	free(list->pids);
	list->pids = NULL;
	list->count = 0;
}

static int path_with_suffix(char *buf, const char *path, const char *suffix)
{
	if (snprintf(buf, PATH_MAX, "%s%s", path, suffix) >= PATH_MAX)
		return -ENAMETOOLONG;
	return 0;
}

/* Returns the locked file descriptor (close it to unlock) or -errno. */
static int lock_pidlist(const char *path)
{
	char lock_path[PATH_MAX];
	int fd, err = path_with_suffix(lock_path, path, ".lock");

	if (err)
		return err;
	/* Read-only is enough for flock(), and works on a lock file another user created. */
	fd = private_open(lock_path, O_RDONLY);
	if (fd < 0)
		return fd;
	while (flock(fd, LOCK_EX)) {
		if (errno != EINTR) {
			err = -errno;
			close(fd);
			return err;
		}
	}
	return fd;
}

/* Writes one line of the old file to out, or drops it if it holds a value being removed. */
static int copy_line(FILE *out, const char *line, size_t len, struct edit *edit)
{
	char value[PIDLIST_VALUE_MAX];

	if (parse_line(line, len, value) == (int)edit->kind) {
		for (size_t i = 0; i < edit->count; i++) {
			if (strcmp(edit->values[i], value))
				continue;
			if (edit->removing) {
				edit->changed = true;
				return 0;
			}
			edit->present[i] = true;
		}
	}
	if (fwrite(line, 1, len, out) != len)
		return -errno;
	/* The last line may lack its newline; added lines must not join it. */
	if (len && line[len - 1] != '\n' && putc('\n', out) == EOF)
		return -errno;
	return 0;
}

static int copy_lines(FILE *in, FILE *out, struct edit *edit)
{
	char *line = NULL;
	size_t size = 0;
	ssize_t len;
	int err = 0;

	while (!err && (len = getline(&line, &size, in)) >= 0)
		err = copy_line(out, line, len, edit);
	free(line);
	return err ? err : read_error(in);
}

/* Appends the values being added that the file did not hold, each once. */
static int append_new_values(FILE *out, struct edit *edit)
{
	const char *word = kind_words[edit->kind];

	for (size_t i = 0; i < edit->count; i++) {
		if (edit->present[i] || holds(edit->values, i, edit->values[i]))
			continue;
		if (fprintf(out, "%s%s%s\n", word, *word ? " " : "", edit->values[i]) < 0)
			return -errno;
		edit->changed = true;
	}
	return 0;
}

/* Writes the edited contents of path (NULL in: the file does not exist) to out. */
static int write_edited(FILE *in, FILE *out, struct edit *edit)
{
	int err = in ? copy_lines(in, out, edit) : 0;

	if (!err && !edit->removing)
		err = append_new_values(out, edit);
	return err;
}

/*
 * Writes the edited file and puts it in place of path (atomic_file_commit_private(),
 * durable: mode 0640, group pfprof, as pfprofd reads it). An existing file that
 * the edit would not change is left alone.
 */
static int rewrite(const char *path, FILE *in, struct edit *edit)
{
	struct atomic_file f;
	int err = atomic_file_begin(&f, path);

	if (err)
		return err;
	err = write_edited(in, f.out, edit);
	if (err || (!edit->changed && in)) {
		atomic_file_abort(&f);
		return err;
	}
	return atomic_file_commit_private(&f, true);
}

/* Applies edit to path under the lock. */
static int edit_pidlist(const char *path, struct edit *edit)
{
	int lock_fd = lock_pidlist(path);
	FILE *in;
	int err;

	/* Without a directory for the lock file there is no file to remove from either. */
	if (lock_fd == -ENOENT && edit->removing)
		return 0;
	if (lock_fd < 0)
		return lock_fd;
	in = fopen(path, "re");
	if (!in && errno != ENOENT) {
		err = -errno;
	} else if (!in && edit->removing) {
		err = 0;
	} else {
		err = rewrite(path, in, edit);
		if (in)
			fclose(in);
	}
	close(lock_fd);
	return err;
}

/*
 * A value the file can hold: one word, no longer than PIDLIST_VALUE_MAX - 1,
 * a PID's in canonical form (as parse_line() will read it back).
 */
static bool valid_value(enum pidlist_kind kind, const char *value)
{
	size_t len = strlen(value);

	if (holds_pid(kind)) {
		char canon[PIDLIST_VALUE_MAX];

		return canonical_pid(value, len, canon) && !strcmp(canon, value);
	}
	if (!len || len >= PIDLIST_VALUE_MAX)
		return false;
	for (const char *p = value; *p; p++)
		if (ends_value(p, p + 1))
			return false;
	return true;
}

int pidlist_edit_values(const char *path, enum pidlist_kind kind, bool add,
			const char *const *values, size_t count)
{
	struct edit edit = { .kind = kind, .values = values, .count = count, .removing = !add };
	int err;

	for (size_t i = 0; i < count; i++) {
		if (!valid_value(kind, values[i]))
			return -EINVAL;
	}
	edit.present = calloc(count ? count : 1, sizeof(*edit.present));
	if (!edit.present)
		return -ENOMEM;
	err = edit_pidlist(path, &edit);
	free(edit.present);
	return err;
}

/* The kind of the lines that are plain's with "maps" before; plain itself if none. */
static enum pidlist_kind maps_kind_of(enum pidlist_kind plain)
{
	if (plain == PIDLIST_PID)
		return PIDLIST_MAPS;
	for (size_t i = 0; i < sizeof(maps_kinds) / sizeof(maps_kinds[0]); i++)
		if (maps_kinds[i][0] == plain)
			return maps_kinds[i][1];
	return plain;
}

/* The values of count that the file has as lines of kind: cleared in values[]. */
static int drop_kept(const char *path, enum pidlist_kind kind, const char **values,
		     size_t count)
{
	struct pidlist_values kept;
	int err = pidlist_read_values(path, PIDLIST_KIND(kind), &kept, NULL, NULL);

	for (size_t i = 0; !err && i < count; i++)
		if (list_holds(&kept, kind, values[i]))
			values[i] = NULL;
	pidlist_values_free(&kept);
	return err;
}

/* values[] without the NULLs, in order; returns how many are left. */
static size_t compact(const char **values, size_t count)
{
	size_t n = 0;

	for (size_t i = 0; i < count; i++)
		if (values[i])
			values[n++] = values[i];
	return n;
}

/* pidlist_edit_maps()'s work on values[], which it may change. */
static int edit_maps(const char *path, enum pidlist_kind plain, bool maps, bool add,
		     const char **values, size_t count)
{
	enum pidlist_kind with_maps = maps_kind_of(plain);
	int err;

	if (!add) {
		err = pidlist_edit_values(path, plain, false, values, count);
		return err ? err : pidlist_edit_values(path, with_maps, false, values, count);
	}
	if (maps) {
		/* The new line first: pfprofd never reads the file with neither. */
		err = pidlist_edit_values(path, with_maps, true, values, count);
		return err ? err : pidlist_edit_values(path, plain, false, values, count);
	}
	err = drop_kept(path, with_maps, values, count);
	return err ? err : pidlist_edit_values(path, plain, true, values, compact(values, count));
}

int pidlist_edit_maps(const char *path, enum pidlist_kind plain, bool maps, bool add,
		      const char *const *values, size_t count)
{
	const char **copy = calloc(count ? count : 1, sizeof(*copy));
	int err;

	if (!copy)
		return -ENOMEM;
	memcpy(copy, values, count * sizeof(*copy));
	err = edit_maps(path, plain, maps, add, copy, count);
	free(copy);
	return err;
}

/* Calls edit with pids[] as decimal values. */
static int edit_as_values(const pid_t *pids, size_t count,
			  int (*edit)(const char **values, size_t count, void *ctx), void *ctx)
{
	char (*texts)[PIDLIST_VALUE_MAX] = calloc(count ? count : 1, sizeof(*texts));
	const char **values = calloc(count ? count : 1, sizeof(*values));
	int err = -ENOMEM;

	if (!texts || !values)
		goto out;
	for (size_t i = 0; i < count; i++) {
		snprintf(texts[i], sizeof(texts[i]), "%d", (int)pids[i]);
		values[i] = texts[i];
	}
	err = edit(values, count, ctx);
out:
	free(texts);
	free(values);
	return err;
}

/* What pidlist_edit_pids() and pidlist_edit_maps_pids() do to the file. */
struct pids_edit {
	const char *path;
	enum pidlist_kind kind;
	bool maps;
	bool add;
	bool pair;	/* the kind's lines with "maps" and without */
};

static int edit_pid_values(const char **values, size_t count, void *ctx)
{
	const struct pids_edit *e = ctx;

	if (e->pair)
		return edit_maps(e->path, e->kind, e->maps, e->add, values, count);
	return pidlist_edit_values(e->path, e->kind, e->add, values, count);
}

int pidlist_edit_pids(const char *path, enum pidlist_kind kind, bool add, const pid_t *pids,
		      size_t count)
{
	struct pids_edit e = { .path = path, .kind = kind, .add = add };

	return edit_as_values(pids, count, edit_pid_values, &e);
}

int pidlist_edit_maps_pids(const char *path, enum pidlist_kind plain, bool maps, bool add,
			   const pid_t *pids, size_t count)
{
	struct pids_edit e = { .path = path, .kind = plain, .maps = maps, .add = add,
			       .pair = true };

	return edit_as_values(pids, count, edit_pid_values, &e);
}

int pidlist_add(const char *path, const pid_t *pids, size_t count)
{
	return pidlist_edit_pids(path, PIDLIST_PID, true, pids, count);
}

int pidlist_add_trees(const char *path, const pid_t *roots, size_t count)
{
	return pidlist_edit_pids(path, PIDLIST_TREE, true, roots, count);
}

int pidlist_remove(const char *path, const pid_t *pids, size_t count)
{
	return pidlist_edit_pids(path, PIDLIST_PID, false, pids, count);
}

int pidlist_remove_trees(const char *path, const pid_t *roots, size_t count)
{
	return pidlist_edit_pids(path, PIDLIST_TREE, false, roots, count);
}
