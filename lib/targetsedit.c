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
	enum targetsfile_kind kind;	/* of the lines it adds or removes */
	const char *const *values;
	size_t count;
	bool removing;
	bool *present;		/* adding: values[i] is in the file already */
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

/* Writes one line of the old file to out, or drops it if it holds a value being removed. */
static int copy_line(FILE *out, const char *line, size_t len, struct edit *edit)
{
	char value[TARGETSFILE_VALUE_MAX];

	if (targetsfile_parse_line(line, len, value) == (int)edit->kind) {
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
	return err ? err : targetsfile_read_error(in);
}

/* Appends the values being added that the file did not hold, each once. */
static int append_new_values(FILE *out, struct edit *edit)
{
	const char *word = targetsfile_words(edit->kind);

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

int targetsfile_edit_values(const char *path, enum targetsfile_kind kind, bool add,
			    const char *const *values, size_t count)
{
	struct edit edit = { .kind = kind, .values = values, .count = count, .removing = !add };
	int err;

	for (size_t i = 0; i < count; i++) {
		if (!targetsfile_valid_value(kind, values[i]))
			return -EINVAL;
	}
	edit.present = calloc(count ? count : 1, sizeof(*edit.present));
	if (!edit.present)
		return -ENOMEM;
	err = edit_targetsfile(path, &edit);
	free(edit.present);
	return err;
}

/* The values of count that the file has as lines of kind: cleared in values[]. */
static int drop_kept(const char *path, enum targetsfile_kind kind, const char **values,
		     size_t count)
{
	struct targetsfile_values kept;
	int err = targetsfile_read_values(path, TARGETSFILE_KIND(kind), &kept, NULL, NULL);

	for (size_t i = 0; !err && i < count; i++)
		if (targetsfile_values_hold(&kept, kind, values[i]))
			values[i] = NULL;
	targetsfile_values_free(&kept);
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

/* targetsfile_edit_maps()'s work on values[], which it may change. */
static int edit_maps(const char *path, enum targetsfile_kind plain, bool maps, bool add,
		     const char **values, size_t count)
{
	enum targetsfile_kind with_maps = targetsfile_maps_kind(plain);
	int err;

	if (!add) {
		err = targetsfile_edit_values(path, plain, false, values, count);
		return err ? err : targetsfile_edit_values(path, with_maps, false, values, count);
	}
	if (maps) {
		/* The new line first: pfprofd never reads the file with neither. */
		err = targetsfile_edit_values(path, with_maps, true, values, count);
		return err ? err : targetsfile_edit_values(path, plain, false, values, count);
	}
	err = drop_kept(path, with_maps, values, count);
	return err ? err : targetsfile_edit_values(path, plain, true, values, compact(values, count));
}

int targetsfile_edit_maps(const char *path, enum targetsfile_kind plain, bool maps, bool add,
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
	char (*texts)[TARGETSFILE_VALUE_MAX] = calloc(count ? count : 1, sizeof(*texts));
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

/* What targetsfile_edit_pids() and targetsfile_edit_maps_pids() do to the file. */
struct pids_edit {
	const char *path;
	enum targetsfile_kind kind;
	bool maps;
	bool add;
	bool pair;	/* the kind's lines with "maps" and without */
};

static int edit_pid_values(const char **values, size_t count, void *ctx)
{
	const struct pids_edit *e = ctx;

	if (e->pair)
		return edit_maps(e->path, e->kind, e->maps, e->add, values, count);
	return targetsfile_edit_values(e->path, e->kind, e->add, values, count);
}

int targetsfile_edit_pids(const char *path, enum targetsfile_kind kind, bool add, const pid_t *pids,
			  size_t count)
{
	struct pids_edit e = { .path = path, .kind = kind, .add = add };

	return edit_as_values(pids, count, edit_pid_values, &e);
}

int targetsfile_edit_maps_pids(const char *path, enum targetsfile_kind plain, bool maps, bool add,
			       const pid_t *pids, size_t count)
{
	struct pids_edit e = { .path = path, .kind = plain, .maps = maps, .add = add,
			       .pair = true };

	return edit_as_values(pids, count, edit_pid_values, &e);
}

int targetsfile_add_pids(const char *path, const pid_t *pids, size_t count)
{
	return targetsfile_edit_pids(path, TARGETSFILE_PID, true, pids, count);
}

int targetsfile_add_trees(const char *path, const pid_t *roots, size_t count)
{
	return targetsfile_edit_pids(path, TARGETSFILE_TREE, true, roots, count);
}

int targetsfile_remove_pids(const char *path, const pid_t *pids, size_t count)
{
	return targetsfile_edit_pids(path, TARGETSFILE_PID, false, pids, count);
}

int targetsfile_remove_trees(const char *path, const pid_t *roots, size_t count)
{
	return targetsfile_edit_pids(path, TARGETSFILE_TREE, false, roots, count);
}
