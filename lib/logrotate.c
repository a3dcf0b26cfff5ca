// SPDX-License-Identifier: GPL-2.0
#include "logrotate.h"

#include <dirent.h>
#include <errno.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "logformat.h"

bool logrotate_due(const struct logrotate_policy *p, uint64_t created_s, uint64_t size,
		   bool has_sample, uint64_t now_s)
{
	if (!has_sample)
		return false;
	/* Differences, not sums: a huge age_s must not wrap around. */
	return (p->size && size >= p->size) ||
	       (p->age_s && now_s >= created_s && now_s - created_s >= p->age_s);
}

uint64_t logrotate_due_at(const struct logrotate_policy *p, uint64_t created_s)
{
	if (!p->age_s)
		return 0;
	if (p->age_s > UINT64_MAX - created_s)
		return UINT64_MAX;
	return created_s + p->age_s;
}

/* A crash between renames leaves gaps in .1 ... .keep: missing files are fine. */
static int rename_if_there(const char *from, const char *to)
{
	return rename(from, to) && errno != ENOENT ? -errno : 0;
}

static int unlink_if_there(const char *path)
{
	return unlink(path) && errno != ENOENT ? -errno : 0;
}

/* The n-th rotated file of the log whose current file is path (0: path itself). */
static int rotated_path(char *buf, size_t size, const char *path, unsigned int n)
{
	int len = n ? snprintf(buf, size, "%s.%u", path, n) : snprintf(buf, size, "%s", path);

	return len < 0 || (size_t)len >= size ? -ENAMETOOLONG : 0;
}

/*
 * How many of .1, .2, ... exist without a gap, at most keep; -errno on error.
 * lstat(), as rename() moves a symbolic link, dangling or not.
 */
static int rotated_run(const char *path, unsigned int keep)
{
	char rotated[PATH_MAX];

	for (unsigned int n = 1; n <= keep; n++) {
		struct stat st;
		int err = rotated_path(rotated, sizeof(rotated), path, n);

		if (err)
			return err;
		if (lstat(rotated, &st))
			return errno == ENOENT ? (int)n - 1 : -errno;
	}
	return (int)keep;
}

/* Renames rotated file from to rotated file to (0: the current file). */
static int move(const char *path, unsigned int from, unsigned int to)
{
	char from_path[PATH_MAX], to_path[PATH_MAX];
	int err = rotated_path(from_path, sizeof(from_path), path, from);

	if (!err)
		err = rotated_path(to_path, sizeof(to_path), path, to);
	return err ? err : rename_if_there(from_path, to_path);
}

/*
 * Only the run of files up to the first gap moves: a crash between two
 * renames leaves a gap, which this fills without touching the older files
 * above it, and a large keep costs no more than the files there are. With
 * all keep files there, .keep is dropped.
 */
int logrotate_shift_path(const char *path, unsigned int keep)
{
	int top, err;

	if (!keep)
		return unlink_if_there(path);
	top = rotated_run(path, keep);
	err = top < 0 ? top : 0;
	if (!err && (unsigned int)top == keep) {
		char oldest[PATH_MAX];

		err = rotated_path(oldest, sizeof(oldest), path, keep);
		if (!err)
			err = unlink_if_there(oldest);
		top--;
	}
	for (int n = top; !err && n >= 1; n--)
		err = move(path, n, n + 1);
	return err ? err : move(path, 0, 1);
}

/* n if name is base itself (0) or base.n, as rotated_path() writes it, n <= keep; else -1. */
static long rotated_index(const char *name, const char *base, size_t base_len, unsigned int keep)
{
	const char *digits;
	char *end;
	long n;

	if (strncmp(name, base, base_len))
		return -1;
	if (!name[base_len])
		return 0;
	digits = name + base_len + 1;
	/* "%u": no sign, no leading zero. */
	if (name[base_len] != '.' || *digits < '1' || *digits > '9')
		return -1;
	errno = 0;
	n = strtol(digits, &end, 10);
	return *end || errno || n > (long)keep ? -1 : n;
}

int logrotate_present(const char *path, unsigned int keep, bool *present)
{
	const char *slash = strrchr(path, '/'), *base = slash ? slash + 1 : path;
	char copy[PATH_MAX];
	const struct dirent *e;
	DIR *d;

	if (snprintf(copy, sizeof(copy), "%s", path) >= (int)sizeof(copy))
		return -ENAMETOOLONG;
	memset(present, 0, (keep + 1UL) * sizeof(*present));
	d = opendir(dirname(copy));
	if (!d)
		return -errno;
	while ((e = readdir(d))) {
		long n = rotated_index(e->d_name, base, strlen(base), keep);

		if (n >= 0)
			present[n] = true;
	}
	closedir(d);
	return 0;
}

int logrotate_each(const char *dir, enum log_kind kind, unsigned int keep,
		   enum logrotate_order order, int (*fn)(const char *path, void *ctx), void *ctx)
{
	bool *present = calloc(keep + 1UL, sizeof(*present));
	char path[PATH_MAX];
	int err = present ? logformat_path(path, sizeof(path), dir, kind, 0) : -ENOMEM;

	if (!err)
		err = logrotate_present(path, keep, present);
	for (unsigned int i = 0; i <= keep && !err; i++) {
		unsigned int n = order == LOGROTATE_NEWEST_FIRST ? i : keep - i;

		if (!present[n])
			continue;
		err = logformat_path(path, sizeof(path), dir, kind, n);
		if (!err)
			err = fn(path, ctx);
	}
	free(present);
	return err;
}

int logrotate_shift(const char *dir, enum log_kind kind, unsigned int keep)
{
	char path[PATH_MAX];
	int err = logformat_path(path, sizeof(path), dir, kind, 0);

	return err ? err : logrotate_shift_path(path, keep);
}
