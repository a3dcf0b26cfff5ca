/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pfprofd's counters (counters.h) in the Prometheus text exposition format,
 * as a file for node_exporter's textfile collector: PROMFILE_NAME in its
 * directory, replaced atomically (atomicfile.h; node_exporter ignores the
 * temporary file, whose name does not end in ".prom"), readable by everyone.
 * Per-process series for the processes counters_select_series() marked,
 * per-target series for every target counted; both labelled with the
 * target's target_label() from the list read from the targets file. The
 * waits (stalls.h) of a process or target only once one was measured, a
 * target's histograms of fault durations (latency.h) only once timed; the
 * memory pressure of the list's units and cgroups read from their cgroups
 * at each rendering, for those that have one and PSI. The waits and
 * durations are promwaits.c's, the format's pieces promtext.c's.
 */
#ifndef PFPROF_PROMFILE_H
#define PFPROF_PROMFILE_H

#include <stdio.h>

#include "counters.h"
#include "psi.h"

#define PROMFILE_NAME "pfprof.prom"

/*
 * Writes the metrics to out; targets: the targets file's, for the labels; psi:
 * memory pressure, NULL if unknown. 0 or -errno.
 */
int promfile_render(FILE *out, struct counters *counts, const struct target_list *targets,
		    const struct psi_memory *psi);

/*
 * Replaces dir/PROMFILE_NAME with the metrics. 0 or -errno: -ENOENT when dir
 * does not exist.
 */
int promfile_write(const char *dir, struct counters *counts, const struct target_list *targets,
		   const struct psi_memory *psi);

#endif /* PFPROF_PROMFILE_H */
