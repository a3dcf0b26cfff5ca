/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Keeps the targets file's groups registered with the module: cgroups and
 * units ("C", each by its cgroup's id, a unit's found where systemd put it)
 * and command names ("N"). systemd removes a unit's cgroup when it stops and
 * makes a new one (a new id) when it starts again, so a unit is followed
 * through its restarts: a new cgroup replaces the old ("X", then "C": the
 * module refuses a second cgroup for a target with EBUSY), one stopped is
 * dropped ("X") and picked up when it starts, with no command. A command
 * name needs nothing of the kind: the module matches names itself, at every
 * fork and exec.
 *
 * How soon: the directories the cgroups appear in are watched with inotify
 * (systemd makes a unit's cgroup, then starts its first process in it, so
 * the sync races that process's first milliseconds: the module counts it
 * from its registration); pfprofd's status refresh calls groups_sync()
 * every five seconds too (STATUS_USEC, loop.c), for a unit started in a
 * slice other than the one expected, for events inotify dropped and for a
 * module loaded again (each group is registered again, "EEXIST" when
 * nothing changed). Register latency is measured by the systemd guest test (tests/systemd/run,
 * service_* checks).
 */
#ifndef PFPROF_GROUPSYNC_H
#define PFPROF_GROUPSYNC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <systemd/sd-event.h>

#include "config.h"
#include "targets.h"

struct group_state {
	uint32_t number;
	uint64_t id;		/* the cgroup registered for it; 0: none (always, for a name) */
	bool following;		/* a name: registered */
	bool reported;		/* a problem was logged: not again until it is gone */
	bool dropped;		/* the module has no cgroup for it: no "X" again */
	unsigned int options;	/* TARGETSFILE_OPT_*: "M", "L" accepted for this registration */
	unsigned int options_reported;	/* refused and logged: not again until accepted */
};

struct groups {
	sd_event *loop;
	const struct pfprof_config *config;
	/* The daemon's reading of the targets file: its groups are followed here. */
	const struct target_list *targets;
	struct group_state *states;	/* indexed like *targets; a group's alone is used */
	char **dirs;			/* watched: where their cgroups are or will be */
	sd_event_source **watches;	/* one per dir */
	size_t nr_dirs;
};

/* Follows the groups of *targets, the daemon's reading of the targets file, once synced. */
void groups_start(struct groups *c, sd_event *loop, const struct pfprof_config *config,
		  const struct target_list *targets);

/*
 * Before next, the targets file read again, takes the place of *c->targets:
 * the groups that next no longer has are unregistered, those whose options
 * shrank registered again, the states of the others carried over. The
 * caller then puts next in *c->targets and calls groups_sync(). 0, or
 * -ENOMEM with nothing changed: *c->targets must stay as it is.
 */
int groups_apply(struct groups *c, const struct target_list *next);

/* Checks each group again: a unit started, restarted, stopped; the module reloaded. */
void groups_sync(struct groups *c);

void groups_stop(struct groups *c);

#endif /* PFPROF_GROUPSYNC_H */
