/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pfprofd's state, shared by its start-up (main.c) and its event loop
 * (loop.c).
 */
#ifndef PFPROF_DAEMON_H
#define PFPROF_DAEMON_H

#include <stdbool.h>
#include <stdint.h>
#include <systemd/sd-event.h>

#include "collector.h"
#include "config.h"
#include "logwriter.h"
#include "metrics.h"

struct daemon {
	sd_event *loop;
	const char *config_path;
	struct pfprof_config config;
	struct logwriter *log;		/* the samples log */
	struct logwriter *procs_log;	/* the per-process log */
	struct collector collector;
	sd_event_source *retry;		/* armed while lines wait for the disk */
	sd_event_source *samples;	/* the device: off while a batch is gathering */
	sd_event_source *batch;		/* writes a batch once write_interval has passed */
	uint64_t next_write_usec;	/* CLOCK_MONOTONIC: no write before this */
	sd_event_source *pid_watch;
	int lock_fd;
	int log_error;			/* last error reported, 0 once writing works */
	struct psi_cache psi;		/* memory pressure, read once a second at most */
	bool psi_missing;		/* the kernel has no PSI: stop asking */
	bool ready;
	struct metrics metrics;		/* for Prometheus, fed by the collector */
	sd_event_source *metrics_timer;	/* writes them every prometheus_interval */
	int metrics_error;		/* last error reported, 0 once writing works */
};

/* Reads the config; an explicit --config that cannot be read is an error. 0 or -errno. */
int daemon_load_config(struct daemon *d);
/* A writer of one log with the config's directory and rotation; NULL with errno. */
struct logwriter *daemon_new_log(const struct pfprof_config *config, enum log_kind kind);

/* If prometheus_dir exists: picks up the counters of the last metrics file and counts on. */
void exporter_init(struct daemon *d);
/* Adds the timer that writes the metrics; 0 or -errno. */
int exporter_add_timer(struct daemon *d);
/* If prometheus_dir exists: selects the processes with series and writes the file. */
void exporter_write(struct daemon *d);

/* Runs the event loop until SIGTERM or SIGINT, writes what is left; the exit status. */
int daemon_run(struct daemon *d);

#endif /* PFPROF_DAEMON_H */
