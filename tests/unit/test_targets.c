// SPDX-License-Identifier: GPL-2.0
/* Targets (lib/targets.c) and the cgroup paths and units they name (lib/cgroupfs.c). */
#include "unit.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cgroupfs.h"
#include "targets.h"

static void make_dirs(const char *const *dirs, size_t count)
{
	for (size_t i = 0; i < count; i++)
		expect(!mkdir(dirs[i], 0755), "mkdir %s: %s", dirs[i], strerror(errno));
}

static void test_numbers(void)
{
	uint32_t unit = target_number(TARGET_UNIT, "nginx.service", NULL);

	expect(target_number(TARGET_TREE, "4194304", NULL) == 4194304, "a tree's number is its root");
	expect(unit >= TARGET_NAMED_FIRST && unit <= INT32_MAX, "unit number %u", unit);
	expect(unit == target_number(TARGET_UNIT, "nginx.service", NULL), "not the same twice");
	expect(unit != target_number(TARGET_CGROUP, "nginx.service", NULL),
	       "a cgroup and a unit of one name share a number");
	/* FNV-1a of "unit" then the name, fixed: readers of other builds must agree. */
	expect(target_number(TARGET_UNIT, "a.service", NULL) == 0x4508f747, "unit a.service: %#x",
	       target_number(TARGET_UNIT, "a.service", NULL));
}

static void test_list_and_labels(void)
{
	struct target_list list;
	char buf[128];
	uint32_t unit = target_number(TARGET_UNIT, "db.service", NULL);

	unit_write_file("pids", "7\ntree 31\nunit db.service\ncgroup /sys/fs/cgroup/c1\nbad line\n"
			"comm postgres\n");
	expect(!target_list_read("pids", &list, NULL, NULL), "read failed");
	/* The processes too, numbered 0, which no record's target finds. */
	expect(list.count == 5 && list.targets[0].kind == TARGET_PID &&
	       target_pid(&list.targets[0]) == 7 && !list.targets[0].number &&
	       target_pid(&list.targets[1]) == 31, "%zu targets", list.count);
	expect(!target_list_find(&list, 0), "number 0 found a target");
	expect(!strcmp(target_label(&list, target_number(TARGET_COMM, "postgres", NULL), buf,
				    sizeof(buf)), "comm:postgres"), "label %s", buf);
	expect(list.targets[4].kind == TARGET_COMM, "a comm line is of kind %d",
	       list.targets[4].kind);
	expect(!strcmp(target_label(&list, 31, buf, sizeof(buf)), "tree:31"), "label %s", buf);
	expect(!strcmp(target_label(&list, unit, buf, sizeof(buf)), "unit:db.service"),
	       "label %s", buf);
	expect(!strcmp(target_label(&list, target_number(TARGET_CGROUP, "/sys/fs/cgroup/c1", NULL), buf,
				    sizeof(buf)), "cgroup:/sys/fs/cgroup/c1"), "label %s", buf);
	expect(!strcmp(target_label(&list, 99, buf, sizeof(buf)), "tree:99"),
	       "a run's tree: %s", buf);
	expect(!strcmp(target_label(&list, TARGET_NAMED_FIRST + 1, buf, sizeof(buf)),
		       "target:1073741825"), "an unknown target: %s", buf);
	expect(!target_list_collision(&list, TARGET_UNIT, "db.service", NULL), "a target collides with itself");
	target_list_free(&list);
	/* One user's name is a target of its own, labelled with its user. */
	unit_write_file("pids", "comm postgres\nuser=postgres comm postgres\n");
	expect(!target_list_read("pids", &list, NULL, NULL) && list.count == 2, "%zu targets",
	       list.count);
	expect(target_number(TARGET_COMM, "postgres", "postgres") !=
	       target_number(TARGET_COMM, "postgres", NULL), "one user's name has anyone's number");
	expect(!strcmp(target_label(&list, target_number(TARGET_COMM, "postgres", "postgres"), buf,
				    sizeof(buf)), "comm:postgres@postgres"), "label %s", buf);
	expect(!target_list_collision(&list, TARGET_COMM, "postgres", "postgres") &&
	       !target_list_collision(&list, TARGET_COMM, "postgres", NULL),
	       "a user's name collides with anyone's");
	target_list_free(&list);
	expect(!target_list_read("missing", &list, NULL, NULL) && list.count == 0, "a missing file");
}

/* The processes taken out of a list, with their options; the other targets left in order. */
static void test_take_pids(void)
{
	struct target_list list;
	struct pidlist pids;

	unit_write_file("pids", "7\nunit db.service\nmaps 9\ntree 31\nlatency 7\n");
	expect(!target_list_read("pids", &list, NULL, NULL) && list.count == 4, "read failed");
	expect(!target_list_take_pids(&list, &pids), "take failed");
	expect(pids.count == 2 && pids.pids[0] == 7 && pids.options[0] == TARGETSFILE_OPT_LATENCY &&
	       pids.pids[1] == 9 && pids.options[1] == TARGETSFILE_OPT_MAPS,
	       "%zu processes: %d, %d", pids.count, pids.count ? pids.pids[0] : 0,
	       pids.count > 1 ? pids.pids[1] : 0);
	expect(list.count == 2 && list.targets[0].kind == TARGET_UNIT &&
	       list.targets[1].kind == TARGET_TREE, "%zu targets left", list.count);
	pidlist_free(&pids);
	target_list_free(&list);
}

/* A target's options: from its line's words, joined over the lines naming it. */
static const struct options_case {
	const char *file;
	enum target_kind kind;
	const char *name;
	unsigned int options;
} options_cases[] = {
	{ "tree 5\n", TARGET_TREE, "5", 0 },
	{ "maps comm postgres\n", TARGET_COMM, "postgres", TARGETSFILE_OPT_MAPS },
	{ "latency unit db.service\n", TARGET_UNIT, "db.service", TARGETSFILE_OPT_LATENCY },
	{ "maps latency cgroup /c\n", TARGET_CGROUP, "/c", TARGETSFILE_OPT_MAPS | TARGETSFILE_OPT_LATENCY },
	{ "latency  maps tree 5 # either order\n", TARGET_TREE, "5",
	  TARGETSFILE_OPT_MAPS | TARGETSFILE_OPT_LATENCY },
	{ "pages unit db.service\n", TARGET_UNIT, "db.service", TARGETSFILE_OPT_PAGES },
	{ "pages maps latency 42\n", TARGET_PID, "42", TARGETSFILE_OPTS },
	/* Named with and without: one target, with. */
	{ "unit db.service\nmaps unit db.service\n", TARGET_UNIT, "db.service", TARGETSFILE_OPT_MAPS },
	{ "maps unit a\nlatency unit a\nunit a\n", TARGET_UNIT, "a",
	  TARGETSFILE_OPT_MAPS | TARGETSFILE_OPT_LATENCY },
	{ "pages unit a\nmaps unit a\n", TARGET_UNIT, "a", TARGETSFILE_OPT_MAPS | TARGETSFILE_OPT_PAGES },
};

static void test_target_options(void)
{
	for (size_t i = 0; i < sizeof(options_cases) / sizeof(options_cases[0]); i++) {
		const struct options_case *c = &options_cases[i];
		struct target_list list;

		unit_write_file("pids", c->file);
		expect(!target_list_read("pids", &list, NULL, NULL), "case %zu: read failed", i);
		expect(list.count == 1 && list.targets[0].kind == c->kind &&
		       !strcmp(list.targets[0].name, c->name) &&
		       target_line_options(&list.targets[0]) == c->options,
		       "case %zu: %zu targets, the first's options %#x, want %#x", i, list.count,
		       list.count ? target_line_options(&list.targets[0]) : 0, c->options);
		target_list_free(&list);
	}
}

static const struct comm_case {
	const char *name;
	bool valid;
} comm_cases[] = {
	{ "postgres", true },
	{ "kworker/0:1", true },
	{ "123456789012345", true },	/* 15 bytes: what the kernel keeps */
	{ "1234567890123456", false },
	{ "", false },
	{ "Web Content", false },	/* a targets file value is one word */
	{ "a#b", false },
	{ "tab\there", false },
};

static void test_comm_names(void)
{
	for (size_t i = 0; i < sizeof(comm_cases) / sizeof(comm_cases[0]); i++)
		expect(target_comm_valid(comm_cases[i].name) == comm_cases[i].valid,
		       "'%s' is taken as %svalid", comm_cases[i].name,
		       comm_cases[i].valid ? "in" : "");
}

static const struct path_case {
	const char *path;
	int err;
} path_cases[] = {
	{ "cg/a", 0 },
	{ "cg/a/b", 0 },
	{ "cg", -EINVAL },		/* the root itself is no directory below it */
	{ "cgx/a", -EINVAL },
	{ "elsewhere", -EINVAL },
	{ "cg/a/", -EINVAL },
	{ "cg/a//b", -EINVAL },
	{ "cg/a/../a", -EINVAL },
	{ "cg/link", -ELOOP },
	{ "cg/link/b", -ELOOP },
	{ "cg/missing", -ENOENT },
	{ "cg/file", -ENOTDIR },
};

static void test_cgroup_paths(void)
{
	char root[PATH_MAX], path[PATH_MAX];

	make_dirs((const char *const[]){ "cg", "cg/a", "cg/a/b", "cgx", "cgx/a" }, 5);
	expect(!symlink("a", "cg/link"), "symlink: %s", strerror(errno));
	unit_write_file("cg/file", "");
	snprintf(root, sizeof(root), "%s/cg", unit_dir());
	for (size_t i = 0; i < sizeof(path_cases) / sizeof(path_cases[0]); i++) {
		const char *why = NULL;
		int err;

		snprintf(path, sizeof(path), "%s/%s", unit_dir(), path_cases[i].path);
		err = cgroupfs_check_path(root, path, &why);
		expect(err == path_cases[i].err, "%s: %d (%s), want %d", path_cases[i].path, err,
		       why ? why : "", path_cases[i].err);
		expect(!err || why, "%s: no reason given", path_cases[i].path);
	}
	expect(cgroupfs_id(root, &(uint64_t){ 0 }) == -ENOTSUP, "a cgroup id off cgroup2");
}

static const struct unit_name_case {
	const char *name;
	int err;
} unit_name_cases[] = {
	{ "nginx.service", 0 }, { "user-1000.slice", 0 }, { "getty@tty1.service", 0 },
	{ "session-3.scope", 0 }, { "a\\x2db.service", 0 }, { "", -EINVAL },
	{ "nginx", -EINVAL }, { "nginx.socket", -EINVAL }, { ".service", -EINVAL },
	{ "a b.service", -EINVAL }, { "../x.service", -EINVAL }, { "a/b.service", -EINVAL },
};

static void test_unit_names(void)
{
	char long_name[300];

	for (size_t i = 0; i < sizeof(unit_name_cases) / sizeof(unit_name_cases[0]); i++) {
		const char *why = NULL;
		int err = cgroupfs_check_unit_name(unit_name_cases[i].name, &why);

		expect(err == unit_name_cases[i].err, "'%s': %d, want %d", unit_name_cases[i].name,
		       err, unit_name_cases[i].err);
		expect(!err || why, "'%s': no reason given", unit_name_cases[i].name);
	}
	memset(long_name, 'a', sizeof(long_name));
	strcpy(long_name + sizeof(long_name) - 9, ".service");
	expect(cgroupfs_check_unit_name(long_name, &(const char *){ NULL }) == -EINVAL,
	       "a 299-byte name was taken");
}

static void test_units_found(void)
{
	char root[PATH_MAX / 2], path[PATH_MAX], want[PATH_MAX];

	make_dirs((const char *const[]){ "cg", "cg/system.slice", "cg/system.slice/db.service",
					 "cg/user.slice", "cg/user.slice/user-1000.slice",
					 "cg/user.slice/user-1000.slice/user@1000.service",
					 "cg/user.slice/user-1000.slice/user@1000.service/app.slice",
					 "cg/user.slice/user-1000.slice/user@1000.service/app.slice/"
					 "own.service" }, 8);
	snprintf(root, sizeof(root), "%s/cg", unit_dir());
	expect(!cgroupfs_find_unit(root, "db.service", path, sizeof(path)), "db.service not found");
	snprintf(want, sizeof(want), "%s/system.slice/db.service", root);
	expect(!strcmp(path, want), "db.service at %s", path);
	expect(!cgroupfs_find_unit(root, "user-1000.slice", path, sizeof(path)),
	       "user-1000.slice not found");
	snprintf(want, sizeof(want), "%s/user.slice/user-1000.slice", root);
	expect(!strcmp(path, want), "user-1000.slice at %s", path);
	expect(cgroupfs_find_unit(root, "own.service", path, sizeof(path)) == -ENOENT,
	       "a user's own unit was found");
	expect(cgroupfs_find_unit(root, "gone.service", path, sizeof(path)) == -ENOENT,
	       "a stopped unit was found");
	expect(!cgroupfs_find_unit(root, "-.slice", path, sizeof(path)) && !strcmp(path, root),
	       "the root slice at %s", path);
}

static const struct parent_case {
	const char *name, *parent;
} parent_cases[] = {
	{ "db.service", "/system.slice" },
	{ "user.slice", "" },
	{ "user-1000.slice", "/user.slice" },
	{ "a-b-c.slice", "/a.slice/a-b.slice" },
	{ "session-3.scope", "/system.slice" },
};

static void test_unit_parents(void)
{
	char path[PATH_MAX], want[PATH_MAX];

	for (size_t i = 0; i < sizeof(parent_cases) / sizeof(parent_cases[0]); i++) {
		expect(!cgroupfs_unit_parent("/r", parent_cases[i].name, path, sizeof(path)),
		       "%s: failed", parent_cases[i].name);
		snprintf(want, sizeof(want), "/r%s", parent_cases[i].parent);
		expect(!strcmp(path, want), "%s: %s, want %s", parent_cases[i].name, path, want);
	}
}

UNIT_TESTS(
	UNIT_TEST(numbers),
	UNIT_TEST(list_and_labels),
	UNIT_TEST(take_pids),
	UNIT_TEST(target_options),
	UNIT_TEST(comm_names),
	UNIT_TEST(cgroup_paths),
	UNIT_TEST(unit_names),
	UNIT_TEST(units_found),
	UNIT_TEST(unit_parents)
);
