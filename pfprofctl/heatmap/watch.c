// SPDX-License-Identifier: GPL-2.0
/*
 * pfprofctl heatmap --watch: a heatmap log drawn in the terminal and drawn
 * again every interval while a recorder (heatmap --record, as root) adds
 * to it. A column a snapshot, the newest at the right; a row a slice of
 * the mapped address ranges (data.h), the highest addresses at the
 * top as in the picture; a character per cell, darker to brighter, so that
 * it reads on any terminal and in a log of the session.
 */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "ctl.h"
#include "data.h"
#include "logfile.h"
#include "screen.h"
#include "watch.h"

#define HEADER_LINES 2
#define LABEL_COLS 24
/* No region, then none to all of an aggregation's samples. */
#define NO_REGION ' '
static const char levels[] = ".:-=+*#%@";
#define NR_LEVELS (sizeof(levels) - 1)

struct heatmap_view {
	char path[PATH_MAX];
	struct heatmap_data d;
	bool read;			/* d holds the log */
	struct timespec mtime;		/* the log's, when d was read */
	size_t rows;			/* d's */
	unsigned long bad_line;		/* of an -EPROTO */
};

static char cell_char(const struct heatmap_data *d, double accesses)
{
	uint64_t samples = d->sample_us ? d->aggr_us / d->sample_us : 0;
	size_t level;

	if (accesses < 0)
		return NO_REGION;
	level = samples ? (size_t)(accesses * (NR_LEVELS - 1) / (double)samples + 0.5) : 0;
	return levels[level < NR_LEVELS ? level : NR_LEVELS - 1];
}

/* Each row's label: a band's name and size at the row of its middle, if no other took it. */
static void label_rows(const struct heatmap_data *d, char (*labels)[LABEL_COLS + 1])
{
	for (size_t i = 0; i < d->nr_bands; i++) {
		const struct heatmap_band *b = &d->bands[i];
		size_t row = (size_t)((b->row_from + b->row_to) / 2);
		char size[16];

		if (row >= d->rows || labels[row][0])
			continue;
		ctl_format_bytes(size, sizeof(size), b->end - b->start);
		snprintf(labels[row], LABEL_COLS + 1, "%*.*s %s", (int)(LABEL_COLS - 2 - strlen(size)),
			 (int)(LABEL_COLS - 2 - strlen(size)), heatmap_band_label(b), size);
	}
}

static void print_header(const struct heatmap_data *d, size_t shown, struct screen_size size,
			 const char *eol)
{
	time_t last = (time_t)(d->times[d->nr_times - 1] / 1000000000ULL);
	uint64_t samples = d->sample_us ? d->aggr_us / d->sample_us : 0;
	char when[16];

	strftime(when, sizeof(when), "%H:%M:%S", gmtime(&last));
	screen_put_line(size.cols, eol, "PID %d (%s): DAMON's accesses, %zu of %zu snapshots "
			"to %s UTC; q quits", (int)d->pid, d->comm, shown, d->nr_times, when);
	screen_put_line(size.cols, eol, "'%s': none to %" PRIu64 " of %" PRIu64 " samples in "
			"%" PRIu64 " ms; '%c': no region", levels, samples, samples, d->aggr_us / 1000,
			NO_REGION);
}

/* screen_draw()'s print: the header, then the rows, highest addresses first. */
static void print_map(void *ctx, struct screen_size size, const char *eol)
{
	const struct heatmap_view *v = ctx;
	const struct heatmap_data *d = &v->d;
	size_t room = size.cols > LABEL_COLS + 2 ? size.cols - LABEL_COLS - 2 : 1;
	size_t shown = d->nr_times < room ? d->nr_times : room;
	char (*labels)[LABEL_COLS + 1], *cells;

	if (!v->read) {
		screen_put_line(size.cols, eol, "%s: no snapshot yet; q quits", v->path);
		return;
	}
	labels = calloc(d->rows, sizeof(*labels));
	cells = malloc(shown + 1);
	if (labels && cells) {
		size_t first = d->nr_times - shown;

		label_rows(d, labels);
		print_header(d, shown, size, eol);
		for (size_t r = d->rows; r-- > 0;) {
			for (size_t t = 0; t < shown; t++)
				cells[t] = cell_char(d, d->cells[(first + t) * d->rows + r]);
			cells[shown] = '\0';
			screen_put_line(size.cols, eol, "%*s |%s", LABEL_COLS, labels[r], cells);
		}
	} else {
		screen_put_line(size.cols, eol, "no memory to draw %s", v->path);
	}
	free(labels);
	free(cells);
}

/* The rows the terminal has for the map: all but the header's and the last, kept empty. */
static size_t map_rows(void)
{
	struct screen_size size = screen_terminal_size(HEADER_LINES + 3);

	return size.rows - HEADER_LINES - 1;
}

/*
 * screen_watch()'s take: the log read anew if it changed or the terminal
 * did. A log with no snapshot yet is waited for; 0 or -errno (-EPROTO: a
 * line that is none of a heatmap log's, in bad_line).
 */
static int take(void *ctx)
{
	struct heatmap_view *v = ctx;
	size_t rows = map_rows();
	struct stat st;
	FILE *log;
	int err;

	if (stat(v->path, &st))
		return -errno;
	if (v->read && rows == v->rows && st.st_mtim.tv_sec == v->mtime.tv_sec &&
	    st.st_mtim.tv_nsec == v->mtime.tv_nsec)
		return 0;
	log = fopen(v->path, "re");
	if (!log)
		return -errno;
	if (v->read)
		heatmap_data_free(&v->d);
	err = heatmap_data_read(log, rows, &v->d, &v->bad_line);
	fclose(log);
	v->read = !err;
	v->rows = rows;
	v->mtime = st.st_mtim;
	return err == -ENODATA ? 0 : err;
}

int heatmap_watch_command(const char *log_path, int delay_ms)
{
	struct heatmap_view v = { 0 };
	int err;

	snprintf(v.path, sizeof(v.path), "%s", log_path);
	/* Before the alternate screen, where an error would go with it. */
	err = take(&v);
	if (!err && !screen_watch(take, print_map, &v, HEADER_LINES + 3, delay_ms, &err)) {
		ctl_error(0, "heatmap --watch draws on a terminal: run it in one");
		err = -1;
	} else if (err) {
		heatmap_log_failed(v.path, err, v.bad_line);
	}
	if (v.read)
		heatmap_data_free(&v.d);
	return err ? PFPROF_EXIT_FAILED : PFPROF_EXIT_OK;
}
