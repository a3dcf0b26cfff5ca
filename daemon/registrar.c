// SPDX-License-Identifier: GPL-2.0
#include "registrar.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "daemon_log.h"
#include "targetsedit.h"
#include "targetsfile.h"
#include "procstatus.h"

static void report_bad_line(void *ctx, const char *file, unsigned int line, const char *message)
{
	(void)ctx;
	dlog(LOG_WARNING, "%s:%u: %s (line ignored)", file, line, message);
}

/* The targets file's lines naming a process: alone or with its tree, with its mappings or not. */
struct kind {
	const char *what;	/* in messages: "PID", "maps PID", "the tree of PID" */
	bool maps;		/* "profiling ... with its mappings" */
	enum targetsfile_kind lines;
	int (*command)(const char *status_file, pid_t pid);
};

static int register_alone(const char *status_file, pid_t pid)
{
	return procstatus_command(status_file, 'R', pid);
}

/* A tree's target number is its root's PID. */
static int register_tree(const char *status_file, pid_t root)
{
	return procstatus_tree(status_file, root, (unsigned int)root);
}

/*
 * "M" every time, registered now or before: the line may have gained its
 * "maps" since, and on a tree that has it already "M" changes nothing.
 */
static int register_tree_maps(const char *status_file, pid_t root)
{
	int err = register_tree(status_file, root), maps_err;

	if (err && err != -EEXIST)
		return err;
	maps_err = procstatus_maps_target(status_file, (unsigned int)root);
	return maps_err ? maps_err : err;
}

static const struct kind processes = { "PID", false, TARGETSFILE_PID, register_alone };
static const struct kind mapped = { "maps PID", true, TARGETSFILE_MAPS, procstatus_register_maps };
static const struct kind trees = { "the tree of PID", false, TARGETSFILE_TREE, register_tree };
static const struct kind mapped_trees = { "the tree of PID", true, TARGETSFILE_MAPS_TREE,
					  register_tree_maps };

/* The PIDs of k's lines; the bad lines are reported once, with the PIDs alone. */
static int read_pids(const char *path, const struct kind *k, struct pidlist *list)
{
	if (k->lines == TARGETSFILE_PID)
		return targetsfile_read_pids(path, list, report_bad_line, NULL);
	return targetsfile_read_kind(path, k->lines, list);
}

/* Registers one PID; returns 1 if it is registered now, 0 if not, -ESRCH if gone. */
static int register_one(const struct pfprof_config *config, const struct kind *k, pid_t pid)
{
	int err = k->command(config->status_file, pid);

	switch (err) {
	case 0:
		if (k == &mapped)
			dlog(LOG_INFO, "profiling PID %d with its mappings", (int)pid);
		else if (k->maps)
			dlog(LOG_INFO, "profiling the tree of PID %d with its mappings", (int)pid);
		else
			dlog(LOG_INFO, "profiling %s %d", k->what, (int)pid);
		return 1;
	case -EEXIST:
		return 1;
	case -ESRCH:
		return -ESRCH;
	default:
		dlog(LOG_ERR, "cannot register %s %d with %s: %s", k->what, (int)pid,
		     config->status_file, strerror(-err));
		return 0;
	}
}

static void drop_dead(const struct pfprof_config *config, const struct kind *k,
		      const pid_t *dead, size_t count)
{
	int err = targetsfile_edit_pids(config->targets_file, k->lines, false, dead, count);

	/* Whole messages, so that each can be found as the man page quotes it. */
	for (size_t i = 0; i < count; i++)
		dlog(LOG_INFO, err ? "PID %d has exited; cannot remove it from %s" :
				     "PID %d has exited; removed it from %s",
		     (int)dead[i], config->targets_file);
	if (err)
		dlog(LOG_ERR, "updating %s: %s", config->targets_file, strerror(-err));
}

/* Registers the targets file's lines of one kind; returns how many are registered. */
static int sync_kind(const struct pfprof_config *config, const struct kind *k)
{
	struct pidlist list = { 0 };
	pid_t *dead;
	size_t nr_dead = 0;
	int err, registered = 0;

	err = read_pids(config->targets_file, k, &list);
	if (err) {
		dlog(LOG_ERR, "reading %s: %s", config->targets_file, strerror(-err));
		return 0;
	}
	dead = calloc(list.count ? list.count : 1, sizeof(*dead));
	if (!dead) {
		pidlist_free(&list);
		dlog(LOG_ERR, "out of memory");
		return 0;
	}
	for (size_t i = 0; i < list.count; i++) {
		int r = register_one(config, k, list.pids[i]);

		if (r == -ESRCH)
			dead[nr_dead++] = list.pids[i];
		else
			registered += r;
	}
	if (nr_dead)
		drop_dead(config, k, dead, nr_dead);
	free(dead);
	pidlist_free(&list);
	return registered;
}

int registrar_sync(const struct pfprof_config *config)
{
	/*
	 * Trees first: a tree's root listed alone too is then followed all the
	 * same; then the processes with their mappings, which a process listed
	 * alone too keeps.
	 */
	int registered = sync_kind(config, &mapped_trees) + sync_kind(config, &trees);

	registered += sync_kind(config, &mapped);
	return registered + sync_kind(config, &processes);
}
