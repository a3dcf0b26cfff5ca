// SPDX-License-Identifier: GPL-2.0
/*
 * pfprofctl list: the processes the module profiles and what pfprofd's
 * targets file keeps. Processes of a target (a tree, a unit, a cgroup, a command
 * name) are listed beneath it, the others first.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cgroupfs.h"
#include "ctl.h"
#include "ctljson.h"
#include "targetsfile.h"
#include "proccomm.h"
#include "procstatus.h"
#include "targets.h"

enum { OPT_JSON };

/* A target and where its processes are: a tree's root, a cgroup's directory. */
struct listed_target {
	const struct target *target;
	char cgroup[PATH_MAX];	/* "" for a tree, a name, or a unit that is not running */
	size_t members;
};

static void print_process(const char *indent, pid_t pid, const char *state)
{
	char comm[64];

	proccomm_read(pid, comm, sizeof(comm));
	printf("%s%-8d %-16.16s %s\n", indent, (int)pid, comm, state);
}

/* The parent of pid, from /proc; 0 if gone. */
static pid_t parent_of(pid_t pid)
{
	char path[64], *line = NULL;
	const char *close_paren;
	size_t size = 0;
	int ppid = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	f = fopen(path, "re");
	if (!f)
		return 0;
	/* "pid (comm) state ppid ...": comm may hold spaces and parentheses. */
	if (getline(&line, &size, f) > 0 && (close_paren = strrchr(line, ')')))
		sscanf(close_paren + 1, " %*c %d", &ppid);
	free(line);
	fclose(f);
	return ppid;
}

/* Whether pid is root or descends from it, as /proc says now. */
static bool in_tree(pid_t pid, pid_t root)
{
	for (int depth = 0; pid > 1 && depth < 1024; depth++, pid = parent_of(pid))
		if (pid == root)
			return true;
	return false;
}

/* Whether pid's cgroup v2 directory (/proc/PID/cgroup's "0::" line) is dir or below it. */
static bool in_cgroup(pid_t pid, const char *dir)
{
	size_t len = strlen(dir);
	char full[PATH_MAX];

	return !cgroupfs_of_process(pid, full, sizeof(full)) && !strncmp(full, dir, len) &&
	       (full[len] == '\0' || full[len] == '/');
}

static bool has_comm(pid_t pid, const char *name)
{
	char comm[64];

	proccomm_read(pid, comm, sizeof(comm));
	return !strcmp(comm, name);
}

static bool is_member(const struct listed_target *lt, pid_t pid)
{
	switch (lt->target->kind) {
	case TARGET_TREE:
		return in_tree(pid, (pid_t)lt->target->number);
	case TARGET_COMM:
		return has_comm(pid, lt->target->name);
	default:
		return lt->cgroup[0] && in_cgroup(pid, lt->cgroup);
	}
}

/* A unit or cgroup without a cgroup now. */
static bool lacks_cgroup(const struct listed_target *lt)
{
	enum target_kind kind = lt->target->kind;

	return (kind == TARGET_UNIT || kind == TARGET_CGROUP) && !lt->cgroup[0];
}

/* The first target pid belongs to, or NULL. */
static struct listed_target *target_of(struct listed_target *lts, size_t count, pid_t pid)
{
	for (size_t i = 0; i < count; i++)
		if (is_member(&lts[i], pid))
			return &lts[i];
	return NULL;
}

/* The index of pid in list, or -1. */
static ssize_t find_pid(const struct pidlist *list, pid_t pid)
{
	for (size_t i = 0; i < list->count; i++)
		if (list->pids[i] == pid)
			return i;
	return -1;
}

static bool contains(const struct pidlist *list, pid_t pid)
{
	return find_pid(list, pid) >= 0;
}

/* What the targets file keeps with a process or target, by its options, after "kept". */
static const char *kept_with(unsigned int options, char *buf, size_t size)
{
	static const char *const names[TARGETSFILE_NR_OPTS] = { "maps", "latency", "pages" };
	char joined[32];

	snprintf(buf, size, "%s%s", options ? " with " : "",
		 targetsfile_options_list(options, names, joined, sizeof(joined)));
	return buf;
}

/* The processes of one target beneath it; owners[i] is registered->pids[i]'s target. */
static void print_target(const struct listed_target *lt, const struct pidlist *registered,
			 struct listed_target *const *owners)
{
	const struct target *t = lt->target;
	char label[PATH_MAX + 16], state[PATH_MAX + 128], with[48];

	target_format_label(t, label, sizeof(label));
	kept_with(target_line_options(t), with, sizeof(with));
	if (lacks_cgroup(lt))
		snprintf(state, sizeof(state), "kept%s, %s", with,
			 t->kind == TARGET_UNIT ? "not running" : "no such cgroup now");
	else
		snprintf(state, sizeof(state), "kept%s, %zu processes profiled%s%s",
			 with, lt->members,
			 t->kind == TARGET_UNIT ? ", cgroup " : "",
			 t->kind == TARGET_UNIT ? lt->cgroup : "");
	/* A label wider than its column takes a line of its own, so that STATE stays in line. */
	if (strlen(label) > 32)
		printf("%s\n%-32s %s\n", label, "", state);
	else
		printf("%-32s %s\n", label, state);
	for (size_t i = 0; i < registered->count; i++)
		if (owners[i] == lt)
			print_process("  ", registered->pids[i], "profiled");
}

/*
 * The targets the targets file keeps (none if lts is NULL: it could not be
 * read), with where their processes are now, and which one each registered
 * process belongs to (NULL: none), each judged once. NULL without memory.
 */
static struct listed_target **find_owners(const struct target_list *targets,
					  struct listed_target *lts,
					  const struct pidlist *registered)
{
	struct listed_target **owners;

	for (size_t i = 0; lts && i < targets->count; i++) {
		lts[i].target = &targets->targets[i];
		if (!target_cgroup(lts[i].target, lts[i].cgroup, sizeof(lts[i].cgroup)))
			lts[i].cgroup[0] = '\0';
	}
	owners = calloc(registered->count ? registered->count : 1, sizeof(*owners));
	if (!owners)
		return NULL;
	if (!lts)
		return owners;
	for (size_t i = 0; i < registered->count; i++) {
		owners[i] = target_of(lts, targets->count, registered->pids[i]);
		if (owners[i])
			owners[i]->members++;
	}
	return owners;
}

/*
 * A process's state into buf: profiled or not, kept with its options or not
 * ("" if neither). Returns buf.
 */
static const char *state_of(pid_t pid, bool profiled, const struct pidlist *kept, char *buf,
			    size_t size)
{
	ssize_t k = find_pid(kept, pid);

	if (k < 0) {
		snprintf(buf, size, "%s", profiled ? "profiled" : "");
	} else {
		char with[48];

		snprintf(buf, size, profiled ? "profiled, kept%s" : "kept%s, not profiled",
			 kept_with(kept->options[k], with, sizeof(with)));
	}
	return buf;
}

/* What list shows: the processes and their targets, read once. */
struct listing {
	struct pidlist kept, registered;	/* kept: with each PID's options */
	struct target_list targets;
	struct listed_target *lts, **owners;	/* NULL if they could not be had */
};

/*
 * Calls fn on every process the listing shows, each once: the registered
 * ones (with the target each belongs to, or NULL), then those the targets file
 * keeps that are not registered.
 */
static void each_process(const struct listing *l,
			 void (*fn)(const struct listing *l, pid_t pid, bool profiled,
				    const struct listed_target *owner, void *ctx),
			 void *ctx)
{
	for (size_t i = 0; i < l->registered.count; i++)
		fn(l, l->registered.pids[i], true, l->owners ? l->owners[i] : NULL, ctx);
	for (size_t i = 0; i < l->kept.count; i++)
		if (!contains(&l->registered, l->kept.pids[i]))
			fn(l, l->kept.pids[i], false, NULL, ctx);
}

/* One process, as --json lists it, into the array procs. */
static void add_process_json(const struct listing *l, pid_t pid, bool profiled,
			     const struct listed_target *owner, void *procs)
{
	struct json_object *proc = ctl_json_object();
	char comm[64], label[PATH_MAX + 16];
	ssize_t k = find_pid(&l->kept, pid);
	unsigned int options = k >= 0 ? l->kept.options[k] : 0;

	proccomm_read(pid, comm, sizeof(comm));
	ctl_json_add_int(proc, "pid", pid);
	ctl_json_add_string(proc, "comm", comm);
	ctl_json_add_bool(proc, "profiled", profiled);
	ctl_json_add_bool(proc, "kept", k >= 0);
	ctl_json_add_bool(proc, "maps", options & TARGETSFILE_OPT_MAPS);
	ctl_json_add_bool(proc, "latency", options & TARGETSFILE_OPT_LATENCY);
	ctl_json_add_bool(proc, "pages", options & TARGETSFILE_OPT_PAGES);
	ctl_json_add_string(proc, "target", owner ?
			    target_format_label(owner->target, label, sizeof(label)) : NULL);
	ctl_json_add(procs, NULL, proc);
}

static struct json_object *target_json(const struct listed_target *lt)
{
	struct json_object *o = ctl_json_object();
	const struct target *t = lt->target;
	char label[PATH_MAX + 16];

	ctl_json_add_string(o, "target", target_format_label(t, label, sizeof(label)));
	ctl_json_add_string(o, "kind", target_kind_word(t->kind));
	ctl_json_add_string(o, "name", t->name);
	ctl_json_add_uint(o, "number", t->number);
	ctl_json_add_bool(o, "maps", t->options & TARGETSFILE_OPT_MAPS);
	ctl_json_add_bool(o, "latency", t->options & TARGETSFILE_OPT_LATENCY);
	ctl_json_add_bool(o, "pages", t->options & TARGETSFILE_OPT_PAGES);
	ctl_json_add_string(o, "cgroup", lt->cgroup[0] ? lt->cgroup : NULL);
	ctl_json_add_bool(o, "present", !lacks_cgroup(lt));
	ctl_json_add_uint(o, "processes", lt->members);
	return o;
}

/* The listing as one JSON object: "processes", then "targets". */
static bool print_json(const struct listing *l)
{
	struct json_object *o = ctl_json_object(), *procs = ctl_json_array();
	struct json_object *targets = ctl_json_array();

	each_process(l, add_process_json, procs);
	for (size_t i = 0; l->lts && i < l->targets.count; i++)
		ctl_json_add(targets, NULL, target_json(&l->lts[i]));
	ctl_json_add(o, "processes", procs);
	ctl_json_add(o, "targets", targets);
	return ctl_json_print(o);
}

/* A process's row of the table; those of a target are printed beneath it instead. */
static void print_process_row(const struct listing *l, pid_t pid, bool profiled,
			      const struct listed_target *owner, void *ctx)
{
	(void)ctx;
	if (!owner) {
		char state[64];

		print_process("", pid, state_of(pid, profiled, &l->kept, state, sizeof(state)));
	}
}

/* The listing as a table: processes without a target, then each target and its own. */
static void print_text(const struct listing *l)
{
	printf("%-8s %-16s %s\n", "PID", "COMMAND", "STATE");
	each_process(l, print_process_row, NULL);
	if (l->lts && l->owners && l->targets.count) {
		printf("\n%-32s %s\n", "TARGET", "STATE");
		for (size_t i = 0; i < l->targets.count; i++)
			print_target(&l->lts[i], &l->registered, l->owners);
	}
}

/* What the targets file keeps, into l (already holding what is registered): 0 or -errno. */
static int read_kept(const struct ctl *ctl, struct listing *l)
{
	int err = target_list_read(ctl->config.targets_file, &l->targets, NULL, NULL);

	if (!err)
		err = target_list_take_pids(&l->targets, &l->kept);
	if (!err && !(l->lts = calloc(l->targets.count ? l->targets.count : 1, sizeof(*l->lts))))
		err = -ENOMEM;
	l->owners = find_owners(&l->targets, l->lts, &l->registered);
	if (!err && !l->owners)
		err = -ENOMEM;
	return err;
}

static void listing_free(struct listing *l)
{
	free(l->owners);
	free(l->lts);
	target_list_free(&l->targets);
	pidlist_free(&l->kept);
	pidlist_free(&l->registered);
}

static int list(struct ctl *ctl, const struct ctl_call *call)
{
	struct listing l = { 0 };
	bool printed = true;
	int err;

	err = procstatus_list(ctl->config.status_file, &l.registered);
	/* Without the module nothing is profiled: list what the targets file keeps. */
	if (err && !ctl_module_missing_note(ctl, err, "showing what %s keeps",
					    ctl->config.targets_file))
		return ctl_module_error(err, ctl->config.status_file);
	err = read_kept(ctl, &l);
	if (err)
		ctl_error(err, "reading %s", ctl->config.targets_file);
	if (call->option[OPT_JSON].set)
		printed = print_json(&l);
	else
		print_text(&l);
	listing_free(&l);
	return err || !printed ? PFPROF_EXIT_FAILED : PFPROF_EXIT_OK;
}

const struct ctl_command ctl_list_command = {
	.name = "list", .operands = "",
	.summary = "List the profiled processes and the kept targets",
	.details = "Columns: PID, command name, and whether the module profiles it now and\n"
		   "whether pfprofd's targets file keeps it across restarts (with maps,\n"
		   "with latency: added with --maps, --latency). Then each target the\n"
		   "targets file keeps (tree:ROOT, unit:NAME, cgroup:PATH, comm:NAME) with how\n"
		   "many of its processes are profiled (with maps, latency: as added), and\n"
		   "those processes beneath it. --json: one object, its fields in\n"
		   "pfprofctl(8).\n",
	.options = {
		[OPT_JSON] = { "json", 0, CTL_STRING, NULL, "the list as JSON" },
	},
	.run = list,
};
