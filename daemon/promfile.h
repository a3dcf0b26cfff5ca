/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pfprofd's metrics in the Prometheus text exposition format, as a file for
 * node_exporter's textfile collector: PROMFILE_NAME in its directory,
 * replaced atomically (atomicfile.h; node_exporter ignores the temporary
 * file, whose name does not end in ".prom"), readable by everyone. The file also carries, in a comment, what
 * pfprofd needs to go on counting from it after a restart.
 */
#ifndef PFPROF_PROMFILE_H
#define PFPROF_PROMFILE_H

#include <stdio.h>

#include "metrics.h"

#define PROMFILE_NAME "pfprof.prom"

/* Writes the metrics, the processes metrics_select() marked, to out. 0 or -errno. */
int promfile_render(FILE *out, struct metrics *m);

/*
 * Replaces dir/PROMFILE_NAME with the metrics. 0 or -errno: -ENOENT when dir
 * does not exist.
 */
int promfile_write(const char *dir, struct metrics *m);

/*
 * Seeds the counters of an empty *m from dir/PROMFILE_NAME, as pfprofd last
 * wrote it; lines it does not know are skipped. 0, or -errno (-ENOENT: no
 * file, nothing to go on from).
 */
int promfile_seed(const char *dir, struct metrics *m);

#endif /* PFPROF_PROMFILE_H */
