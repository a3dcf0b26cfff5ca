// SPDX-License-Identifier: GPL-2.0
#include "draw.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "ctl.h"
#include "plot/gnuplot.h"

/* Points of a curve: a step every half per cent of its pages read back. */
#define CURVE_POINTS 200
/* The curves drawn, most pages read back first: more would not be told apart. */
#define CURVES_MAX 8

/* Each curve a block of "MiB share%" lines, from (0, 0); how many have refaults. */
static int write_curves(const char *path, const struct memory_curve *curves, size_t n,
			size_t *drawn)
{
	uint64_t distance[CURVE_POINTS];
	FILE *f = fopen(path, "we");

	if (!f)
		return -errno;
	*drawn = 0;
	for (size_t i = 0; i < n && *drawn < CURVES_MAX; i++) {
		if (!curves[i].owner->nr_refaults)
			continue;
		refaults_curve(curves[i].owner, CURVE_POINTS, distance);
		fprintf(f, "%s0 0\n", (*drawn)++ ? "\n\n" : "");
		for (size_t p = 0; p < CURVE_POINTS; p++)
			fprintf(f, "%.3f %.1f\n", ctl_pages_mib(distance[p]),
				100.0 * (double)(p + 1) / CURVE_POINTS);
	}
	return fclose(f) ? -errno : 0;
}

/* What one drawing of curves needs, for gnuplot_draw()'s callback. */
struct curves_drawing {
	const char *out, *window;
	const struct memory_curve *curves;
	size_t n, drawn;
};

/* The script drawing into temp, in the format of out's name. */
static int write_script(const char *path, const char *data, const char *temp,
			const struct curves_drawing *d)
{
	FILE *f = fopen(path, "we");

	if (!f)
		return -errno;
	gnuplot_set_output(f, ctl_picture_of(d->out) == CTL_PICTURE_SVG, 1000, 650, temp);
	fputs("set title 'The memory that would have kept the pages read back in'\n"
	      "set xlabel 'memory beyond what it had (MiB); ", f);
	gnuplot_quote(f, d->window);
	fputs("'\nset ylabel 'pages read back that would have stayed in (%)'\n"
	      "set yrange [0:100]\nset xrange [0:*]\nset grid\nset key bottom right\n"
	      "set ytics add (90)\nplot ", f);
	for (size_t i = 0, block = 0; i < d->n && block < d->drawn; i++) {
		if (!d->curves[i].owner->nr_refaults)
			continue;
		fprintf(f, "%s'", block ? ", \\\n     " : "");
		gnuplot_quote(f, data);
		fprintf(f, "' index %zu with steps lw 2 title '", block++);
		gnuplot_quote(f, d->curves[i].label);
		fputs("'", f);
	}
	fputs("\n", f);
	return fclose(f) ? -errno : 0;
}

static int write_inputs(const char *dir, const char *temp, char *script, void *ctx)
{
	struct curves_drawing *d = ctx;
	char data[PATH_MAX];
	int err;

	snprintf(data, sizeof(data), "%s/curves", dir);
	snprintf(script, PATH_MAX, "%s/memory.gp", dir);
	err = write_curves(data, d->curves, d->n, &d->drawn);
	return err ? err : write_script(script, data, temp, d);
}

int memory_draw(const char *out, const char *window, const struct memory_curve *curves, size_t n)
{
	struct curves_drawing d = { .out = out, .window = window, .curves = curves, .n = n };

	if (gnuplot_draw(out, "/tmp/pfprof-memory.XXXXXX", write_inputs, &d))
		return -1;
	return (int)d.drawn;
}
