// SPDX-License-Identifier: GPL-2.0
#include "data.h"

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "growarray.h"
#include "log.h"
#include "printable.h"
#include "sorted.h"

/* What the first reading collects: every mapping named, every snapshot's time. */
struct collected {
	struct heatmap_band *maps;
	size_t nr_maps, maps_cap, times_cap;
};

static int add_map(struct collected *c, const struct heatmap_log_line *l)
{
	struct heatmap_band *grown = grow_array(c->maps, &c->maps_cap, c->nr_maps, sizeof(*grown),
						64);

	if (!grown)
		return -ENOMEM;
	c->maps = grown;
	grown[c->nr_maps] = (struct heatmap_band){ .start = l->start, .end = l->end };
	snprintf(grown[c->nr_maps].name, sizeof(grown->name), "%.*s", l->name_len, l->name);
	printable(grown[c->nr_maps].name);
	c->nr_maps++;
	return 0;
}

static int add_time(struct heatmap_data *d, struct collected *c, uint64_t ns)
{
	uint64_t *grown;

	if (d->nr_times && d->times[d->nr_times - 1] == ns)
		return 0;
	if (d->nr_times && d->times[d->nr_times - 1] > ns)
		return -EPROTO;
	grown = grow_array(d->times, &c->times_cap, d->nr_times, sizeof(*grown), 64);
	if (!grown)
		return -ENOMEM;
	d->times = grown;
	grown[d->nr_times++] = ns;
	return 0;
}

static void read_header(struct heatmap_data *d, const struct heatmap_log_line *l)
{
	d->pid = l->pid;
	snprintf(d->comm, sizeof(d->comm), "%.*s", l->comm_len, l->comm);
	printable(d->comm);
	d->sample_us = l->sample_us;
	d->aggr_us = l->aggr_us;
}

/* The first reading: the header, the mappings and the snapshots' times. */
static int collect(FILE *log, struct heatmap_data *d, struct collected *c, unsigned long *line_no)
{
	char *line = NULL;
	size_t size = 0;
	int err = 0;

	*line_no = 0;
	while (!err && getline(&line, &size, log) >= 0) {
		struct heatmap_log_line l;

		if (!heatmap_log_read_line(line, ++*line_no, &l))
			err = -EPROTO;
		else if (l.kind == HEATMAP_LOG_HEADER)
			read_header(d, &l);
		else if (l.kind == HEATMAP_LOG_MAP)
			err = add_map(c, &l);
		else if (l.kind == HEATMAP_LOG_REGION)
			err = add_time(d, c, l.wall_ns);
	}
	free(line);
	if (!err && ferror(log))
		err = -EIO;
	if (!err && (!c->nr_maps || !d->nr_times))
		err = -ENODATA;
	return err;
}

static int compare_maps(const void *a, const void *b)
{
	const struct heatmap_band *x = a, *y = b;

	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return x->end < y->end ? -1 : x->end > y->end;
}

/* row, >= 0, to the nearest whole row (no libm for round()). */
static double nearest_row(double row)
{
	return (double)(unsigned long)(row + 0.5);
}

/*
 * The bands' rows: in proportion to their bytes, but at least the minimum;
 * the bands raised to it take their rows from the others, which may then
 * fall below it in turn. Their borders are whole rows, so that no row of
 * a terminal's few mixes two bands.
 */
static void share_rows(struct heatmap_data *d)
{
	const double least = d->rows < HEATMAP_MIN_BAND_SHARE ? 1 :
			     (double)d->rows / HEATMAP_MIN_BAND_SHARE;
	double *rows = calloc(d->nr_bands, sizeof(*rows)), row = 0;
	bool changed = true;

	while (rows && changed) {
		double free_rows = (double)d->rows;
		uint64_t free_bytes = 0;

		changed = false;
		for (size_t i = 0; i < d->nr_bands; i++) {
			if (rows[i] == least)
				free_rows -= least;
			else
				free_bytes += d->bands[i].end - d->bands[i].start;
		}
		for (size_t i = 0; i < d->nr_bands && free_bytes; i++) {
			if (rows[i] == least)
				continue;
			rows[i] = free_rows * (double)(d->bands[i].end - d->bands[i].start) /
				  (double)free_bytes;
			if (rows[i] < least && least * d->nr_bands <= d->rows) {
				rows[i] = least;
				changed = true;
			}
		}
	}
	for (size_t i = 0; i < d->nr_bands; i++) {
		d->bands[i].row_from = nearest_row(row);
		row += rows ? rows[i] : (double)d->rows / (double)d->nr_bands;
		d->bands[i].row_to = nearest_row(row);
	}
	free(rows);
}

/*
 * The axis: the mappings by address, those that touch or overlap with the
 * same name merged, an overlap of another name cut off (a range mapped
 * again under another name during the recording keeps its first).
 */
static int build_axis(struct heatmap_data *d, struct collected *c)
{
	size_t cap = 0;

	qsort(c->maps, c->nr_maps, sizeof(*c->maps), compare_maps);
	for (size_t i = 0; i < c->nr_maps; i++) {
		struct heatmap_band m = c->maps[i], *last = d->nr_bands ? &d->bands[d->nr_bands - 1] : NULL;
		struct heatmap_band *grown;

		if (last && last->end >= m.start && !strcmp(last->name, m.name)) {
			last->end = m.end > last->end ? m.end : last->end;
			continue;
		}
		if (last && last->end > m.start)
			m.start = last->end;
		if (m.start >= m.end)
			continue;
		grown = grow_array(d->bands, &cap, d->nr_bands, sizeof(*grown), 64);
		if (!grown)
			return -ENOMEM;
		d->bands = grown;
		grown[d->nr_bands++] = m;
	}
	for (size_t i = 0; i < d->nr_bands; i++)
		d->mapped += d->bands[i].end - d->bands[i].start;
	share_rows(d);
	return 0;
}

/* Where addr of band b is on the axis, in rows. */
static double band_row(const struct heatmap_band *b, uint64_t addr)
{
	return b->row_from + (b->row_to - b->row_from) * (double)(addr - b->start) /
			     (double)(b->end - b->start);
}

/*
 * Adds a region's accesses to the rows of column t its mapped part covers,
 * each weighted by the bytes of the region it holds.
 */
static void spread(const struct heatmap_data *d, double *weights, size_t t, uint64_t start,
		   uint64_t end, unsigned int accesses)
{
	for (size_t i = 0; i < d->nr_bands; i++) {
		const struct heatmap_band *b = &d->bands[i];
		uint64_t lo = start > b->start ? start : b->start, hi = end < b->end ? end : b->end;
		double from, to, bytes_per_row;

		if (lo >= hi)
			continue;
		from = band_row(b, lo);
		to = band_row(b, hi);
		bytes_per_row = (double)(b->end - b->start) / (b->row_to - b->row_from);
		for (size_t r = (size_t)from; r < d->rows && (double)r < to; r++) {
			double top = (double)(r + 1), bottom = (double)r;
			double bytes = ((to < top ? to : top) - (from > bottom ? from : bottom)) *
				       bytes_per_row;

			d->cells[t * d->rows + r] += accesses * bytes;
			weights[t * d->rows + r] += bytes;
		}
	}
}

static int compare_time(const void *element, const void *key, void *unused)
{
	uint64_t a = *(const uint64_t *)element, b = *(const uint64_t *)key;

	(void)unused;
	return (a > b) - (a < b);
}

/* The second reading: every region into its snapshot's column. */
static int fill_cells(FILE *log, struct heatmap_data *d)
{
	size_t n = d->nr_times * d->rows, size = 0;
	double *weights = calloc(n, sizeof(*weights));
	unsigned long line_no = 0;
	char *line = NULL;

	d->cells = calloc(n, sizeof(*d->cells));
	if (!weights || !d->cells) {
		free(weights);
		return -ENOMEM;
	}
	rewind(log);
	while (getline(&line, &size, log) >= 0) {
		struct heatmap_log_line l;
		bool found;
		size_t t;

		if (!heatmap_log_read_line(line, ++line_no, &l) || l.kind != HEATMAP_LOG_REGION)
			continue;
		t = sorted_find(d->times, d->nr_times, sizeof(*d->times), &l.wall_ns, compare_time,
				NULL, &found);
		if (found)
			spread(d, weights, t, l.start, l.end, l.accesses);
	}
	free(line);
	for (size_t i = 0; i < n; i++)
		d->cells[i] = weights[i] > 0 ? d->cells[i] / weights[i] : -1;
	free(weights);
	return ferror(log) ? -EIO : 0;
}

int heatmap_data_read(FILE *log, size_t rows, struct heatmap_data *d, unsigned long *line_no)
{
	struct collected c = { 0 };
	int err;

	*d = (struct heatmap_data){ .rows = rows };
	err = collect(log, d, &c, line_no);
	if (!err)
		err = build_axis(d, &c);
	free(c.maps);
	if (!err)
		err = fill_cells(log, d);
	if (err)
		heatmap_data_free(d);
	return err;
}

void heatmap_data_free(struct heatmap_data *d)
{
	free(d->bands);
	free(d->times);
	free(d->cells);
	*d = (struct heatmap_data){ 0 };
}

long heatmap_data_row(const struct heatmap_data *d, uint64_t addr)
{
	for (size_t i = 0; i < d->nr_bands; i++) {
		const struct heatmap_band *b = &d->bands[i];

		if (b->start <= addr && addr < b->end)
			return (long)band_row(b, addr);
	}
	return -1;
}

const char *heatmap_band_label(const struct heatmap_band *b)
{
	const char *slash = strrchr(b->name, '/');

	return !b->name[0] ? "[anon]" : slash && slash[1] ? slash + 1 : b->name;
}
