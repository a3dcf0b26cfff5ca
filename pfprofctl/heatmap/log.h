/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The heatmap log, written and read: pfprofctl heatmap --record writes it,
 * the drawing and the watching read it (docs/design/damon.md):
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

#include <stdbool.h>
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

/* One line of a heatmap log, read: what kind, and its fields. */
struct heatmap_log_line {
	enum { HEATMAP_LOG_MAGIC_LINE, HEATMAP_LOG_HEADER, HEATMAP_LOG_COMMENT, HEATMAP_LOG_MAP,
	       HEATMAP_LOG_REGION } kind;
	/* The header's. */
	pid_t pid;
	const char *comm;		/* in the line, comm_len bytes */
	int comm_len;
	uint64_t sample_us, aggr_us;
	/* A map's or a region's: [start, end), start < end. */
	uint64_t wall_ns, start, end;
	const char *name;		/* a map's, in the line, name_len bytes */
	int name_len;
	unsigned int accesses;		/* a region's nr_accesses */
};

/* Line line_no (from 1, the magic) of a log into *out; false if it is none of a heatmap log's. */
bool heatmap_log_read_line(const char *line, unsigned long line_no, struct heatmap_log_line *out);

#endif /* PFPROF_HEATMAPLOG_H */
