// SPDX-License-Identifier: GPL-2.0
#include "targetsedit.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <unistd.h>

#include "atomicfile.h"
#include "privfile.h"
#include "targetsfile.h"

/* What targetsfile_edit_values() does to the file. */
struct edit {
	enum target_kind kind;	/* of the lines it adds or removes */
	unsigned int options;		/* adding: what each value's line has at least */
	const char *user;		/* of the lines ("user="), NULL: lines without */
	const char *const *values;
	size_t count;
	bool removing;
	unsigned int *had;	/* adding: the options of values[i]'s lines in the file, together */
	bool *present;		/* adding: values[i] has its line, with all its options, already */
	bool changed;
};

static bool holds(const char *const *values, size_t count, const char *value)
{
	for (size_t i = 0; i < count; i++) {
		if (!strcmp(values[i], value))
			return true;
	}
	return false;
}

static int path_with_suffix(char *buf, const char *path, const char *suffix)
{
	if (snprintf(buf, PATH_MAX, "%s%s", path, suffix) >= PATH_MAX)
		return -ENAMETOOLONG;
	return 0;
}

/* Returns the locked file descriptor (close it to unlock) or -errno. */
static int lock_targetsfile(const char *path)
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

/* The options the line of values[i] is to have: the edit's and those it had. */
static unsigned int wanted(const struct edit *edit, size_t i)
{
	return edit->options | edit->had[i];
}

/* Whether a line's user ("" for none) is the edit's. */
static bool edit_user_is(const struct edit *edit, const char *user)
{
	return edit->user ? !strcmp(edit->user, user) : !user[0];
}

/* Whether a line of the old file stays: not being removed, nor giving way to one with more options. */
static bool keep_line(struct edit *edit, const char *value, unsigned int options)
{
	bool keep = true;

	for (size_t i = 0; i < edit->count; i++) {
		if (strcmp(edit->values[i], value))
			continue;
		if (edit->removing || options != wanted(edit, i))
			keep = false;
		else
			edit->present[i] = true;
	}
	return keep;
}

/* Writes one line of the old file to out, or drops it. */
static int copy_line(FILE *out, const char *line, size_t len, struct edit *edit)
{
	char value[TARGETSFILE_VALUE_MAX], user[TARGETSFILE_USER_MAX];
	unsigned int options;

	if (targetsfile_parse_line(line, len, value, &options, user) == (int)edit->kind &&
	    edit_user_is(edit, user) && !keep_line(edit, value, options)) {
		edit->changed = true;
		return 0;
	}
	if (fwrite(line, 1, len, out) != len)
		return -errno;
	/* The last line may lack its newline; added lines must not join it. */
	if (len && line[len - 1] != '\n' && putc('\n', out) == EOF)
		return -errno;
	return 0;
}

/* Adding: the options that the file's lines give each value, into edit->had; then back to the start. */
static int gather_options(FILE *in, struct edit *edit)
{
	char *line = NULL, value[TARGETSFILE_VALUE_MAX], user[TARGETSFILE_USER_MAX];
	unsigned int options;
	size_t size = 0;
	ssize_t len;
	int err;

	while ((len = getline(&line, &size, in)) >= 0) {
		if (targetsfile_parse_line(line, len, value, &options, user) != (int)edit->kind ||
		    !edit_user_is(edit, user))
			continue;
		for (size_t i = 0; i < edit->count; i++)
			if (!strcmp(edit->values[i], value))
				edit->had[i] |= options;
	}
	free(line);
	err = targetsfile_read_error(in);
	if (!err && fseek(in, 0, SEEK_SET))
		err = -errno;
	return err;
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
	return err ? err : targetsfile_read_error(in);
}

/* Writes the line of values[i]: its options' words, its user's, its kind's, its value. */
static int write_line(FILE *out, const struct edit *edit, size_t i)
{
	const char *options = targetsfile_option_words(wanted(edit, i));
	const char *word = targetsfile_words(edit->kind);

	if (fprintf(out, "%s%s%s%s%s%s%s%s\n", options, *options ? " " : "",
		    edit->user ? "user=" : "", edit->user ? edit->user : "", edit->user ? " " : "",
		    word, *word ? " " : "", edit->values[i]) < 0)
		return -errno;
	return 0;
}

/* Appends the values being added that the file did not hold, each once. */
static int append_new_values(FILE *out, struct edit *edit)
{
	for (size_t i = 0; i < edit->count; i++) {
		int err;

		if (edit->present[i] || holds(edit->values, i, edit->values[i]))
			continue;
		err = write_line(out, edit, i);
		if (err)
			return err;
		edit->changed = true;
	}
	return 0;
}

/* Writes the edited contents of path (NULL in: the file does not exist) to out. */
static int write_edited(FILE *in, FILE *out, struct edit *edit)
{
	int err = in && !edit->removing ? gather_options(in, edit) : 0;

	if (!err && in)
		err = copy_lines(in, out, edit);

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
static int edit_targetsfile(const char *path, struct edit *edit)
{
	int lock_fd = lock_targetsfile(path);
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

int targetsfile_edit_values(const char *path, enum target_kind kind, unsigned int options,
			    bool add, const char *const *values, size_t count)
{
	return targetsfile_edit_user_values(path, kind, options, NULL, add, values, count);
}

int targetsfile_edit_user_values(const char *path, enum target_kind kind,
				 unsigned int options, const char *user, bool add,
				 const char *const *values, size_t count)
{
	struct edit edit = { .kind = kind, .options = options, .user = user, .values = values,
			     .count = count, .removing = !add };
	int err = -ENOMEM;

	if (user && (kind != TARGET_COMM || !targetsfile_valid_user(user)))
		return -EINVAL;

	for (size_t i = 0; i < count; i++) {
		if (!targetsfile_valid_value(kind, values[i]))
			return -EINVAL;
	}
	edit.present = calloc(count ? count : 1, sizeof(*edit.present));
	edit.had = calloc(count ? count : 1, sizeof(*edit.had));
	if (edit.present && edit.had)
		err = edit_targetsfile(path, &edit);
	free(edit.present);
	free(edit.had);
	return err;
}

int targetsfile_edit_pids(const char *path, enum target_kind kind, unsigned int options,
			  bool add, const pid_t *pids, size_t count)
{
	char (*texts)[TARGETSFILE_VALUE_MAX] = calloc(count ? count : 1, sizeof(*texts));
	const char **values = calloc(count ? count : 1, sizeof(*values));
	int err = -ENOMEM;

	if (texts && values) {
		for (size_t i = 0; i < count; i++) {
			snprintf(texts[i], sizeof(texts[i]), "%d", (int)pids[i]);
			values[i] = texts[i];
		}
		err = targetsfile_edit_values(path, kind, options, add, values, count);
	}
	free(texts);
	free(values);
	return err;
}

int targetsfile_add_pids(const char *path, const pid_t *pids, size_t count)
{
	return targetsfile_edit_pids(path, TARGET_PID, 0, true, pids, count);
}

int targetsfile_add_trees(const char *path, const pid_t *roots, size_t count)
{
	return targetsfile_edit_pids(path, TARGET_TREE, 0, true, roots, count);
}

int targetsfile_remove_pids(const char *path, const pid_t *pids, size_t count)
{
	return targetsfile_edit_pids(path, TARGET_PID, 0, false, pids, count);
}

int targetsfile_remove_trees(const char *path, const pid_t *roots, size_t count)
{
	return targetsfile_edit_pids(path, TARGET_TREE, 0, false, roots, count);
}
