/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pfprofctl heatmap's picture of a heatmap log (log.h): time across,
 * the address space up, with only the mapped ranges on the address axis,
 * end to end: the gaps between them, most of a 64-bit address space, would
 * leave the data a few thin lines. Mappings that touch and have the same
 * name are one band (a library's segments). Each band has rows in
 * proportion to its bytes, but at least 1/HEATMAP_MIN_BAND_SHARE of them
 * and at least one, so that a stack or a library stays visible beside a
 * heap of gigabytes: within a band the axis is linear, across bands it is
 * not. Bands begin and end on whole rows.
 */
#ifndef PFPROF_HEATMAPDATA_H
#define PFPROF_HEATMAPDATA_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#define HEATMAP_MIN_BAND_SHARE 50

/* One band of the address axis: [start, end), drawn over rows [row_from, row_to). */
struct heatmap_band {
	uint64_t start, end;
	double row_from, row_to;
	char name[64];		/* the mapping's, "" for anonymous memory */
};

struct heatmap_data {
	pid_t pid;
	char comm[32];
	uint64_t sample_us, aggr_us;
	struct heatmap_band *bands;	/* by address */
	size_t nr_bands;
	uint64_t mapped;		/* the bands' bytes */
	uint64_t *times;		/* the snapshots' wall_ns, in order */
	size_t nr_times;
	size_t rows;			/* of the axis */
	/*
	 * cells[t * rows + r]: snapshot t's accesses per aggregation over
	 * row r, weighted by the bytes each region has there; -1 where no
	 * region covered it.
	 */
	double *cells;
};

/*
 * Reads a heatmap log into d, with rows rows. 0; -EPROTO (a line is
 * malformed, or it is not a heatmap log: *line_no says which line); -ENODATA
 * (no snapshot or no mapping in it); or -errno.
 */
int heatmap_data_read(FILE *log, size_t rows, struct heatmap_data *d, unsigned long *line_no);
void heatmap_data_free(struct heatmap_data *d);

/* The row of the axis that holds addr, or -1 if no band does. */
long heatmap_data_row(const struct heatmap_data *d, uint64_t addr);

/* A band's name on the address axis: the file's base name, or what kind of memory. */
const char *heatmap_band_label(const struct heatmap_band *b);

#endif /* PFPROF_HEATMAPDATA_H */
