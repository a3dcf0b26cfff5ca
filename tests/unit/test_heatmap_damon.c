// SPDX-License-Identifier: GPL-2.0
/*
 * pfprofctl/heatmap/damon.c against a tree of plain files laid out as DAMON's sysfs
 * interface is (docs/design/damon.md): what it writes, in which files, and how it
 * reads a snapshot. The kernel's side (directories made by the nr_*
 * writes, the kdamond itself) is the guest tests'.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "heatmap/damon.h"
#include "unit.h"

#define SCHEME "admin/kdamonds/0/contexts/0/schemes/0"

static const char *const dirs[] = {
	"admin", "admin/kdamonds", "admin/kdamonds/0", "admin/kdamonds/0/contexts",
	"admin/kdamonds/0/contexts/0", "admin/kdamonds/0/contexts/0/monitoring_attrs",
	"admin/kdamonds/0/contexts/0/monitoring_attrs/intervals",
	"admin/kdamonds/0/contexts/0/monitoring_attrs/nr_regions",
	"admin/kdamonds/0/contexts/0/targets", "admin/kdamonds/0/contexts/0/targets/0",
	"admin/kdamonds/0/contexts/0/schemes", SCHEME, SCHEME "/access_pattern",
	SCHEME "/access_pattern/sz", SCHEME "/access_pattern/nr_accesses",
	SCHEME "/access_pattern/age", SCHEME "/tried_regions",
};

/* What the kernel shows before anything is set up: no kdamond running. */
static const char *const files[][2] = {
	{ "admin/kdamonds/nr_kdamonds", "0\n" },
	{ "admin/kdamonds/0/state", "off\n" },
	{ "admin/kdamonds/0/pid", "-1\n" },
	{ "admin/kdamonds/0/contexts/nr_contexts", "0\n" },
	{ "admin/kdamonds/0/contexts/0/operations", "vaddr\n" },
	{ "admin/kdamonds/0/contexts/0/monitoring_attrs/intervals/sample_us", "5000\n" },
	{ "admin/kdamonds/0/contexts/0/monitoring_attrs/intervals/aggr_us", "100000\n" },
	{ "admin/kdamonds/0/contexts/0/monitoring_attrs/intervals/update_us", "60000000\n" },
	{ "admin/kdamonds/0/contexts/0/monitoring_attrs/nr_regions/min", "10\n" },
	{ "admin/kdamonds/0/contexts/0/monitoring_attrs/nr_regions/max", "1000\n" },
	{ "admin/kdamonds/0/contexts/0/targets/nr_targets", "0\n" },
	{ "admin/kdamonds/0/contexts/0/targets/0/pid_target", "0\n" },
	{ "admin/kdamonds/0/contexts/0/schemes/nr_schemes", "0\n" },
	{ SCHEME "/action", "stat\n" },
	{ SCHEME "/access_pattern/sz/min", "0\n" }, { SCHEME "/access_pattern/sz/max", "0\n" },
	{ SCHEME "/access_pattern/nr_accesses/min", "0\n" },
	{ SCHEME "/access_pattern/nr_accesses/max", "0\n" },
	{ SCHEME "/access_pattern/age/min", "0\n" }, { SCHEME "/access_pattern/age/max", "0\n" },
	{ SCHEME "/tried_regions/total_bytes", "0\n" },
};

/* path, kdamond 0's, as kdamond n's: "admin/kdamonds/0/..." with n for 0. */
static const char *of_kdamond(const char *path, size_t n, char *buf, size_t size)
{
	const char *zero = "admin/kdamonds/0";

	if (strncmp(path, zero, strlen(zero)))
		return path;
	snprintf(buf, size, "admin/kdamonds/%zu%s", n, path + strlen(zero));
	return buf;
}

/* The tree as the kernel shows it, with nr kdamonds' directories. */
static void make_kdamonds(size_t nr)
{
	char buf[256];

	for (size_t n = 0; n < nr; n++) {
		for (size_t i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++) {
			const char *dir = of_kdamond(dirs[i], n, buf, sizeof(buf));

			expect(!mkdir(dir, 0755) || errno == EEXIST, "mkdir %s: %s", dir,
			       strerror(errno));
		}
		for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++)
			unit_write_file(of_kdamond(files[i][0], n, buf, sizeof(buf)), files[i][1]);
	}
}

static void make_tree(void)
{
	make_kdamonds(1);
}

static void expect_file(const char *path, const char *want)
{
	char *text = unit_read_file(path);

	expect(text && !strcmp(text, want), "%s holds '%s', want '%s'", path, text ? text : "?",
	       want);
	free(text);
}

/* Without DAMON's sysfs interface: ENOENT; someone else's kdamond on: EBUSY. */
static void test_check(void)
{
	expect(damon_check("no-such-dir") == -ENOENT, "a kernel without DAMON");
	make_tree();
	expect(damon_check("admin") == 0, "a free DAMON refused");
	unit_write_file("admin/kdamonds/nr_kdamonds", "1\n");
	unit_write_file("admin/kdamonds/0/pid", "77\n");
	expect(damon_check("admin") == -EBUSY, "a running kdamond not seen");
}

/* The setup, file by file: one vaddr context on the PID, a stat scheme matching everything. */
static void test_start(void)
{
	const struct damon_attrs attrs = DAMON_ATTRS_DEFAULT;

	make_tree();
	expect(!damon_start("admin", (pid_t[]){ 4321 }, 1, &attrs), "damon_start failed");
	expect_file("admin/kdamonds/nr_kdamonds", "1");
	expect_file("admin/kdamonds/0/contexts/nr_contexts", "1");
	expect_file("admin/kdamonds/0/contexts/0/operations", "vaddr");
	expect_file("admin/kdamonds/0/contexts/0/monitoring_attrs/intervals/sample_us", "5000");
	expect_file("admin/kdamonds/0/contexts/0/monitoring_attrs/intervals/aggr_us", "100000");
	expect_file("admin/kdamonds/0/contexts/0/monitoring_attrs/nr_regions/max", "1000");
	expect_file("admin/kdamonds/0/contexts/0/targets/nr_targets", "1");
	expect_file("admin/kdamonds/0/contexts/0/targets/0/pid_target", "4321");
	expect_file("admin/kdamonds/0/contexts/0/schemes/nr_schemes", "1");
	expect_file(SCHEME "/action", "stat");
	expect_file(SCHEME "/access_pattern/sz/max", "18446744073709551615");
	expect_file(SCHEME "/access_pattern/nr_accesses/max", "4294967295");
	expect_file(SCHEME "/access_pattern/age/max", "4294967295");
	expect_file("admin/kdamonds/0/state", "on");
}

/* A kdamond each: kdamond n on the nth PID, all of them on; none, or too many, refused. */
static void test_start_many(void)
{
	const struct damon_attrs attrs = DAMON_ATTRS_DEFAULT;
	pid_t pids[DAMON_MAX_PROCESSES + 1] = { 4321, 4322, 4323 };

	make_kdamonds(3);
	expect(!damon_start("admin", pids, 3, &attrs), "damon_start of 3 failed");
	expect_file("admin/kdamonds/nr_kdamonds", "3");
	expect_file("admin/kdamonds/1/contexts/0/targets/0/pid_target", "4322");
	expect_file("admin/kdamonds/2/contexts/0/targets/0/pid_target", "4323");
	expect_file("admin/kdamonds/2/contexts/0/schemes/0/action", "stat");
	for (int n = 0; n < 3; n++) {
		char path[64];

		snprintf(path, sizeof(path), "admin/kdamonds/%d/state", n);
		expect_file(path, "on");
	}
	expect(damon_start("admin", pids, 0, &attrs) == -EINVAL, "no process taken");
	expect(damon_start("admin", pids, DAMON_MAX_PROCESSES + 1, &attrs) == -EINVAL,
	       "%d processes taken", DAMON_MAX_PROCESSES + 1);
}

/*
 * Failures half-way: a kdamond that cannot be set up, and one that cannot
 * be turned on after kdamond 0 was; kdamond 0 is turned off again.
 */
static void test_start_unwinds(void)
{
	const struct damon_attrs attrs = DAMON_ATTRS_DEFAULT;

	make_kdamonds(1);
	expect(damon_start("admin", (pid_t[]){ 1, 2 }, 2, &attrs) == -ENOENT,
	       "a start that cannot set up kdamond 1 (no directory)");
	make_kdamonds(2);
	unit_write_file("admin/kdamonds/0/pid", "77\n");
	expect(!unlink("admin/kdamonds/1/state") && !mkdir("admin/kdamonds/1/state", 0755),
	       "kdamond 1's state made a directory: %s", strerror(errno));
	expect(damon_start("admin", (pid_t[]){ 1, 2 }, 2, &attrs) == -EISDIR,
	       "a start that cannot turn kdamond 1 on");
	expect_file("admin/kdamonds/0/state", "off");
}

static void add_region(const char *index, const char *start, const char *end,
		       const char *accesses, const char *age)
{
	char path[256];

	snprintf(path, sizeof(path), SCHEME "/tried_regions/%s", index);
	expect(!mkdir(path, 0755) || errno == EEXIST, "mkdir %s", path);
	snprintf(path, sizeof(path), SCHEME "/tried_regions/%s/start", index);
	unit_write_file(path, start);
	snprintf(path, sizeof(path), SCHEME "/tried_regions/%s/end", index);
	unit_write_file(path, end);
	snprintf(path, sizeof(path), SCHEME "/tried_regions/%s/nr_accesses", index);
	unit_write_file(path, accesses);
	snprintf(path, sizeof(path), SCHEME "/tried_regions/%s/age", index);
	unit_write_file(path, age);
}

/* A snapshot: the update asked for, the regions read back by address; a stopped kdamond is ESRCH. */
static void test_snapshot(void)
{
	struct damon_region *r;
	size_t n;
	int err;

	make_tree();
	unit_write_file("admin/kdamonds/0/pid", "77\n");
	add_region("0", "8192\n", "12288\n", "20\n", "3\n");
	add_region("1", "4096\n", "8192\n", "0\n", "40\n");
	err = damon_snapshot("admin", 0, &r, &n);
	expect(!err && n == 2, "damon_snapshot: %d, %zu regions", err, n);
	expect_file("admin/kdamonds/0/state", "update_schemes_tried_regions");
	expect(n == 2 && r[0].start == 4096 && r[0].end == 8192 && !r[0].nr_accesses &&
	       r[0].age == 40 && r[1].start == 8192 && r[1].nr_accesses == 20,
	       "regions read back wrong or out of order");
	free(r);

	/* Its process exited: the kdamond stopped by itself. */
	unit_write_file("admin/kdamonds/0/pid", "-1\n");
	expect(damon_snapshot("admin", 0, &r, &n) == -ESRCH && !n && !r, "a stopped kdamond");
	expect(!damon_stop("admin"), "stopping a kdamond that stopped by itself");

	/* A region that makes no sense is refused, not drawn. */
	unit_write_file("admin/kdamonds/0/pid", "77\n");
	add_region("2", "9000\n", "9000\n", "1\n", "0\n");
	expect(damon_snapshot("admin", 0, &r, &n) == -EPROTO && !n, "an empty region taken");
}

/* No region tried, after the second update too (the fake stays as it is): none, no error. */
static void test_snapshot_none(void)
{
	struct damon_region *r;
	size_t n;
	int err;

	make_tree();
	unit_write_file("admin/kdamonds/0/pid", "77\n");
	err = damon_snapshot("admin", 0, &r, &n);
	expect(!err && !n && !r, "no tried region: %d, %zu regions", err, n);
	expect_file("admin/kdamonds/0/state", "update_schemes_tried_regions");
}

/* Every kdamond on is turned off; one that stopped by itself is left as it is. */
static void test_stop(void)
{
	make_kdamonds(2);
	unit_write_file("admin/kdamonds/nr_kdamonds", "2\n");
	unit_write_file("admin/kdamonds/0/pid", "77\n");
	unit_write_file("admin/kdamonds/1/pid", "-1\n");
	unit_write_file("admin/kdamonds/1/state", "left\n");
	expect(!damon_stop("admin"), "damon_stop failed");
	expect_file("admin/kdamonds/0/state", "off");
	expect_file("admin/kdamonds/1/state", "left\n");
}

/* Nothing to stop: a kdamond that is off, or none at all (a start that never got there). */
static void test_stop_nothing(void)
{
	int err;

	make_tree();
	unit_write_file("admin/kdamonds/0/pid", "-1\n");
	err = damon_stop("admin");
	expect(!err, "stopping a kdamond that is off: %d", err);
	err = damon_stop("nowhere");
	expect(!err, "stopping where no kdamond is: %d", err);
}

/* damon_stat's parameter: Y or N; a kernel without it, ENOENT. */
static void test_stat(void)
{
	unit_write_file("enabled", "Y\n");
	expect(damon_stat_enabled("enabled") == 1, "Y is not on");
	expect(!damon_stat_set("enabled", 0), "turning it off failed");
	expect_file("enabled", "N");
	expect(damon_stat_enabled("enabled") == 0, "N is not off");
	expect(damon_stat_enabled("none") == -ENOENT, "a kernel without damon_stat");
}

UNIT_TESTS(UNIT_TEST(check), UNIT_TEST(start), UNIT_TEST(start_many), UNIT_TEST(start_unwinds),
	   UNIT_TEST(snapshot), UNIT_TEST(snapshot_none),
	   UNIT_TEST(stop),
	   UNIT_TEST(stop_nothing), UNIT_TEST(stat));
