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

/* The targets file's lines naming a process: alone or with its tree. */
struct kind {
	const char *what;	/* in messages: "PID", "the tree of PID" */
	enum target_kind lines;
	int (*command)(const char *status_file, pid_t pid, unsigned int options);
	/* Logged once registered, by options: whole messages, as the man page quotes them. */
	const char *registered[TARGETSFILE_OPTS + 1];
};

/*
 * A tree's target number is its root's PID. Its options ("M", "L") every
 * time, registered now or before: the line may have gained one since, and
 * on a tree that has it already the command changes nothing.
 */
static int register_tree(const char *status_file, pid_t root, unsigned int options)
{
	int err = procstatus_tree(status_file, root, (unsigned int)root), options_err;

	if (err && err != -EEXIST)
		return err;
	options_err = procstatus_target_options(status_file, options, (unsigned int)root);
	return options_err ? options_err : err;
}

static const struct kind processes = {
	"PID", TARGET_PID, procstatus_register, {
		[0] = "profiling PID %d",
		[TARGETSFILE_OPT_MAPS] = "profiling PID %d with its mappings",
		[TARGETSFILE_OPT_LATENCY] = "profiling PID %d with its fault latency",
		[TARGETSFILE_OPTS] = "profiling PID %d with its mappings and fault latency",
	},
};
static const struct kind trees = {
	"the tree of PID", TARGET_TREE, register_tree, {
		[0] = "profiling the tree of PID %d",
		[TARGETSFILE_OPT_MAPS] = "profiling the tree of PID %d with its mappings",
		[TARGETSFILE_OPT_LATENCY] = "profiling the tree of PID %d with its fault latency",
		[TARGETSFILE_OPTS] = "profiling the tree of PID %d with its mappings and fault latency",
	},
};

/* The PIDs of k's lines; the bad lines are reported once, with the PIDs alone. */
static int read_pids(const char *path, const struct kind *k, struct pidlist *list)
{
	if (k->lines == TARGET_PID)
		return targetsfile_read_pids(path, list, report_bad_line, NULL);
	return targetsfile_read_kind(path, k->lines, list);
}

/* Why the module refused a registration with options, beside its error. */
static void report_refused(const struct pfprof_config *config, const struct kind *k, pid_t pid,
			   unsigned int options, int err)
{
	if (!options)
		dlog(LOG_ERR, "cannot register %s %d with %s: %s", k->what, (int)pid,
		     config->status_file, strerror(-err));
	else
		dlog(LOG_ERR, "cannot register %s %d with %s (%s): %s%s", k->what, (int)pid,
		     config->status_file, targetsfile_option_words(options), strerror(-err),
		     err == -EINVAL ? " (the module is older than pfprofd)" : "");
}

/* Registers one PID; returns 1 if it is registered now, 0 if not, -ESRCH if gone. */
static int register_one(const struct pfprof_config *config, const struct kind *k, pid_t pid,
			unsigned int options)
{
	int err = k->command(config->status_file, pid, options);

	switch (err) {
	case 0:
		dlog(LOG_INFO, k->registered[options], (int)pid);
		return 1;
	case -EEXIST:
		return 1;
	case -ESRCH:
		return -ESRCH;
	default:
		report_refused(config, k, pid, options, err);
		return 0;
	}
}

static void drop_dead(const struct pfprof_config *config, const struct kind *k,
		      const pid_t *dead, size_t count)
{
	int err = targetsfile_edit_pids(config->targets_file, k->lines, 0, false, dead, count);

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
		int r = register_one(config, k, list.pids[i], list.options[i]);

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
	 * same. A process on several lines is registered once, with the
	 * options of all (targetsfile_read_pids()).
	 */
	int registered = sync_kind(config, &trees);

	return registered + sync_kind(config, &processes);
}
