/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pfprofd's state, set up by its start-up (main.c) and run by its event
 * loop (loop.c).
 */
#ifndef PFPROF_DAEMON_H
#define PFPROF_DAEMON_H

#include <stdbool.h>
#include <stdint.h>
#include <systemd/sd-event.h>

#include "groupsync.h"
#include "collector.h"
#include "config.h"
#include "counters.h"
#include "exporter.h"
#include "groupmemory.h"
#include "logwriter.h"
#include "psi.h"
#include "targets.h"

struct daemon {
	sd_event *loop;
	const char *config_path;	/* --config, or NULL for the default */
	struct pfprof_config config;
	struct logwriter *logs[LOG_KINDS];	/* by enum log_kind */
	struct collector collector;
	struct counters counters;	/* fed by the collector, exported by the exporter */
	struct exporter exporter;
	struct target_list targets;	/* the targets file as last read (targetsync.h) */
	struct groups groups;		/* the targets file's cgroups, units and command names */
	struct groupmemory groupmemory;	/* when their cgroups' memory is logged next */
	uint64_t samples_written;	/* sample lines this daemon wrote to the log */
	sd_event_source *retry;		/* armed while lines wait for the disk */
	sd_event_source *samples;	/* the device: off while a batch is gathering */
	sd_event_source *batch;		/* writes a batch once write_interval has passed */
	uint64_t next_write_usec;	/* CLOCK_MONOTONIC: no write before this */
	sd_event_source *status;	/* refreshes the status when no batch did */
	uint64_t next_status_usec;	/* CLOCK_MONOTONIC: the next status refresh */
	sd_event_source *targets_watch;
	int lock_fd;
	int log_error;			/* last error reported, 0 once writing works */
	struct psi_cache psi;		/* memory pressure, read every 2 s at most */
	bool psi_missing;		/* the kernel has no PSI: stop asking */
	bool ready;
};

/* Runs the event loop until SIGTERM or SIGINT, writes what is left; the exit status. */
int daemon_run(struct daemon *d);

#endif /* PFPROF_DAEMON_H */
