// SPDX-License-Identifier: GPL-2.0
#include "draw.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "ctl.h"
#include "plot/gnuplot.h"

/* What one picture needs, for gnuplot_draw()'s callback. */
struct physical_drawing {
	const char *out;
	const struct physical_scan *s;
	uint32_t *colour;	/* by owner: 1 to PHYSICAL_COLOURS, or one more for the rest */
};

/* The grid as a matrix of colours, a row of PHYSICAL_COLUMNS blocks a line; 0: no frame. */
static int write_matrix(const char *path, const struct physical_drawing *d)
{
	FILE *f = fopen(path, "we");

	if (!f)
		return -errno;
	for (size_t b = 0; b < d->s->nr_blocks || b % PHYSICAL_COLUMNS; b++) {
		uint32_t owner = b < d->s->nr_blocks ? d->s->block_owner[b] : UINT32_MAX;

		fprintf(f, "%u%c", owner == UINT32_MAX ? 0 : d->colour[owner],
			(b + 1) % PHYSICAL_COLUMNS ? ' ' : '\n');
	}
	return fclose(f) ? -errno : 0;
}

/* The legend: an empty plot per colour, titled with its owner and its memory. */
static void put_legend(FILE *f, const struct physical_drawing *d, const uint32_t *order)
{
	uint64_t rest = 0;
	size_t n = d->s->nr_owners;

	for (size_t i = 0; i < n; i++) {
		const struct physical_owner *o = &d->s->owners[order[i]];

		if (i >= PHYSICAL_COLOURS) {
			rest += o->pages;
			continue;
		}
		fprintf(f, ", \\\n     NaN with boxes fs solid lc palette cb %zu title '", i + 1);
		gnuplot_quote(f, o->label);
		fprintf(f, ": %.0f MiB'", ctl_pages_mib(o->pages));
	}
	if (n > PHYSICAL_COLOURS)
		fprintf(f, ", \\\n     NaN with boxes fs solid lc palette cb %d title '%zu others:"
			" %.0f MiB'", PHYSICAL_COLOURS + 1, n - PHYSICAL_COLOURS,
			ctl_pages_mib(rest));
}

static int write_script(const char *path, const char *matrix, const char *temp,
			const struct physical_drawing *d, const uint32_t *order)
{
	const double mib_per_block = ctl_pages_mib(d->s->frames_per_block);
	FILE *f = fopen(path, "we");

	if (!f)
		return -errno;
	gnuplot_set_output(f, ctl_picture_of(d->out) == CTL_PICTURE_SVG, 1200, 800, temp);
	fprintf(f, "set title \"Physical memory: whose pages are where\\n(the frames in order,"
		" row after row; a cell %.2f MiB of them, coloured by the owner of most)\"\n",
		mib_per_block);
	fputs("unset xtics\nunset ytics\nset yrange [*:*] reverse\nunset colorbox\n"
	      "set key below\nset cbrange [0:10]\n"
	      "set palette maxcolors 11 defined (0 'white', 1 '#1f77b4', 2 '#ff7f0e',"
	      " 3 '#2ca02c', 4 '#d62728', 5 '#9467bd', 6 '#8c564b', 7 '#e377c2',"
	      " 8 '#bcbd22', 9 '#17becf', 10 '#7f7f7f')\nplot '", f);
	gnuplot_quote(f, matrix);
	fputs("' matrix with image notitle", f);
	put_legend(f, d, order);
	fputs("\n", f);
	return fclose(f) ? -errno : 0;
}

struct inputs {
	struct physical_drawing *d;
	const uint32_t *order;
};

static int write_inputs(const char *dir, const char *temp, char *script, void *ctx)
{
	struct inputs *in = ctx;
	char matrix[PATH_MAX];
	int err;

	snprintf(matrix, sizeof(matrix), "%s/frames", dir);
	snprintf(script, PATH_MAX, "%s/physical.gp", dir);
	err = write_matrix(matrix, in->d);
	return err ? err : write_script(script, matrix, temp, in->d, in->order);
}

int physical_draw(const char *out, const struct physical_scan *s, const uint32_t *order)
{
	struct physical_drawing d = { .out = out, .s = s,
				      .colour = calloc(s->nr_owners + 1, sizeof(*d.colour)) };
	struct inputs in = { &d, order };
	int err;

	if (!d.colour) {
		ctl_error(-ENOMEM, "drawing %s", out);
		return -1;
	}
	for (size_t i = 0; i < s->nr_owners; i++)
		d.colour[order[i]] = i < PHYSICAL_COLOURS ? (uint32_t)i + 1 : PHYSICAL_COLOURS + 1;
	err = gnuplot_draw(out, "/tmp/pfprof-physical.XXXXXX", write_inputs, &in);
	free(d.colour);
	return err ? -1 : 0;
}
