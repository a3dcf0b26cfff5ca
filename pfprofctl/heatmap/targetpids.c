// SPDX-License-Identifier: GPL-2.0
/*
 * heatmap --record: the processes it records, its operands or a target's:
 * --tree PID | --unit NAME, the processes the target has when the recording
 * starts. A tree: the root and its descendants, from
 * /proc/<pid>/task/<tid>/children (CONFIG_PROC_CHILDREN, which Debian's
 * kernels have). A unit: the processes in its cgroup and the cgroups below
 * it. Processes that join later are not recorded: a kdamond is set up
 * for each at the start (docs/design/damon.md).
 */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cgroupfs.h"
#include "ctl.h"
#include "damon.h"
#include "options.h"
#include "targetpids.h"

/* What is being collected: at most max PIDs, and how many there were in all. */
struct collected {
	pid_t *pids;
	size_t max, count, seen;
};

static void add_pid(struct collected *c, pid_t pid)
{
	for (size_t i = 0; i < c->count; i++)
		if (c->pids[i] == pid)
			return;
	if (c->count < c->max)
		c->pids[c->count++] = pid;
	c->seen++;
}

/* Every PID in a file of PIDs a line (cgroup.procs, children's words); -errno. */
static int read_pids(const char *path, struct collected *c)
{
	FILE *f = fopen(path, "re");
	long pid;

	if (!f)
		return -errno;
	while (fscanf(f, "%ld", &pid) == 1)
		if (pid > 0 && pid <= INT_MAX)
			add_pid(c, (pid_t)pid);
	fclose(f);
	return 0;
}

/*
 * pid's children, each thread's, then theirs, breadth first: the PIDs
 * collected so far are the queue. A process that exits meanwhile has none.
 */
static void add_tree(pid_t root, struct collected *c)
{
	add_pid(c, root);
	for (size_t next = 0; next < c->count; next++) {
		char path[64];
		const struct dirent *d;
		DIR *tasks;

		snprintf(path, sizeof(path), "/proc/%d/task", (int)c->pids[next]);
		tasks = opendir(path);
		if (!tasks)
			continue;
		while ((d = readdir(tasks))) {
			char children[96];

			if (d->d_name[0] < '1' || d->d_name[0] > '9')
				continue;
			snprintf(children, sizeof(children), "/proc/%d/task/%.16s/children",
				 (int)c->pids[next], d->d_name);
			read_pids(children, c);
		}
		closedir(tasks);
	}
}

/* The processes of the cgroup at path and of every cgroup below it; -errno. */
static int add_cgroup(const char *path, struct collected *c)
{
	char procs[PATH_MAX];
	const struct dirent *d;
	DIR *dir;
	int err;

	if (snprintf(procs, sizeof(procs), "%s/cgroup.procs", path) >= (int)sizeof(procs))
		return -ENAMETOOLONG;
	err = read_pids(procs, c);
	dir = err ? NULL : opendir(path);
	if (!dir)
		return err ? err : -errno;
	while (!err && (d = readdir(dir))) {
		char sub[PATH_MAX];

		if (d->d_type != DT_DIR || d->d_name[0] == '.')
			continue;
		if (snprintf(sub, sizeof(sub), "%s/%s", path, d->d_name) >= (int)sizeof(sub))
			err = -ENAMETOOLONG;
		else
			err = add_cgroup(sub, c);
	}
	closedir(dir);
	return err;
}

int heatmap_tree_pids(pid_t root, pid_t *pids, size_t max, size_t *count, size_t *seen)
{
	struct collected c = { .pids = pids, .max = max };
	char path[32];

	snprintf(path, sizeof(path), "/proc/%d", (int)root);
	if (access(path, F_OK))
		return errno == ENOENT ? -ESRCH : -errno;
	add_tree(root, &c);
	*count = c.count;
	*seen = c.seen;
	return 0;
}

int heatmap_unit_pids(const char *unit, pid_t *pids, size_t max, size_t *count, size_t *seen)
{
	struct collected c = { .pids = pids, .max = max };
	char path[PATH_MAX];
	int err = cgroupfs_find_unit(CGROUPFS_ROOT, unit, path, sizeof(path));

	if (!err)
		err = add_cgroup(path, &c);
	*count = c.count;
	*seen = c.seen;
	return err;
}

/* A target's processes into pids (*nr): the tree's or the unit's. -1 to go on, else the exit status. */
static int target_pids(const struct ctl_call *call, const struct ctl_command *cmd, pid_t *pids,
		       size_t *nr)
{
	const char *name = call->operands[0], *why;
	size_t seen = 0;
	pid_t root;
	int err;

	if (call->nr_operands != 1)
		return ctl_usage_error(cmd, "one target at a time: %d given", call->nr_operands);
	if (call->option[OPT_TREE].set) {
		if (!ctl_parse_pid(name, &root))
			return ctl_usage_error(cmd, "'%s' is not a PID", name);
		err = heatmap_tree_pids(root, pids, DAMON_MAX_PROCESSES, nr, &seen);
	} else if ((err = cgroupfs_check_unit_name(name, &why))) {
		return ctl_usage_error(cmd, "'%s': %s", name, why);
	} else {
		err = heatmap_unit_pids(name, pids, DAMON_MAX_PROCESSES, nr, &seen);
	}
	if (!err && !*nr)
		err = -ESRCH;
	if (err) {
		ctl_error(err, call->option[OPT_TREE].set ? "process %s" : err == -ENOENT ?
			  "unit %s: it is not running (no cgroup)" : "unit %s", name);
		return PFPROF_EXIT_FAILED;
	}
	if (seen > *nr)
		fprintf(stderr, "pfprofctl: %s has %zu processes: the first %zu are recorded, a "
			"kdamond each\n", name, seen, *nr);
	return -1;
}

int heatmap_pids_to_record(const struct ctl_call *call, const struct ctl_command *cmd,
			   pid_t *pids, size_t *nr)
{
	if (call->option[OPT_TREE].set && call->option[OPT_UNIT].set)
		return ctl_usage_error(cmd, "--tree and --unit name different things: give one "
				       "of them");
	if (call->option[OPT_TREE].set || call->option[OPT_UNIT].set)
		return target_pids(call, cmd, pids, nr);
	*nr = (size_t)call->nr_operands;
	for (size_t i = 0; i < *nr; i++)
		if (!ctl_parse_pid(call->operands[i], &pids[i]))
			return ctl_usage_error(cmd, "'%s' is not a PID", call->operands[i]);
	return -1;
}
