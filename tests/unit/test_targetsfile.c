// SPDX-License-Identifier: GPL-2.0
#include "unit.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "targetsedit.h"
#include "targets.h"
#include "targetsfile.h"

#define ADDERS 8
#define PIDS_PER_ADDER 50

static void check_pids(const struct pidlist *list, const pid_t *want, size_t count)
{
	expect(list->count == count, "%zu PIDs, want %zu", list->count, count);
	for (size_t i = 0; i < count; i++)
		expect(list->pids[i] == want[i], "PID %zu is %d, want %d", i,
			   (int)list->pids[i], (int)want[i]);
}

static void check_file(const char *path, const char *want)
{
	char *text = unit_read_file(path);

	expect(!strcmp(text, want), "%s holds:\n%s\nwant:\n%s", path, text, want);
	free(text);
}

static void check_missing(const char *path)
{
	expect(access(path, F_OK) && errno == ENOENT, "%s exists", path);
}

static ino_t inode_of(const char *path)
{
	struct stat st;

	expect(!stat(path, &st), "stat %s: %s", path, strerror(errno));
	return st.st_ino;
}

/* Fails unless dir holds exactly the targets file and its lock file. */
static void check_no_stray_files(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;

	expect(d != NULL, "opendir %s: %s", dir, strerror(errno));
	while ((e = readdir(d))) {
		const char *name = e->d_name;

		expect(!strcmp(name, ".") || !strcmp(name, "..") || !strcmp(name, "pids") ||
			   !strcmp(name, "pids.lock"), "stray file %s/%s", dir, name);
	}
	closedir(d);
}

/*
 * The file's PIDs of kind (TARGET_PID, or TARGET_TREE for the roots), with
 * their options, as the one reader of the file (target_list_read()) gives them.
 */
static int read_kind(const char *path, enum target_kind kind, struct pidlist *list,
		     targetsfile_report_fn *report, void *ctx)
{
	struct target_list targets;
	int err = target_list_read(path, &targets, report, ctx);

	*list = (struct pidlist){ 0 };
	for (size_t i = 0; !err && i < targets.count; i++) {
		const struct target *t = &targets.targets[i];

		if (t->kind != kind)
			continue;
		if (!list->pids) {
			list->pids = calloc(targets.count, sizeof(*list->pids));
			list->options = calloc(targets.count, sizeof(*list->options));
			expect(list->pids && list->options, "out of memory");
		}
		list->pids[list->count] = target_pid(t);
		list->options[list->count++] = target_line_options(t);
	}
	target_list_free(&targets);
	return err;
}

static void test_read_missing_file(void)
{
	struct pidlist list = { (pid_t *)1, 5, (unsigned int *)1 };
	struct unit_reports reports = { 0 };

	expect(read_kind("pids", TARGET_PID, &list, unit_record_report, &reports) == 0, "read failed");
	expect(list.count == 0 && list.pids == NULL && list.options == NULL, "missing file gave %zu PIDs", list.count);
	expect(reports.count == 0, "unexpected report: %s", reports.r[0].message);
	check_missing("pids");
	check_missing("pids.lock");
}

#define BAD(text)                                                                        \
	"bad line '" text "': expected a PID, 'tree' and a PID, 'cgroup' and a path, "   \
	"'unit' and a name, 'comm' and a command name, any of these after 'maps', "        \
	"'latency' or both, 'comm' also after 'user=USER', or a '#' comment"

static const struct bad_line {
	unsigned int line;
	const char *message;
} bad_lines[] = {
	{ 6, BAD("abc") },
	{ 7, BAD("12x") },
	{ 8, BAD("-5") },
	{ 9, BAD("0") },
	{ 10, BAD("2147483648") },
	{ 12, BAD("+7") },
	{ 14, BAD("1 2") },
	{ 15, BAD("99999999999999999999") },
	{ 20, BAD("tree") },
	{ 21, BAD("tree7") },
	{ 22, BAD("tree 0") },
	{ 23, BAD("Tree 7") },
};

static void test_read_mixed_lines(void)
{
	static const pid_t want[] = { 123, 456, 789, 2147483647, 99, 8 };
	struct pidlist list;
	struct unit_reports reports = { 0 };

	unit_write_file("pids",
			"# registered by pfprofctl\n"	/* 1 */
			"123\n"
			"  456  # web server\n"
			"\t789\t\n"
			"\n"				/* 5 */
			"abc\n"
			"12x\n"
			"-5\n"
			"0\n"
			"2147483648\n"			/* 10 */
			"2147483647\n"
			"+7\n"
			" 99#tight\n"
			"1 2\n"
			"99999999999999999999\n"	/* 15 */
			"123\n"
			"   \t  \n"
			"8\n"
			"tree 31\n"
			"tree\n"			/* 20 */
			"tree7\n"
			"tree 0\n"
			"Tree 7\n"
			"  tree\t32 # a build\n"
			"tree 31\n");
	expect(read_kind("pids", TARGET_PID, &list, unit_record_report, &reports) == 0, "read failed");
	check_pids(&list, want, sizeof(want) / sizeof(want[0]));
	pidlist_free(&list);
	/* The trees' roots are read apart, each once; their lines are no PIDs. */
	expect(read_kind("pids", TARGET_TREE, &list, NULL, NULL) == 0, "reading the trees failed");
	check_pids(&list, (const pid_t[]){ 31, 32 }, 2);
	expect(reports.count == sizeof(bad_lines) / sizeof(bad_lines[0]), "%zu reports",
		   reports.count);
	for (size_t i = 0; i < reports.count; i++) {
		expect(!strcmp(reports.r[i].file, "pids"), "report names file '%s'",
			   reports.r[i].file);
		expect(reports.r[i].line == bad_lines[i].line, "report %zu on line %u, want %u",
			   i, reports.r[i].line, bad_lines[i].line);
		expect(!strcmp(reports.r[i].message, bad_lines[i].message),
			   "report %zu is '%s', want '%s'", i, reports.r[i].message,
			   bad_lines[i].message);
	}
	pidlist_free(&list);
	expect(list.pids == NULL && list.count == 0, "pidlist_free left a list");
}

static void test_read_without_report(void)
{
	static const pid_t want[] = { 4 };
	struct pidlist list;

	unit_write_file("pids", "junk\n4\n");
	expect(read_kind("pids", TARGET_PID, &list, NULL, NULL) == 0, "read failed");
	check_pids(&list, want, 1);
	pidlist_free(&list);
}

static void test_read_error(void)
{
	struct pidlist list;
	int err;

	expect(!mkdir("pids", 0755), "mkdir failed");
	err = read_kind("pids", TARGET_PID, &list, NULL, NULL);
	expect(err == -EISDIR, "read of a directory returned %d", err);
	expect(list.pids == NULL && list.count == 0, "failed read left a list");
}

static void test_add_creates_file(void)
{
	static const pid_t pids[] = { 5, 6 };
	int err;

	/*
	 * 0640 and pfprof's group whatever the umask: pfprofd and the group
	 * pfprof read it, nobody else (privfile.h).
	 */
	umask(077);
	expect(!mkdir("d", 0755), "mkdir failed");
	err = targetsfile_add_pids("d/pids", pids, 2);
	expect(err == 0, "add returned %d", err);
	check_file("d/pids", "5\n6\n");
	unit_expect_mode("d/pids", 0640, true);
	unit_expect_mode("d/pids.lock", 0640, true);
	check_no_stray_files("d");
}

/* The same with umask 0: nothing for others. */
static void test_add_mode_umask_0(void)
{
	static const pid_t pid = 5;

	umask(0);
	expect(!targetsfile_add_pids("pids", &pid, 1), "add failed");
	unit_expect_mode("pids", 0640, true);
	unit_expect_mode("pids.lock", 0640, true);
}

/* An older version's 0644 targets file and lock file are tightened by the next edit. */
static void test_old_files_tightened(void)
{
	static const pid_t pid = 6;

	unit_write_file("pids", "5\n");
	unit_write_file("pids.lock", "");
	expect(!chmod("pids", 0644) && !chmod("pids.lock", 0644), "chmod: %s", strerror(errno));
	expect(!targetsfile_add_pids("pids", &pid, 1), "add failed");
	check_file("pids", "5\n6\n");
	unit_expect_mode("pids", 0640, true);
	unit_expect_mode("pids.lock", 0640, true);
}

/*
 * pfprofd (user pfprof) edits the targets file under a lock file root's
 * pfprofctl created with an older version (0644, root's group): it cannot
 * tighten that file, and must not fail on it. As root only: the test drops
 * to uid and gid 65534 (nobody) for the edit.
 */
static void test_lock_of_another_user(void)
{
	static const pid_t pid = 5;
	struct stat st;
	int err;

	if (geteuid())
		return;
	unit_write_file("pids.lock", "");
	expect(!chmod("pids.lock", 0644) && !chmod(".", 0777), "chmod: %s", strerror(errno));
	expect(!setresgid(65534, 65534, 65534) && !setresuid(65534, 65534, 65534),
	       "becoming nobody: %s", strerror(errno));
	err = targetsfile_add_pids("pids", &pid, 1);
	expect(!err, "add: %s", strerror(-err));
	check_file("pids", "5\n");
	unit_expect_mode("pids", 0640, true);
	expect(!stat("pids.lock", &st) && (st.st_mode & 07777) == 0644 && st.st_uid == 0,
	       "the lock file changed: mode %o, uid %d", st.st_mode & 07777, (int)st.st_uid);
}

/*
 * Symbolic links planted at the lock file's path are refused, not followed
 * (nor their target created); one at the targets file's path is replaced (by
 * rename()), its target untouched.
 */
static void test_symlinks_not_followed(void)
{
	static const pid_t pid = 5;
	char *text;
	int err;

	expect(!symlink("nothing", "pids.lock"), "symlink: %s", strerror(errno));
	err = targetsfile_add_pids("pids", &pid, 1);
	expect(err == -ELOOP, "add with a linked lock file: %s", strerror(-err));
	check_missing("nothing");
	expect(!unlink("pids.lock"), "unlink: %s", strerror(errno));
	unit_write_file("victim", "kept\n");
	expect(!symlink("victim", "pids"), "symlink: %s", strerror(errno));
	expect(!targetsfile_add_pids("pids", &pid, 1), "add failed");
	text = unit_read_file("victim");
	expect(!strcmp(text, "kept\n"), "the link's target was written: %s", text);
	free(text);
	unit_expect_mode("pids", 0640, true);
}

static void test_add_without_directory(void)
{
	static const pid_t pid = 5;
	int err = targetsfile_add_pids("no-dir/pids", &pid, 1);

	expect(err == -ENOENT, "add returned %d, want %d", err, -ENOENT);
	check_missing("no-dir");
}

static void test_add_rejects_bad_pid(void)
{
	static const pid_t pids[] = { 5, 0 };
	int err = targetsfile_add_pids("pids", pids, 2);

	expect(err == -EINVAL, "add returned %d, want %d", err, -EINVAL);
	check_missing("pids");
}

static void test_add_path_too_long(void)
{
	static const pid_t pid = 5;
	char path[PATH_MAX];
	int err;

	memset(path, 'p', sizeof(path) - 1);
	path[sizeof(path) - 1] = '\0';
	err = targetsfile_add_pids(path, &pid, 1);
	expect(err == -ENAMETOOLONG, "add returned %d, want %d", err, -ENAMETOOLONG);
}

static const struct edit_case {
	const char *before;
	pid_t pids[5];
	size_t count;
	const char *after;
} add_cases[] = {
	{ "# c\n10\n  20 # x\nbad\n\n", { 20, 30, 10, 30, 40 }, 5,
	  "# c\n10\n  20 # x\nbad\n\n30\n40\n" },
	{ "7", { 8 }, 1, "7\n8\n" },
	{ "", { 1 }, 1, "1\n" },
	{ "3\n1\n", { 2 }, 1, "3\n1\n2\n" },
	{ "# only\n", { 0 }, 0, "# only\n" },
}, remove_cases[] = {
	{ "# c\n10\n20 # x\n\nbad\n30\n10\n", { 10, 99 }, 2, "# c\n20 # x\n\nbad\n30\n" },
	{ "1\n2\n3", { 3 }, 1, "1\n2\n" },
	{ "1\n2\n3\n", { 3, 1, 2 }, 3, "" },
	{ "# c\n5\n", { 6 }, 1, "# c\n5\n" },
};

static void run_edit_cases(const struct edit_case *cases, size_t count,
			   int (*edit)(const char *, const pid_t *, size_t))
{
	for (size_t i = 0; i < count; i++) {
		int err;

		unit_write_file("pids", cases[i].before);
		err = edit("pids", cases[i].pids, cases[i].count);
		expect(err == 0, "case %zu returned %d", i, err);
		check_file("pids", cases[i].after);
		check_no_stray_files(".");
	}
}

static void test_add_keeps_lines(void)
{
	run_edit_cases(add_cases, sizeof(add_cases) / sizeof(add_cases[0]), targetsfile_add_pids);
}

static void test_remove_keeps_lines(void)
{
	run_edit_cases(remove_cases, sizeof(remove_cases) / sizeof(remove_cases[0]),
		       targetsfile_remove_pids);
}

/* Trees and PIDs of the same number are lines of their own. */
static const struct edit_case add_tree_cases[] = {
	{ "# c\n10\ntree 20\n", { 10, 20 }, 2, "# c\n10\ntree 20\ntree 10\n" },
	{ "", { 1 }, 1, "tree 1\n" },
}, remove_tree_cases[] = {
	{ "10\ntree 10\n  tree 20 # x\n", { 10, 20 }, 2, "10\n" },
	{ "tree 5\n", { 6 }, 1, "tree 5\n" },
};

static void test_trees_keep_lines(void)
{
	run_edit_cases(add_tree_cases, sizeof(add_tree_cases) / sizeof(add_tree_cases[0]),
		       targetsfile_add_trees);
	run_edit_cases(remove_tree_cases,
		       sizeof(remove_tree_cases) / sizeof(remove_tree_cases[0]),
		       targetsfile_remove_trees);
	/* Removing a PID leaves the tree of that number. */
	unit_write_file("pids", "7\ntree 7\n");
	expect(!targetsfile_remove_pids("pids", (const pid_t[]){ 7 }, 1), "remove failed");
	check_file("pids", "tree 7\n");
}

/* The options of the lines before "pages". */
#define MAPS_LATENCY (TARGETSFILE_OPT_MAPS | TARGETSFILE_OPT_LATENCY)

/* Options before a line's kind: read in any order, joined over the lines of a value. */
static const struct options_read_case {
	const char *line;
	int kind;		/* or TARGETSFILE_LINE_BAD */
	unsigned int options;
	const char *value;
	const char *user;	/* "" for none */
} options_read_cases[] = {
	{ "maps 8\n", TARGET_PID, TARGETSFILE_OPT_MAPS, "8", "" },
	{ "latency 8\n", TARGET_PID, TARGETSFILE_OPT_LATENCY, "8", "" },
	{ "maps latency 8\n", TARGET_PID, MAPS_LATENCY, "8", "" },
	{ "latency\tmaps  tree 7 # kept\n", TARGET_TREE, MAPS_LATENCY, "7", "" },
	{ "maps unit db.service\n", TARGET_UNIT, TARGETSFILE_OPT_MAPS, "db.service", "" },
	{ "latency comm postgres\n", TARGET_COMM, TARGETSFILE_OPT_LATENCY, "postgres", "" },
	{ "maps latency cgroup /c\n", TARGET_CGROUP, MAPS_LATENCY, "/c", "" },
	{ "comm latency\n", TARGET_COMM, 0, "latency", "" },	/* a name, not an option */
	{ "pages 8\n", TARGET_PID, TARGETSFILE_OPT_PAGES, "8", "" },
	{ "pages maps latency unit db.service\n", TARGET_UNIT, TARGETSFILE_OPTS, "db.service", "" },
	{ "comm pages\n", TARGET_COMM, 0, "pages", "" },
	{ "maps tree\n", TARGETSFILE_LINE_BAD, 0, NULL, "" },
	{ "latency\n", TARGETSFILE_LINE_BAD, 0, NULL, "" },
	{ "tree maps 7\n", TARGETSFILE_LINE_BAD, 0, NULL, "" },
	{ "maps 09\n", TARGET_PID, TARGETSFILE_OPT_MAPS, "9", "" },
	/* One user's processes of a name: "user=" with the options, a comm line's only. */
	{ "user=postgres comm postgres\n", TARGET_COMM, 0, "postgres", "postgres" },
	{ "maps user=999 latency comm pg # x\n", TARGET_COMM, MAPS_LATENCY, "pg", "999" },
	{ "user=postgres unit db.service\n", TARGETSFILE_LINE_BAD, 0, NULL, NULL },
	{ "user=postgres 8\n", TARGETSFILE_LINE_BAD, 0, NULL, NULL },
	{ "user= comm pg\n", TARGETSFILE_LINE_BAD, 0, NULL, NULL },
	{ "user=a#b comm pg\n", TARGETSFILE_LINE_BAD, 0, NULL, NULL },
	{ "comm user=x\n", TARGET_COMM, 0, "user=x", "" },	/* a name, not a user */
};

static void test_options_read(void)
{
	for (size_t i = 0; i < sizeof(options_read_cases) / sizeof(options_read_cases[0]); i++) {
		const struct options_read_case *c = &options_read_cases[i];
		char value[TARGETSFILE_VALUE_MAX], user[TARGETSFILE_USER_MAX];
		unsigned int options = ~0u;
		int kind = targetsfile_parse_line(c->line, strlen(c->line), value, &options, user);

		expect(kind == c->kind, "case %zu: kind %d, want %d", i, kind, c->kind);
		if (kind < 0 || c->kind < 0)
			continue;
		expect(options == c->options, "case %zu: options %#x, want %#x", i, options, c->options);
		expect(!strcmp(value, c->value), "case %zu: value '%s'", i, value);
		expect(!strcmp(user, c->user ? c->user : ""), "case %zu: user '%s'", i, user);
	}
}

/* A PID on several lines is read once, with the options of all; trees apart. */
static void test_options_joined(void)
{
	struct pidlist list;

	unit_write_file("pids", "7\nmaps 7\nlatency 9\ntree 7\nlatency 7\n9\n");
	expect(!read_kind("pids", TARGET_PID, &list, NULL, NULL), "read failed");
	expect(list.count == 2 && list.pids[0] == 7 && list.options[0] == MAPS_LATENCY &&
	       list.pids[1] == 9 && list.options[1] == TARGETSFILE_OPT_LATENCY,
	       "%zu PIDs, the first's options %#x", list.count, list.count ? list.options[0] : 0);
	pidlist_free(&list);
	expect(!read_kind("pids", TARGET_TREE, &list, NULL, NULL), "read failed");
	expect(list.count == 1 && list.pids[0] == 7 && list.options[0] == 0, "the tree read wrong");
	pidlist_free(&list);
}

/*
 * Edits with options: a value keeps one line of its kind, with the options
 * given and those it had; removing takes every line of the value.
 */
static const struct options_edit_case {
	const char *before;
	enum target_kind kind;
	unsigned int options;
	bool add;
	const char *values[2];
	size_t count;
	const char *after;
} options_edit_cases[] = {
	{ "7\ntree 7\n", TARGET_PID, TARGETSFILE_OPT_MAPS, true, { "7", "9" }, 2,
	  "tree 7\nmaps 7\nmaps 9\n" },
	{ "unit db.service\n", TARGET_UNIT, TARGETSFILE_OPT_LATENCY, true, { "db.service" }, 1,
	  "latency unit db.service\n" },
	/* Without an option: a value kept with it stays as it is. */
	{ "maps unit db.service\n", TARGET_UNIT, 0, true, { "db.service" }, 1,
	  "maps unit db.service\n" },
	/* The other option: the line gets both. */
	{ "maps unit db.service # x\n", TARGET_UNIT, TARGETSFILE_OPT_LATENCY, true,
	  { "db.service" }, 1, "maps latency unit db.service\n" },
	{ "latency tree 31\nmaps tree 31\n", TARGET_TREE, 0, true, { "31" }, 1,
	  "maps latency tree 31\n" },
	{ "latency maps comm pg\n", TARGET_COMM, MAPS_LATENCY, true, { "pg" }, 1,
	  "latency maps comm pg\n" },
	{ "", TARGET_CGROUP, MAPS_LATENCY, true, { "/c" }, 1, "maps latency cgroup /c\n" },
	{ "maps unit db.service\n", TARGET_UNIT, TARGETSFILE_OPT_PAGES, true, { "db.service" }, 1,
	  "maps pages unit db.service\n" },
	/* Removing takes every form, and nothing of another kind. */
	{ "unit a\nmaps unit a\nlatency unit a\ncomm a\n", TARGET_UNIT, 0, false, { "a" }, 1,
	  "comm a\n" },
	{ "7\nmaps latency 7\ntree 7\n", TARGET_PID, TARGETSFILE_OPT_MAPS, false, { "7" }, 1,
	  "tree 7\n" },
};

static void test_options_edited(void)
{
	for (size_t i = 0; i < sizeof(options_edit_cases) / sizeof(options_edit_cases[0]); i++) {
		const struct options_edit_case *c = &options_edit_cases[i];
		int err;

		unit_write_file("pids", c->before);
		err = targetsfile_edit_values("pids", c->kind, c->options, c->add, c->values, c->count);
		expect(!err, "case %zu returned %d", i, err);
		check_file("pids", c->after);
	}
	expect(targetsfile_edit_values("pids", TARGET_PID, TARGETSFILE_OPT_MAPS, true,
				       (const char *const[]){ "09" }, 1) == -EINVAL,
	       "a PID not in canonical form was not refused");
	unit_write_file("pids", "latency 7\n");
	expect(!targetsfile_edit_pids("pids", TARGET_PID, TARGETSFILE_OPT_MAPS, true,
				      (const pid_t[]){ 7 }, 1), "adding PIDs failed");
	check_file("pids", "maps latency 7\n");
}

/* Cgroups and units: one word each, read back as written, kept apart from PIDs. */
static void test_named_lines(void)
{
	static const char *const units[] = { "nginx.service", "user-1000.slice" };
	static const char *const cgroup[] = { "/sys/fs/cgroup/machine.slice/c1" };
	struct targetsfile_values values;

	unit_write_file("pids", "# kept\n7\nunit  nginx.service # web\ncgroup\n");
	expect(!targetsfile_edit_values("pids", TARGET_UNIT, 0, true, units, 2), "adding units failed");
	expect(!targetsfile_edit_values("pids", TARGET_CGROUP, 0, true, cgroup, 1),
	       "adding a cgroup failed");
	check_file("pids", "# kept\n7\nunit  nginx.service # web\ncgroup\nunit user-1000.slice\n"
			   "cgroup /sys/fs/cgroup/machine.slice/c1\n");
	expect(!targetsfile_read_values("pids", TARGETSFILE_KIND(TARGET_UNIT), &values, NULL,
					NULL), "read failed");
	expect(values.count == 2 && !strcmp(values.values[0], units[0]) &&
		       !strcmp(values.values[1], units[1]),
	       "%zu units read", values.count);
	targetsfile_values_free(&values);
	expect(!targetsfile_edit_values("pids", TARGET_UNIT, 0, false, units, 1), "removing failed");
	check_file("pids", "# kept\n7\ncgroup\nunit user-1000.slice\n"
			   "cgroup /sys/fs/cgroup/machine.slice/c1\n");
}

/*
 * One user's name: a line of its own beside anyone's of that name, edited
 * and removed apart from it, read back with its user.
 */
static void test_user_comm_lines(void)
{
	static const char *const pg[] = { "postgres" };
	struct targetsfile_values values;

	unit_write_file("pids", "comm postgres\n");
	expect(!targetsfile_edit_user_values("pids", TARGET_COMM, TARGETSFILE_OPT_MAPS,
					     "postgres", true, pg, 1), "adding a user's name failed");
	check_file("pids", "comm postgres\nmaps user=postgres comm postgres\n");
	expect(!targetsfile_read_values("pids", TARGETSFILE_KIND(TARGET_COMM), &values, NULL,
					NULL), "read failed");
	expect(values.count == 2 && !values.users[0] && values.users[1] &&
	       !strcmp(values.users[1], "postgres") && values.options[1] == TARGETSFILE_OPT_MAPS,
	       "%zu names read, the second's user %s", values.count,
	       values.count > 1 && values.users[1] ? values.users[1] : "(none)");
	targetsfile_values_free(&values);
	expect(!targetsfile_edit_values("pids", TARGET_COMM, 0, false, pg, 1),
	       "removing anyone's name failed");
	check_file("pids", "maps user=postgres comm postgres\n");
	expect(!targetsfile_edit_user_values("pids", TARGET_COMM, 0, "postgres", false, pg, 1),
	       "removing the user's name failed");
	check_file("pids", "");
	expect(targetsfile_edit_user_values("pids", TARGET_UNIT, 0, "postgres", true, pg, 1) ==
	       -EINVAL, "a user's unit was not refused");
	expect(targetsfile_edit_user_values("pids", TARGET_COMM, 0, "a b", true, pg, 1) ==
	       -EINVAL, "a user with a space was not refused");
}

/* A value that could not be read back as written changes nothing. */
static void test_named_lines_refused(void)
{
	static const char *const bad[] = { "", "a b", "a#b", "tab\there", "new\nline" };

	unit_write_file("pids", "unit a.service\n");
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		const char *const values[] = { "ok.service", bad[i] };

		expect(targetsfile_edit_values("pids", TARGET_UNIT, 0, true, values, 2) == -EINVAL,
		       "'%s' was not refused", bad[i]);
	}
	expect(targetsfile_edit_values("pids", TARGET_TREE, 0, true, (const char *const[]){ "07" }, 1) ==
		       -EINVAL, "a PID not in canonical form was not refused");
	check_file("pids", "unit a.service\n");
}

static void test_remove_from_missing_file(void)
{
	static const pid_t pid = 5;
	int err = targetsfile_remove_pids("pids", &pid, 1);

	expect(err == 0, "remove returned %d", err);
	check_missing("pids");
	err = targetsfile_remove_pids("no-dir/pids", &pid, 1);
	expect(err == 0, "remove without directory returned %d", err);
	check_missing("no-dir");
}

/* The old file must stay whole: an open descriptor still reads the old text. */
static void check_replaced(int (*edit)(const char *, const pid_t *, size_t), pid_t pid,
			   const char *after)
{
	const char *before = "# c\n1\n2\n";
	char old_text[64] = "";
	ino_t old_inode;
	int fd, err;

	expect(!mkdir("d", 0755), "mkdir failed");
	unit_write_file("d/pids", before);
	old_inode = inode_of("d/pids");
	fd = open("d/pids", O_RDONLY);
	expect(fd >= 0, "open: %s", strerror(errno));
	err = edit("d/pids", &pid, 1);
	expect(err == 0, "edit returned %d", err);
	expect(inode_of("d/pids") != old_inode, "file rewritten in place");
	expect(pread(fd, old_text, sizeof(old_text) - 1, 0) > 0, "pread failed");
	expect(!strcmp(old_text, before), "old file changed to:\n%s", old_text);
	close(fd);
	check_file("d/pids", after);
	check_no_stray_files("d");
}

static void test_add_replaces_atomically(void)
{
	check_replaced(targetsfile_add_pids, 3, "# c\n1\n2\n3\n");
}

static void test_remove_replaces_atomically(void)
{
	check_replaced(targetsfile_remove_pids, 1, "# c\n2\n");
}

/* Edits that change nothing leave the file alone. */
static void test_no_change_no_rewrite(void)
{
	static const pid_t present = 1, absent = 9;
	ino_t inode;
	int fd;

	unit_write_file("pids", "1\n");
	inode = inode_of("pids");
	/* Held open so that a replacement could not be given the same inode number. */
	fd = open("pids", O_RDONLY);
	expect(fd >= 0, "open: %s", strerror(errno));
	expect(targetsfile_add_pids("pids", &present, 1) == 0, "add failed");
	expect(inode_of("pids") == inode, "add rewrote the file");
	expect(targetsfile_remove_pids("pids", &absent, 1) == 0, "remove failed");
	expect(inode_of("pids") == inode, "remove rewrote the file");
	close(fd);
	check_file("pids", "1\n");
	check_no_stray_files(".");
}

/* One child: waits for the start signal, then adds its PIDs one call at a time. */
static void run_adder(int start_fd, int child)
{
	char c;

	if (read(start_fd, &c, 1) != 0)
		_exit(2);
	for (int i = 0; i < PIDS_PER_ADDER; i++) {
		pid_t pid = 1000 + child * PIDS_PER_ADDER + i;

		if (targetsfile_add_pids("pids", &pid, 1))
			_exit(3);
	}
	_exit(0);
}

static void check_each_pid_once(void)
{
	char *text = unit_read_file("pids");
	int seen[ADDERS * PIDS_PER_ADDER] = { 0 };
	char *line, *save;

	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		int pid = atoi(line);

		expect(pid >= 1000 && pid < 1000 + ADDERS * PIDS_PER_ADDER, "line '%s'", line);
		expect(++seen[pid - 1000] == 1, "PID %d written twice", pid);
	}
	for (int i = 0; i < ADDERS * PIDS_PER_ADDER; i++)
		expect(seen[i] == 1, "PID %d lost", 1000 + i);
	free(text);
}

static void test_concurrent_adders(void)
{
	int start[2], status;
	pid_t children[ADDERS];

	expect(!pipe(start), "pipe: %s", strerror(errno));
	for (int i = 0; i < ADDERS; i++) {
		children[i] = fork();
		expect(children[i] >= 0, "fork: %s", strerror(errno));
		if (children[i] == 0) {
			close(start[1]);
			run_adder(start[0], i);
		}
	}
	/* Closing the write end releases every child at once. */
	close(start[1]);
	for (int i = 0; i < ADDERS; i++) {
		expect(waitpid(children[i], &status, 0) == children[i], "waitpid failed");
		expect(WIFEXITED(status) && WEXITSTATUS(status) == 0, "adder %d status %#x",
			   i, status);
	}
	check_each_pid_once();
	check_no_stray_files(".");
}

UNIT_TESTS(
	UNIT_TEST(read_missing_file),
	UNIT_TEST(read_mixed_lines),
	UNIT_TEST(read_without_report),
	UNIT_TEST(read_error),
	UNIT_TEST(add_creates_file),
	UNIT_TEST(add_mode_umask_0),
	UNIT_TEST(old_files_tightened),
	UNIT_TEST(symlinks_not_followed),
	UNIT_TEST(lock_of_another_user),
	UNIT_TEST(add_without_directory),
	UNIT_TEST(add_rejects_bad_pid),
	UNIT_TEST(add_path_too_long),
	UNIT_TEST(add_keeps_lines),
	UNIT_TEST(remove_keeps_lines),
	UNIT_TEST(trees_keep_lines),
	UNIT_TEST(options_read),
	UNIT_TEST(options_joined),
	UNIT_TEST(options_edited),
	UNIT_TEST(named_lines), UNIT_TEST(user_comm_lines),
	UNIT_TEST(named_lines_refused),
	UNIT_TEST(remove_from_missing_file),
	UNIT_TEST(add_replaces_atomically),
	UNIT_TEST(remove_replaces_atomically),
	UNIT_TEST(no_change_no_rewrite),
	UNIT_TEST(concurrent_adders)
);
