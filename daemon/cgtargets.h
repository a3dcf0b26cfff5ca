/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Keeps the PID file's cgroups and units registered with the module ("C"),
 * each by its cgroup's id, a unit's found where systemd put it. systemd
 * removes a unit's cgroup when it stops and makes a new one (a new id) when
 * it starts again, so a unit is followed through its restarts: a new cgroup
 * replaces the old ("X", then "C": the module refuses a second cgroup for a
 * target with EBUSY), one stopped is dropped ("X") and picked up when it
 * starts, with no command.
 *
 * How soon: the directories the cgroups appear in are watched with inotify
 * (systemd makes a unit's cgroup, then starts its first process in it, so
 * the sync races that process's first milliseconds: the module counts it
 * from its registration); pfprofd's status timer calls cgtargets_sync()
 * every two seconds too, for a unit started in a slice other than the one
 * expected and for events inotify dropped. Register latency is measured by
 * the systemd guest test (tests/systemd/run, service_* checks).
 */
#ifndef PFPROF_CGTARGETS_H
#define PFPROF_CGTARGETS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <systemd/sd-event.h>

#include "config.h"
#include "targets.h"

struct cgtarget_state {
	uint32_t number;
	uint64_t id;		/* the cgroup registered for it; 0: none */
	bool reported;		/* a problem was logged: not again until it is gone */
	bool dropped;		/* the module has no cgroup for it: no "X" again */
};

struct cgtargets {
	sd_event *loop;
	const struct pfprof_config *config;
	struct target_list targets;	/* the PID file's cgroups and units */
	struct cgtarget_state *states;	/* indexed like targets */
	char **dirs;			/* watched: where their cgroups are or will be */
	sd_event_source **watches;	/* one per dir */
	size_t nr_dirs;
};

/* Reads the PID file's cgroups and units and registers them. */
void cgtargets_start(struct cgtargets *c, sd_event *loop, const struct pfprof_config *config);

/* Reads the PID file again: new targets are registered, removed ones unregistered. */
void cgtargets_reload(struct cgtargets *c);

/* Checks each target's cgroup again: started, restarted, stopped. */
void cgtargets_sync(struct cgtargets *c);

void cgtargets_stop(struct cgtargets *c);

#endif /* PFPROF_CGTARGETS_H */
