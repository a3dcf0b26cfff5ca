// SPDX-License-Identifier: GPL-2.0
/*
 * heatmap --record --tree PID | --unit NAME: the processes a target has
 * when the recording starts. A tree: the root and its descendants, from
 * /proc/<pid>/task/<tid>/children (CONFIG_PROC_CHILDREN, which Debian's
 * kernels have). A unit: the processes in its cgroup and the cgroups below
 * it. Processes that join later are not recorded: a kdamond is set up
 * for each at the start (docs/damon.md).
 */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cgroupfs.h"
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
