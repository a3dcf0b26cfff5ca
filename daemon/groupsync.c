// SPDX-License-Identifier: GPL-2.0
#include "groupsync.h"

#include <errno.h>
#include <libgen.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>

#include "cgroupfs.h"
#include "daemon_log.h"
#include "procstatus.h"

/* Where a target's cgroup is now, if it has one. */
struct place {
	char path[PATH_MAX];
	uint64_t id;		/* 0: none now */
	char dir[PATH_MAX];	/* to watch: where it is or will be */
};

static const char *word(const struct target *t)
{
	return target_kind_word(t->kind);
}

/* Whether t is a group: a cgroup, a unit or a command name, not a process or a tree. */
static bool is_group(const struct target *t)
{
	return t->kind == TARGET_CGROUP || t->kind == TARGET_UNIT || t->kind == TARGET_COMM;
}

/* Whether t is the first group of list with its number; reports the others. */
static bool first_of_number(const struct target_list *list, const struct target *t)
{
	const struct target *first = target_list_find(list, t->number);

	if (first != t)
		dlog(LOG_ERR, "%s %s has the number of %s %s (a hash collision): ignored; "
		     "profile one of them by another name (its cgroup path)",
		     word(t), t->name, word(first), first->name);
	return first == t;
}

/* Where t's cgroup appears: a unit's in its slice, a cgroup's in its parent. */
static int parent_dir(const struct target *t, char *dir, size_t size)
{
	if (t->kind == TARGET_UNIT)
		return cgroupfs_unit_parent(CGROUPFS_ROOT, t->name, dir, size);
	snprintf(dir, size, "%s", t->name);
	dirname(dir);
	return 0;
}

/* Where t's cgroup is; false (reported once, through *reported) if t cannot have one. */
static bool locate(const struct target *t, struct place *p, bool *reported)
{
	const char *why = NULL;
	int err = t->kind == TARGET_UNIT ? cgroupfs_check_unit_name(t->name, &why) :
					   cgroupfs_check_path(CGROUPFS_ROOT, t->name, &why);

	p->id = 0;
	/* A cgroup may be made later: it is watched for. */
	if (err == -ENOENT && t->kind == TARGET_CGROUP)
		err = 0;
	if (!err)
		err = parent_dir(t, p->dir, sizeof(p->dir));
	if (!err && target_cgroup(t, p->path, sizeof(p->path))) {
		err = cgroupfs_id(p->path, &p->id);
		/* Gone since: it has no cgroup now. */
		if (err == -ENOENT)
			err = 0;
		why = "not a cgroup v2 directory";
		snprintf(p->dir, sizeof(p->dir), "%s", p->path);
		dirname(p->dir);
	} else if (!err) {
		p->path[0] = '\0';
	}
	if (err && !*reported)
		dlog(LOG_ERR, "cannot profile %s %s: %s%s%s", word(t), t->name,
		     why ? why : "", why ? ": " : "", strerror(-err));
	*reported |= err != 0;
	return !err;
}

/* How each option's command is logged: whole messages, as the man page quotes them. */
static const struct {
	unsigned int option;
	const char *accepted;	/* the target's kind and name */
	const char *refused;	/* the same, the status file, the error and why */
} option_messages[] = {
	{ TARGETSFILE_OPT_MAPS, "placing the faults of %s %s in their mappings",
	  "cannot place the faults of %s %s with %s: %s%s" },
	{ TARGETSFILE_OPT_LATENCY, "timing the faults of %s %s",
	  "cannot time the faults of %s %s with %s: %s%s" },
	{ TARGETSFILE_OPT_PAGES, "tracing the swapped pages of %s %s",
	  "cannot trace the swapped pages of %s %s with %s: %s%s" },
};

/* Why the module may have refused an option's command, for its message. */
static const char *refusal_hint(int err)
{
	if (err == -EINVAL)
		return " (the module is older than pfprofd)";
	if (err == -EPERM)
		return " (an administrator's: pfprofd runs as another user)";
	if (err == -EOPNOTSUPP)
		return " (the kernel has no memory cgroups)";
	return "";
}

/*
 * The target's options: "M", "L", "S" once per registration (registered is 0
 * when the module took the target just now, a new cgroup or the module
 * loaded again).
 */
static void send_options(struct groups *c, const struct target *t, struct group_state *st,
			 int registered)
{
	for (size_t i = 0; i < sizeof(option_messages) / sizeof(option_messages[0]); i++) {
		unsigned int o = option_messages[i].option;
		int err;

		if (!(target_line_options(t) & o) || ((st->options & o) && registered))
			continue;
		err = procstatus_target_option(c->config->status_file, o, t->number, t->kind);
		if (err && !(st->options_reported & o))
			dlog(LOG_ERR, option_messages[i].refused, word(t), t->name,
			     c->config->status_file, strerror(-err), refusal_hint(err));
		else if (!err && !(st->options & o))
			dlog(LOG_INFO, option_messages[i].accepted, word(t), t->name);
		st->options_reported = err ? st->options_reported | o : st->options_reported & ~o;
		st->options = err ? st->options & ~o : st->options | o;
	}
}

static void follow(struct groups *c, const struct target *t, struct group_state *st,
		   const struct place *p)
{
	int err = target_register(c->config->status_file, t, p->id, 0);

	if (err < 0) {
		if (!st->reported)
			dlog(LOG_ERR, "cannot profile %s %s (cgroup %s) with %s: %s", word(t),
			     t->name, p->path, c->config->status_file, strerror(-err));
		st->reported = true;
		return;
	}
	if (st->id != p->id && st->id)
		dlog(LOG_INFO, "%s %s restarted: profiling its new cgroup %s", word(t), t->name,
		     p->path);
	else if (st->id != p->id)
		dlog(LOG_INFO, "profiling %s %s (cgroup %s)", word(t), t->name, p->path);
	st->id = p->id;
	st->reported = false;
	st->dropped = false;
	send_options(c, t, st, err);
}

/*
 * The target has no cgroup now: drop the old one, if the module still has it
 * (from before a restart of pfprofd, too), once.
 */
static void drop(const struct groups *c, const struct target *t, struct group_state *st)
{
	int err;

	if (st->dropped)
		return;
	err = procstatus_untarget(c->config->status_file, t->number);
	if (!err || st->id)
		dlog(LOG_INFO, "%s %s has no cgroup now; profiling it again when %s appears",
		     word(t), t->name, t->kind == TARGET_UNIT ? "it starts and its cgroup" : t->name);
	else if (t->kind == TARGET_UNIT)
		dlog(LOG_INFO, "unit %s is not running; profiling it when it starts", t->name);
	else
		dlog(LOG_INFO, "cgroup %s does not exist; profiling it when it appears", t->name);
	st->id = 0;
	st->dropped = true;
}

static bool has_dir(char **dirs, size_t count, const char *dir)
{
	for (size_t i = 0; i < count; i++)
		if (!strcmp(dirs[i], dir))
			return true;
	return false;
}

static void free_dirs(char **dirs, size_t count)
{
	for (size_t i = 0; i < count; i++)
		free(dirs[i]);
	free(dirs);
}

static int on_dir_event(sd_event_source *s, const struct inotify_event *ev, void *userdata)
{
	(void)s;
	(void)ev;
	groups_sync(userdata);
	return 0;
}

static void unwatch(struct groups *c)
{
	for (size_t i = 0; i < c->nr_dirs; i++)
		sd_event_source_disable_unref(c->watches[i]);
	free(c->watches);
	free_dirs(c->dirs, c->nr_dirs);
	c->watches = NULL;
	c->dirs = NULL;
	c->nr_dirs = 0;
}

static bool same_dirs(const struct groups *c, char **dirs, size_t count)
{
	if (count != c->nr_dirs)
		return false;
	for (size_t i = 0; i < count; i++)
		if (!has_dir(c->dirs, c->nr_dirs, dirs[i]))
			return false;
	return true;
}

/* Watches dirs (taking them) instead of the directories watched so far. */
static void watch(struct groups *c, char **dirs, size_t count)
{
	if (same_dirs(c, dirs, count)) {
		free_dirs(dirs, count);
		return;
	}
	unwatch(c);
	c->watches = calloc(count ? count : 1, sizeof(*c->watches));
	if (!c->watches) {
		dlog(LOG_WARNING, "cannot watch cgroups: out of memory; checking every few seconds");
		free_dirs(dirs, count);
		return;
	}
	c->dirs = dirs;
	c->nr_dirs = count;
	for (size_t i = 0; i < count; i++) {
		int err = sd_event_add_inotify(c->loop, &c->watches[i], dirs[i],
					       IN_CREATE | IN_DELETE | IN_MOVED_TO, on_dir_event, c);

		/* A slice that does not exist yet is found by the status timer's syncs. */
		if (err < 0 && err != -ENOENT)
			dlog(LOG_WARNING, "cannot watch %s: %s; checking it every few seconds",
			     dirs[i], strerror(-err));
	}
}

/* A command name: registered until it is right, reported once if it cannot be. */
static void follow_comm(struct groups *c, const struct target *t, struct group_state *st)
{
	/* "postgres", or "postgres of user postgres" */
	char name[TARGET_COMM_MAX + TARGETSFILE_USER_MAX + 16];
	int err = target_comm_valid(t->name) ? 0 : -EINVAL;

	snprintf(name, sizeof(name), "%s%s%s", t->name, t->user ? " of user " : "",
		 t->user ? t->user : "");
	if (!err)
		err = target_register(c->config->status_file, t, 0, 0);
	if (err < 0 && !st->reported)
		dlog(LOG_ERR, "cannot profile comm %s with %s: %s%s", name,
		     c->config->status_file, err == -ESRCH ? "no such user" : strerror(-err),
		     err == -EINVAL ? " (a name is 1 to 15 bytes, no white space; "
				      "or the module is older than pfprofd)" : "");
	else if (err >= 0 && !st->following)
		dlog(LOG_INFO, "profiling comm %s: every process of that name", name);
	st->reported = err < 0;
	st->following = err >= 0;
	if (err >= 0)
		send_options(c, t, st, err);
}

/* Registers a cgroup's or unit's cgroup, or drops it; false if it cannot have one. */
static bool sync_cgroup(struct groups *c, const struct target *t, struct group_state *st,
			struct place *p)
{
	if (!locate(t, p, &st->reported))
		return false;
	if (p->id)
		follow(c, t, st, p);
	else
		drop(c, t, st);
	return true;
}

void groups_sync(struct groups *c)
{
	const struct target_list *list = c->targets;
	char **dirs = calloc(list->count ? list->count : 1, sizeof(*dirs));
	size_t nr_dirs = 0;
	struct place p;

	for (size_t i = 0; i < list->count; i++) {
		const struct target *t = &list->targets[i];

		/* groups_apply() gave a state only to the groups it follows. */
		if (!c->states[i].number)
			continue;
		if (t->kind == TARGET_COMM) {
			follow_comm(c, t, &c->states[i]);
			continue;
		}
		if (!sync_cgroup(c, t, &c->states[i], &p))
			continue;
		if (dirs && !has_dir(dirs, nr_dirs, p.dir) && (dirs[nr_dirs] = strdup(p.dir)))
			nr_dirs++;
	}
	if (dirs)
		watch(c, dirs, nr_dirs);
}

/* The state of number in the table of *c->targets, to carry over; NULL if it is new. */
static const struct group_state *old_state(const struct groups *c, uint32_t number)
{
	for (size_t i = 0; i < c->targets->count; i++)
		if (is_group(&c->targets->targets[i]) && c->states[i].number == number)
			return &c->states[i];
	return NULL;
}

/* Unregisters the groups of *c->targets that next no longer has. */
static void drop_removed(struct groups *c, const struct target_list *next)
{
	for (size_t i = 0; i < c->targets->count; i++) {
		const struct target *t = &c->targets->targets[i];

		if (!is_group(t) || target_list_find(next, t->number))
			continue;
		procstatus_untarget(c->config->status_file, t->number);
		dlog(LOG_INFO, "no longer profiling %s %s: not in %s", word(t), t->name,
		     c->config->targets_file);
	}
}

int groups_apply(struct groups *c, const struct target_list *next)
{
	struct group_state *states = calloc(next->count ? next->count : 1, sizeof(*states));

	if (!states)
		return -ENOMEM;
	for (size_t i = 0; i < next->count; i++) {
		const struct target *t = &next->targets[i];
		const struct group_state *old;

		if (!is_group(t) || !first_of_number(next, t))
			continue;
		old = old_state(c, t->number);
		states[i] = old ? *old : (struct group_state){ .number = t->number };
		/* The module keeps "M", "L" and "S" until the target goes: registered again without. */
		if (old && (old->options & ~target_line_options(t))) {
			procstatus_untarget(c->config->status_file, t->number);
			states[i] = (struct group_state){ .number = t->number };
		}
	}
	drop_removed(c, next);
	free(c->states);
	c->states = states;
	return 0;
}

void groups_start(struct groups *c, sd_event *loop, const struct pfprof_config *config,
		  const struct target_list *targets)
{
	*c = (struct groups){ .loop = loop, .config = config, .targets = targets };
}

void groups_stop(struct groups *c)
{
	unwatch(c);
	free(c->states);
	c->states = NULL;
}
