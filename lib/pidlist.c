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

/* Bad lines are quoted in reports up to this length. */
#define QUOTE_MAX 80

enum line_kind { LINE_BLANK, LINE_PID, LINE_TREE, LINE_BAD };

/* The word before a tree's PID. */
#define TREE_WORD "tree"

/* What pidlist_add() or pidlist_remove() does to the file. */
struct edit {
	enum line_kind kind;	/* of the lines it adds or removes: LINE_PID or LINE_TREE */
	const pid_t *pids;
	size_t count;
	bool removing;
	bool *present;		/* adding: pids[i] is in the file already */
	bool changed;
};

static const char *skip_space(const char *p, const char *end)
{
	while (p < end && isspace((unsigned char)*p))
		p++;
	return p;
}

/*
 * A line is blank, a comment, or a PID ("tree" and white space before it for
 * a tree) with optional white space and comment. line[len] must be '\0'
 * (getline() ensures it) so strtol() stops in the buffer.
 */
static enum line_kind parse_line(const char *line, size_t len, pid_t *pid)
{
	const char *end = line + len;
	const char *p = skip_space(line, end);
	enum line_kind kind = LINE_PID;
	char *number_end;
	long value;

	if (p == end || *p == '#')
		return LINE_BLANK;
	if (!strncmp(p, TREE_WORD, strlen(TREE_WORD)) &&
	    isspace((unsigned char)p[strlen(TREE_WORD)])) {
		kind = LINE_TREE;
		p = skip_space(p + strlen(TREE_WORD), end);
	}
	/* strtol() would also take a sign; a PID file holds digits only. */
	if (!isdigit((unsigned char)*p))
		return LINE_BAD;
	errno = 0;
	value = strtol(p, &number_end, 10);
	if (errno || value < 1 || value > INT_MAX)
		return LINE_BAD;
	/* An embedded NUL stops here too, since it is neither space nor '#'. */
	p = skip_space(number_end, end);
	if (p != end && *p != '#')
		return LINE_BAD;
	*pid = value;
	return kind;
}

static bool holds(const pid_t *pids, size_t count, pid_t pid)
{
	for (size_t i = 0; i < count; i++) {
		if (pids[i] == pid)
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

static int append_pid(struct pidlist *list, size_t *capacity, pid_t pid)
{
	if (list->count == *capacity) {
		size_t grown = *capacity ? 2 * *capacity : 16;
		pid_t *pids = reallocarray(list->pids, grown, sizeof(*pids));

		if (!pids)
			return -ENOMEM;
		list->pids = pids;
		*capacity = grown;
	}
	list->pids[list->count++] = pid;
	return 0;
}

static void report_bad_line(pidlist_report_fn *report, void *ctx, const char *path,
			    unsigned int lineno, const char *line, size_t len)
{
	char message[QUOTE_MAX + 128];

	if (len > 0 && line[len - 1] == '\n')
		len--;
	snprintf(message, sizeof(message),
		 "bad line '%.*s%s': expected a PID, 'tree' and a PID, or a '#' comment",
		 len > QUOTE_MAX ? QUOTE_MAX : (int)len, line, len > QUOTE_MAX ? "..." : "");
	report(ctx, path, lineno, message);
}

/* The PIDs of the lines of this kind; bad lines go to report (if not NULL). */
static int read_pids(FILE *f, const char *path, enum line_kind kind, struct pidlist *list,
		     pidlist_report_fn *report, void *ctx)
{
	unsigned int lineno = 0;
	size_t capacity = 0, size = 0;
	char *line = NULL;
	ssize_t len;
	int err = 0;
	pid_t pid = 0;

	while (!err && (len = getline(&line, &size, f)) >= 0) {
		enum line_kind found = parse_line(line, len, &pid);

		lineno++;
		if (found == kind && !holds(list->pids, list->count, pid))
			err = append_pid(list, &capacity, pid);
		else if (found == LINE_BAD && report)
			report_bad_line(report, ctx, path, lineno, line, len);
	}
	free(line);
	return err ? err : read_error(f);
}

static int read_kind(const char *path, enum line_kind kind, struct pidlist *list,
		     pidlist_report_fn *report, void *ctx)
{
	FILE *f = fopen(path, "re");
	int err;

	list->pids = NULL;
	list->count = 0;
	if (!f)
		return errno == ENOENT ? 0 : -errno;
	err = read_pids(f, path, kind, list, report, ctx);
	fclose(f);
	if (err)
		pidlist_free(list);
	return err;
}

int pidlist_read(const char *path, struct pidlist *list,
		 pidlist_report_fn *report, void *ctx)
{
	return read_kind(path, LINE_PID, list, report, ctx);
}

int pidlist_read_trees(const char *path, struct pidlist *roots)
{
	return read_kind(path, LINE_TREE, roots, NULL, NULL);
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
	fd = open(lock_path, O_RDONLY | O_CREAT | O_CLOEXEC, 0644);
	if (fd < 0)
		return -errno;
	while (flock(fd, LOCK_EX)) {
		if (errno != EINTR) {
			err = -errno;
			close(fd);
			return err;
		}
	}
	return fd;
}

/* Writes one line of the old file to out, or drops it if it holds a PID being removed. */
static int copy_line(FILE *out, const char *line, size_t len, struct edit *edit)
{
	pid_t pid = 0;

	if (parse_line(line, len, &pid) == edit->kind) {
		for (size_t i = 0; i < edit->count; i++) {
			if (edit->pids[i] != pid)
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

/* Appends the PIDs being added that the file did not hold, each once. */
static int append_new_pids(FILE *out, struct edit *edit)
{
	for (size_t i = 0; i < edit->count; i++) {
		if (edit->present[i] || holds(edit->pids, i, edit->pids[i]))
			continue;
		if (fprintf(out, "%s%d\n", edit->kind == LINE_TREE ? TREE_WORD " " : "",
			    (int)edit->pids[i]) < 0)
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
		err = append_new_pids(out, edit);
	return err;
}

/*
 * Writes the edited file and puts it in place of path (atomic_file_commit(),
 * durable, world-readable like the file it replaces). An existing file that
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
	return atomic_file_commit(&f, 0644, true);
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

static int add_kind(const char *path, enum line_kind kind, const pid_t *pids, size_t count)
{
	struct edit edit = { .kind = kind, .pids = pids, .count = count };
	int err;

	for (size_t i = 0; i < count; i++) {
		if (pids[i] < 1)
			return -EINVAL;
	}
	edit.present = calloc(count ? count : 1, sizeof(*edit.present));
	if (!edit.present)
		return -ENOMEM;
	err = edit_pidlist(path, &edit);
	free(edit.present);
	return err;
}

int pidlist_add(const char *path, const pid_t *pids, size_t count)
{
	return add_kind(path, LINE_PID, pids, count);
}

int pidlist_add_trees(const char *path, const pid_t *roots, size_t count)
{
	return add_kind(path, LINE_TREE, roots, count);
}

static int remove_kind(const char *path, enum line_kind kind, const pid_t *pids, size_t count)
{
	struct edit edit = { .kind = kind, .pids = pids, .count = count, .removing = true };

	return edit_pidlist(path, &edit);
}

int pidlist_remove(const char *path, const pid_t *pids, size_t count)
{
	return remove_kind(path, LINE_PID, pids, count);
}

int pidlist_remove_trees(const char *path, const pid_t *roots, size_t count)
{
	return remove_kind(path, LINE_TREE, roots, count);
}
