// SPDX-License-Identifier: GPL-2.0
#include "registrar.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "daemon_log.h"
#include "targetsedit.h"
#include "targets.h"
#include "targetsfile.h"

/* The targets file's lines naming a process: alone or with its tree. */
struct kind {
	const char *what;	/* in messages: "PID", "the tree of PID" */
	enum target_kind kind;
	/* Logged once registered, by options: whole messages, as the man page quotes them. */
	const char *registered[TARGETSFILE_OPTS + 1];
};

#define MAPS TARGETSFILE_OPT_MAPS
#define LATENCY TARGETSFILE_OPT_LATENCY
#define PAGES TARGETSFILE_OPT_PAGES

static const struct kind processes = {
	"PID", TARGET_PID, {
		[0] = "profiling PID %d",
		[MAPS] = "profiling PID %d with its mappings",
		[LATENCY] = "profiling PID %d with its fault latency",
		[MAPS | LATENCY] = "profiling PID %d with its mappings and fault latency",
		[PAGES] = "profiling PID %d with its swapped pages",
		[MAPS | PAGES] = "profiling PID %d with its mappings and swapped pages",
		[LATENCY | PAGES] = "profiling PID %d with its fault latency and swapped pages",
		[MAPS | LATENCY | PAGES] =
			"profiling PID %d with its mappings, fault latency and swapped pages",
	},
};
static const struct kind trees = {
	"the tree of PID", TARGET_TREE, {
		[0] = "profiling the tree of PID %d",
		[MAPS] = "profiling the tree of PID %d with its mappings",
		[LATENCY] = "profiling the tree of PID %d with its fault latency",
		[MAPS | LATENCY] = "profiling the tree of PID %d with its mappings and fault latency",
		[PAGES] = "profiling the tree of PID %d with its swapped pages",
		[MAPS | PAGES] = "profiling the tree of PID %d with its mappings and swapped pages",
		[LATENCY | PAGES] =
			"profiling the tree of PID %d with its fault latency and swapped pages",
		[MAPS | LATENCY | PAGES] =
			"profiling the tree of PID %d with its mappings, fault latency and swapped pages",
	},
};

#undef MAPS
#undef LATENCY
#undef PAGES

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

/*
 * Registers one PID or tree with its options ("M", "L", "S" for a tree every time,
 * registered now or before: its line may have gained one since); -ESRCH if
 * its process is gone.
 */
static int register_one(const struct pfprof_config *config, const struct kind *k,
			const struct target *t)
{
	unsigned int options = target_line_options(t);
	int err = target_register(config->status_file, t, 0, options);

	if (!err)
		dlog(LOG_INFO, k->registered[options], (int)target_pid(t));
	else if (err < 0 && err != -ESRCH)
		report_refused(config, k, target_pid(t), options, err);
	return err < 0 ? err : 0;
}

static void drop_dead(const struct pfprof_config *config, const struct kind *k,
		      const pid_t *dead, size_t count)
{
	int err = targetsfile_edit_pids(config->targets_file, k->kind, 0, false, dead, count);

	/* Whole messages, so that each can be found as the man page quotes it. */
	for (size_t i = 0; i < count; i++)
		dlog(LOG_INFO, err ? "PID %d has exited; cannot remove it from %s" :
				     "PID %d has exited; removed it from %s",
		     (int)dead[i], config->targets_file);
	if (err)
		dlog(LOG_ERR, "updating %s: %s", config->targets_file, strerror(-err));
}

/* Registers the targets of k's kind; drops those whose process is gone from the file. */
static void apply_kind(const struct pfprof_config *config, const struct kind *k,
		       const struct target_list *targets)
{
	pid_t *dead = calloc(targets->count ? targets->count : 1, sizeof(*dead));
	size_t nr_dead = 0;

	if (!dead) {
		dlog(LOG_ERR, "out of memory");
		return;
	}
	for (size_t i = 0; i < targets->count; i++) {
		const struct target *t = &targets->targets[i];

		if (t->kind == k->kind && register_one(config, k, t) == -ESRCH)
			dead[nr_dead++] = target_pid(t);
	}
	if (nr_dead)
		drop_dead(config, k, dead, nr_dead);
	free(dead);
}

void registrar_apply(const struct pfprof_config *config, const struct target_list *targets)
{
	/*
	 * Trees first: a tree's root listed alone too is then followed all the
	 * same. A process on several lines is registered once, with the
	 * options of all (target_list_read()).
	 */
	apply_kind(config, &trees, targets);
	apply_kind(config, &processes, targets);
}
