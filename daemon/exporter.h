/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pfprofd's Prometheus export: every prometheus_interval, its counters go to
 * node_exporter's textfile directory (promfile.h), with series for up to
 * prometheus_max_processes of the registered processes and for every
 * target, labelled from the daemon's reading of the targets file, and are
 * saved in state_dir (counterfile.h), from which the next pfprofd counts on. While
 * prometheus_dir is empty or is no directory nothing is written; it is
 * looked for again every interval. (Under pfprofd.service a directory that
 * appears later is still read-only for pfprofd: the unit makes it writable
 * at start.)
 */
#ifndef PFPROF_EXPORTER_H
#define PFPROF_EXPORTER_H

#include <systemd/sd-event.h>

#include "config.h"
#include "counters.h"
#include "psi.h"
#include "targets.h"

struct exporter {
	const struct pfprof_config *config;	/* the daemon's, as reloads change it */
	struct counters *counters;		/* what the collector counts */
	const struct psi_cache *psi;		/* the loop's readings of memory pressure */
	const struct target_list *targets;	/* the loop's reading of the targets file */
	sd_event_source *timer;
	int error;		/* last error of the metrics file reported; 0: it works */
	int save_error;		/* the same for the saved counters */
};

/*
 * Counts on from the counters saved in state_dir and adds the timer that
 * writes the metrics to loop. 0 or -errno.
 */
int exporter_start(struct exporter *x, sd_event *loop, const struct pfprof_config *config,
		   struct counters *counters, const struct psi_cache *psi,
		   const struct target_list *targets);

/* Writes the metrics and saves the counters a last time, on disk, and stops the timer. */
void exporter_stop(struct exporter *x);

#endif /* PFPROF_EXPORTER_H */
