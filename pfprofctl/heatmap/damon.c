// SPDX-License-Identifier: GPL-2.0
#include "damon.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "growarray.h"

/* A kdamond's context and scheme, below its directory (kdamond_dir()). */
#define CONTEXT "contexts/0"
#define SCHEME CONTEXT "/schemes/0"

/* The widest ranges each access pattern field takes: every region matches. */
#define SZ_MAX "18446744073709551615"
#define COUNT_MAX "4294967295"

static int path_of(char *buf, const char *admin, const char *rel)
{
	return snprintf(buf, PATH_MAX, "%s/%s", admin, rel) < PATH_MAX ? 0 : -ENAMETOOLONG;
}

/*
 * Kdamond n's directory into buf (PATH_MAX): the functions below that take
 * an admin directory and a relative path take it in admin's place.
 */
static int kdamond_dir(char *buf, const char *admin, size_t n)
{
	return snprintf(buf, PATH_MAX, "%s/kdamonds/%zu", admin, n) < PATH_MAX ? 0 :
	       -ENAMETOOLONG;
}

/*
 * How often a sysfs access that failed with EBUSY is tried, a millisecond
 * apart. DAMON's files take damon_sysfs_lock with mutex_trylock(), and
 * every running kdamond takes it after each sample (6.12:
 * damon_sysfs_cmd_request_callback(), from after_wmarks_check): with ten
 * kdamonds on, turning on the eleventh failed with EBUSY in a bench run.
 * An EBUSY that lasts (another exclusive kdamond) is returned after them.
 */
#define BUSY_TRIES 200

static void wait_a_millisecond(void)
{
	nanosleep(&(struct timespec){ .tv_nsec = 1000000 }, NULL);
}

/* Writes text to path in one write(), as sysfs wants it; once. */
static int write_path_once(const char *path, const char *text)
{
	ssize_t len = (ssize_t)strlen(text), written;
	/* O_TRUNC as a shell's redirection: sysfs ignores it. */
	int fd = open(path, O_WRONLY | O_TRUNC | O_CLOEXEC), err;

	if (fd < 0)
		return -errno;
	written = write(fd, text, len);
	err = written == len ? 0 : written < 0 ? -errno : -EIO;
	close(fd);
	return err;
}

static int write_path(const char *path, const char *text)
{
	int err = write_path_once(path, text);

	for (int tries = 1; err == -EBUSY && tries < BUSY_TRIES; tries++) {
		wait_a_millisecond();
		err = write_path_once(path, text);
	}
	return err;
}

static int write_text(const char *admin, const char *rel, const char *text)
{
	char path[PATH_MAX];
	int err = path_of(path, admin, rel);

	return err ? err : write_path(path, text);
}

static int write_number(const char *admin, const char *rel, uint64_t value)
{
	char text[24];

	snprintf(text, sizeof(text), "%" PRIu64, value);
	return write_text(admin, rel, text);
}

/* The first word of the file at path, into buf (size bytes); once. */
static int read_path_once(const char *path, char *buf, size_t size)
{
	char format[16];
	FILE *f = fopen(path, "re");
	int err;

	if (!f)
		return -errno;
	snprintf(format, sizeof(format), "%%%zus", size - 1);
	err = fscanf(f, format, buf) == 1 ? 0 : !ferror(f) ? -EPROTO : errno ? -errno : -EIO;
	fclose(f);
	return err;
}

/* The same, tried again while it fails with EBUSY (reading pid takes the lock too). */
static int read_path(const char *path, char *buf, size_t size)
{
	int err = read_path_once(path, buf, size);

	for (int tries = 1; err == -EBUSY && tries < BUSY_TRIES; tries++) {
		wait_a_millisecond();
		err = read_path_once(path, buf, size);
	}
	return err;
}

static int read_word(const char *admin, const char *rel, char *buf, size_t size)
{
	char path[PATH_MAX];
	int err = path_of(path, admin, rel);

	return err ? err : read_path(path, buf, size);
}

static int read_number(const char *admin, const char *rel, uint64_t *value)
{
	char word[24], *end;
	int err = read_word(admin, rel, word, sizeof(word));

	if (err)
		return err;
	errno = 0;
	*value = strtoull(word, &end, 10);
	return errno || *end || end == word ? -EPROTO : 0;
}

/* Whether kdamond n runs: its pid file holds its thread's PID, -1 when it does not. */
static int kdamond_on(const char *admin, uint64_t n, bool *on)
{
	char rel[64], pid[24];
	int err;

	snprintf(rel, sizeof(rel), "kdamonds/%" PRIu64 "/pid", n);
	err = read_word(admin, rel, pid, sizeof(pid));
	*on = !err && strcmp(pid, "-1");
	return err;
}

int damon_check(const char *admin)
{
	uint64_t nr;
	bool on = false;
	int err = read_number(admin, "kdamonds/nr_kdamonds", &nr);

	for (uint64_t n = 0; !err && !on && n < nr; n++)
		err = kdamond_on(admin, n, &on);
	return err ? err : on ? -EBUSY : 0;
}

int damon_stat_enabled(const char *path)
{
	char word[8];
	int err = read_path(path, word, sizeof(word));

	if (err)
		return err;
	return word[0] == 'Y' || word[0] == 'y' || word[0] == '1';
}

int damon_stat_set(const char *path, int enabled)
{
	return write_path(path, enabled ? "Y" : "N");
}

/* One write of the setup: a file below the admin directory and its text. */
struct setting {
	const char *rel;
	const char *text;	/* NULL: the number */
	uint64_t number;
};

/* The access pattern's ranges, all as wide as they go. */
static const struct setting every_region[] = {
	{ SCHEME "/access_pattern/sz/min", "0", 0 },
	{ SCHEME "/access_pattern/sz/max", SZ_MAX, 0 },
	{ SCHEME "/access_pattern/nr_accesses/min", "0", 0 },
	{ SCHEME "/access_pattern/nr_accesses/max", COUNT_MAX, 0 },
	{ SCHEME "/access_pattern/age/min", "0", 0 },
	{ SCHEME "/access_pattern/age/max", COUNT_MAX, 0 },
};

static int apply(const char *admin, const struct setting *s, size_t n)
{
	int err = 0;

	for (size_t i = 0; i < n && !err; i++)
		err = s[i].text ? write_text(admin, s[i].rel, s[i].text) :
				  write_number(admin, s[i].rel, s[i].number);
	return err;
}

/* Kdamond n's context on pid, with the scheme; its directory made by the nr_kdamonds write. */
static int set_up_kdamond(const char *admin, size_t n, pid_t pid, const struct damon_attrs *a)
{
	/* In this order: each nr_* write makes the directories the next ones are in. */
	const struct setting setup[] = {
		{ "contexts/nr_contexts", NULL, 1 },
		{ CONTEXT "/operations", "vaddr", 0 },
		{ CONTEXT "/monitoring_attrs/intervals/sample_us", NULL, a->sample_us },
		{ CONTEXT "/monitoring_attrs/intervals/aggr_us", NULL, a->aggr_us },
		{ CONTEXT "/monitoring_attrs/intervals/update_us", NULL, a->update_us },
		{ CONTEXT "/monitoring_attrs/nr_regions/min", NULL, a->min_regions },
		{ CONTEXT "/monitoring_attrs/nr_regions/max", NULL, a->max_regions },
		{ CONTEXT "/targets/nr_targets", NULL, 1 },
		{ CONTEXT "/targets/0/pid_target", NULL, (uint64_t)pid },
		{ CONTEXT "/schemes/nr_schemes", NULL, 1 },
		{ SCHEME "/action", "stat", 0 },
	};
	char dir[PATH_MAX];
	int err = kdamond_dir(dir, admin, n);

	if (!err)
		err = apply(dir, setup, sizeof(setup) / sizeof(setup[0]));
	return err ? err : apply(dir, every_region, sizeof(every_region) / sizeof(every_region[0]));
}

int damon_start(const char *admin, const pid_t *pids, size_t nr, const struct damon_attrs *a)
{
	char dir[PATH_MAX];
	int err = nr && nr <= DAMON_MAX_PROCESSES ? write_number(admin, "kdamonds/nr_kdamonds", nr) :
		  -EINVAL;

	for (size_t n = 0; n < nr && !err; n++)
		err = set_up_kdamond(admin, n, pids[n], a);
	for (size_t n = 0; n < nr && !err; n++) {
		err = kdamond_dir(dir, admin, n);
		if (!err)
			err = write_text(dir, "state", "on");
	}
	if (err && nr && nr <= DAMON_MAX_PROCESSES)
		damon_stop(admin);
	return err;
}

/* Whether kdamond n still runs: it stops by itself once its process has exited. */
static int running(const char *admin, size_t n)
{
	bool on;
	int err = kdamond_on(admin, n, &on);

	return err ? err : on ? 0 : -ESRCH;
}

/* tried_regions/<index> of the kdamond in its directory: the region's four numbers. */
static int read_region(const char *kdamond, const char *index, struct damon_region *r)
{
	static const char *const names[] = { "start", "end", "nr_accesses", "age" };
	uint64_t v[4];
	char rel[PATH_MAX];
	int err = 0;

	for (int i = 0; i < 4 && !err; i++) {
		if (snprintf(rel, sizeof(rel), SCHEME "/tried_regions/%s/%s", index, names[i]) >=
		    (int)sizeof(rel))
			return -ENAMETOOLONG;
		err = read_number(kdamond, rel, &v[i]);
	}
	if (err)
		return err;
	*r = (struct damon_region){ .start = v[0], .end = v[1], .nr_accesses = (uint32_t)v[2],
				    .age = (uint32_t)v[3] };
	return r->start < r->end ? 0 : -EPROTO;
}

static bool is_index(const char *name)
{
	if (!*name)
		return false;
	for (; *name; name++)
		if (*name < '0' || *name > '9')
			return false;
	return true;
}

static int compare_start(const void *a, const void *b)
{
	const struct damon_region *x = a, *y = b;

	return x->start < y->start ? -1 : x->start > y->start;
}

/* Every tried_regions/<index> of the kdamond in its directory, sorted by address. */
static int read_regions(const char *kdamond, struct damon_region **regions, size_t *count)
{
	char path[PATH_MAX];
	size_t cap = 0;
	const struct dirent *d;
	DIR *dir;
	int err = path_of(path, kdamond, SCHEME "/tried_regions");

	*regions = NULL;
	*count = 0;
	if (err)
		return err;
	dir = opendir(path);
	if (!dir)
		return -errno;
	while (!err && (d = readdir(dir))) {
		struct damon_region *grown;

		if (!is_index(d->d_name))
			continue;
		grown = grow_array(*regions, &cap, *count, sizeof(*grown), 64);
		if (!grown) {
			err = -ENOMEM;
			break;
		}
		*regions = grown;
		err = read_region(kdamond, d->d_name, &grown[*count]);
		*count += !err;
	}
	closedir(dir);
	if (err) {
		free(*regions);
		*regions = NULL;
		*count = 0;
		return err;
	}
	if (*count)
		qsort(*regions, *count, sizeof(**regions), compare_start);
	return 0;
}

/* One update of kdamond n's tried regions, and what it left there. */
static int update_and_read(const char *admin, size_t n, struct damon_region **regions,
			   size_t *count)
{
	char dir[PATH_MAX];
	int err = kdamond_dir(dir, admin, n);

	*regions = NULL;
	*count = 0;
	if (!err)
		err = write_text(dir, "state", "update_schemes_tried_regions");
	/* EINVAL (6.12) and ECANCELED (7.x): the kdamond had stopped. */
	if (err && err != -EINVAL && err != -ECANCELED)
		return err;
	/* 6.12 says success when it stops during the update: what was read is partial. */
	err = running(admin, n);
	return err ? err : read_regions(dir, regions, count);
}

int damon_snapshot(const char *admin, size_t n, struct damon_region **regions, size_t *count)
{
	int err = update_and_read(admin, n, regions, count);

	/*
	 * A running kdamond's address space has regions, but 6.12 ends an
	 * update by timeout two apply intervals of wall time after it began
	 * (damos_tried_regions_init_upd_status() in mm/damon/sysfs-schemes.c),
	 * with no region tried if the kdamond fell behind: a busy CPU. One
	 * snapshot of three in a guest run; two in a row in CI, beside other
	 * guests. 7.x waits for the scheme to be applied (damos_walk()).
	 */
	for (int tries = 1; !err && !*count && tries < DAMON_SNAPSHOT_TRIES; tries++)
		err = update_and_read(admin, n, regions, count);
	return err;
}

/* Kdamond n off, if on: one that stopped by itself, or was never made, is fine. */
static int stop_kdamond(const char *admin, size_t n)
{
	char dir[PATH_MAX];
	int err = running(admin, n);

	/* Off, or never made (a start that failed before nr_kdamonds). */
	if (err == -ESRCH || err == -ENOENT)
		return 0;
	if (!err)
		err = kdamond_dir(dir, admin, n);
	return err ? err : write_text(dir, "state", "off");
}

int damon_stop(const char *admin)
{
	uint64_t nr;
	int err = read_number(admin, "kdamonds/nr_kdamonds", &nr), first = 0;

	if (err)
		return err == -ENOENT ? 0 : err;
	for (uint64_t n = 0; n < nr; n++) {
		err = stop_kdamond(admin, (size_t)n);
		first = first ? first : err;
	}
	return first;
}
