/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The heatmap log that pfprofctl heatmap --record writes (docs/damon.md):
 * DAMON's snapshots of one process, a tab-separated line per region, and
 * the process's mappings each time they change, so that a plot can name
 * the address ranges after the process is gone:
 *
 *   # pfprof heatmap log 1
 *   # pid 1234 comm postgres sample_us 5000 aggr_us 100000
 *   map	<wall_ns>	<start>	<end>	<name>
 *   region	<wall_ns>	<start>	<end>	<nr_accesses>	<age>
 *
 * Addresses in hexadecimal as /proc/PID/maps has them; wall_ns is
 * CLOCK_REALTIME in nanoseconds, as in pfprofd's logs; a map line's name is
 * the maps line's last field, empty for an anonymous mapping. The map lines
 * of one wall_ns are the whole set of mappings then.
 */
#ifndef PFPROF_HEATMAPLOG_H
#define PFPROF_HEATMAPLOG_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include "damon.h"

#define HEATMAP_LOG_MAGIC "# pfprof heatmap log 1"

/* The two header lines. 0 or -errno, as the others. */
int heatmap_log_header(FILE *f, pid_t pid, const char *comm, const struct damon_attrs *attrs);

/* A snapshot's regions, a line each. */
int heatmap_log_regions(FILE *f, uint64_t wall_ns, const struct damon_region *regions,
			size_t count);

/* A map line for each line of maps_text (what /proc/PID/maps held). */
int heatmap_log_maps(FILE *f, uint64_t wall_ns, const char *maps_text);

#endif /* PFPROF_HEATMAPLOG_H */
