/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Targets: what pfprofd's targets file names besides single processes (a
 * process tree, a cgroup v2 directory, a systemd unit, a command name), and
 * the number that the module's records carry for each (struct
 * mp3_proc_record's target).
 *
 * A tree's number is its root's PID (below 2^22, the kernel's PID_MAX_LIMIT;
 * `pfprofctl run` numbers its command's tree so too). A cgroup's, a unit's or
 * a command name's number is a hash of its kind and name in [2^30, 2^31):
 * every reader of the targets file finds the same number without asking
 * pfprofd, and two names that hash alike are refused when the second is
 * added (target_list_collision()).
 */
#ifndef PFPROF_TARGETS_H
#define PFPROF_TARGETS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "targetsfile.h"

/* What the kernel keeps of a command name: TASK_COMM_LEN - 1 bytes. */
#define TARGET_COMM_MAX 15

/* Numbers from here on are cgroups', units' and command names'. */
#define TARGET_NAMED_FIRST 0x40000000U

struct target {
	enum target_kind kind;
	/* A PID or a tree's root PID in decimal, a cgroup's path, a unit's name, a command name. */
	char *name;
	char *user;	/* a command name's, "user=" in its line: its processes only; NULL: anyone's */
	uint32_t number;	/* its records' target; 0 for a PID, whose records have none */
	/* The words before its line: TARGETSFILE_OPT_MAPS, _LATENCY, _PAGES. */
	unsigned int options;
};

struct target_list {
	struct target *targets;
	size_t count;
};

/* The word of a kind in labels and messages: "pid", "tree", "cgroup", "unit", "comm". */
const char *target_kind_word(enum target_kind kind);

/* The options of t's line: TARGETSFILE_OPT_*. */
unsigned int target_line_options(const struct target *t);

/*
 * A tree's number is its root's PID (name in decimal); the others' a hash of
 * the kind and name, and of a command name's user (NULL: none).
 */
uint32_t target_number(enum target_kind kind, const char *name, const char *user);

/*
 * Every target the targets file names, in file order, processes (TARGET_PID)
 * among them: the one reader of the file's targets. One named on several
 * lines of its kind is listed once, with the options of all ("maps" from
 * one, "latency" from another). Bad lines go to report if not NULL. A
 * missing file is an empty list. 0 or -errno.
 */
int target_list_read(const char *targets_file, struct target_list *list,
		     targetsfile_report_fn *report, void *ctx);

/*
 * Moves the list's processes (TARGET_PID) into pids, with their options,
 * leaving the other targets in order. 0 or -ENOMEM (the list unchanged).
 */
int target_list_take_pids(struct target_list *list, struct pidlist *pids);

/* The PID of a process's or tree's target; 0 for the other kinds. */
pid_t target_pid(const struct target *t);
void target_list_free(struct target_list *list);

/* The target of the list with that number (a PID's is none), or NULL. */
const struct target *target_list_find(const struct target_list *list, uint32_t number);

/* Another target of the list whose number is that of (kind, name, user), or NULL. */
const struct target *target_list_collision(const struct target_list *list,
					   enum target_kind kind, const char *name, const char *user);

/*
 * The uid of a command name's user: a login name's, or a number; (uid_t)-1
 * for a target of anyone's processes. -ENOENT for a user that is neither.
 */
int target_user_uid(const struct target *t, uid_t *uid);

/*
 * Registers t with the module, then options (of t's, TARGETSFILE_OPT_*; 0:
 * none): "R <pid> <options>" for a process; "T" a tree, "C" a cgroup's or
 * unit's cgroup (cgroup_id: the one it has now, which the caller found), "N"
 * or "P" a command name, then "M" and "L", whether the target was new or
 * not. 0 when the module took t now, 1 when it had it already, or -errno:
 * the registration's (-ESRCH: a process gone, or a command name's user
 * that does not exist), else the first option's refusal (targetregister.c).
 */
int target_register(const char *status_file, const struct target *t, uint64_t cgroup_id,
		    unsigned int options);

/*
 * The cgroup a unit's or cgroup's target has now, into path: a unit's where
 * systemd put it (cgroupfs.h), a cgroup's if its directory exists. False if
 * it has none (a unit that is not running, a command name).
 */
bool target_cgroup(const struct target *t, char *path, size_t size);

/*
 * Whether name can be a command name's target: 1 to TARGET_COMM_MAX printable
 * bytes, no white space nor '#' (a targets file value is one word).
 */
bool target_comm_valid(const char *name);

/*
 * A record's target for people and labels: "unit:NAME", "cgroup:PATH",
 * "comm:NAME", "comm:NAME@USER" or "tree:PID". A number the list does not hold is "tree:N" below
 * TARGET_NAMED_FIRST (a `pfprofctl run` tree, or a tree deleted since), else
 * "target:N". Returns buf.
 */
const char *target_label(const struct target_list *list, uint32_t number, char *buf,
			 size_t size);
/* The same of a target in hand: "unit:NAME" and the like. Returns buf. */
const char *target_format_label(const struct target *t, char *buf, size_t size);

#endif /* PFPROF_TARGETS_H */
