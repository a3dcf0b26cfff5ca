// SPDX-License-Identifier: GPL-2.0
#include "draw.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "atomicfile.h"
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
	const double mib_per_page = (double)sysconf(_SC_PAGESIZE) / (1 << 20);
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
			fprintf(f, "%.3f %.1f\n", (double)distance[p] * mib_per_page,
				100.0 * (double)(p + 1) / CURVE_POINTS);
	}
	return fclose(f) ? -errno : 0;
}

/* The script drawing into temp, in the format of out's name. */
static int write_script(const char *path, const char *data, const char *out, const char *temp,
			const char *window, const struct memory_curve *curves, size_t n,
			size_t drawn)
{
	FILE *f = fopen(path, "we");

	if (!f)
		return -errno;
	fprintf(f, "set terminal %s size 1000,650 noenhanced\nset output '",
		ctl_picture_of(out) == CTL_PICTURE_SVG ? "svg" : "pngcairo");
	gnuplot_quote(f, temp);
	fputs("'\nset title 'The memory that would have kept the pages read back in'\n"
	      "set xlabel 'memory beyond what it had (MiB); ", f);
	gnuplot_quote(f, window);
	fputs("'\nset ylabel 'pages read back that would have stayed in (%)'\n"
	      "set yrange [0:100]\nset xrange [0:*]\nset grid\nset key bottom right\n"
	      "set ytics add (90)\nplot ", f);
	for (size_t i = 0, block = 0; i < n && block < drawn; i++) {
		if (!curves[i].owner->nr_refaults)
			continue;
		fprintf(f, "%s'", block ? ", \\\n     " : "");
		gnuplot_quote(f, data);
		fprintf(f, "' index %zu with steps lw 2 title '", block++);
		gnuplot_quote(f, curves[i].label);
		fputs("'", f);
	}
	fputs("\n", f);
	return fclose(f) ? -errno : 0;
}

int memory_draw(const char *out, const char *window, const struct memory_curve *curves, size_t n)
{
	char dir[] = "/tmp/pfprof-memory.XXXXXX", data[sizeof(dir) + 8], script[sizeof(dir) + 16];
	struct atomic_file picture;
	size_t drawn = 0;
	int err, rc = 0;

	if (!mkdtemp(dir)) {
		ctl_error(-errno, "creating %s", dir);
		return -1;
	}
	snprintf(data, sizeof(data), "%s/curves", dir);
	snprintf(script, sizeof(script), "%s/memory.gp", dir);
	err = atomic_file_begin(&picture, out);
	if (err) {
		ctl_error(err, "writing %s", out);
		gnuplot_remove_dir(dir);
		return -1;
	}
	err = write_curves(data, curves, n, &drawn);
	if (!err)
		err = write_script(script, data, out, picture.temp, window, curves, n, drawn);
	if (err)
		ctl_error(err, "writing gnuplot's input in %s", dir);
	else if ((rc = gnuplot_run(NULL, script)))
		gnuplot_failed(rc, script);
	gnuplot_remove_dir(dir);
	if (err || rc) {
		atomic_file_abort(&picture);
		return -1;
	}
	err = atomic_file_commit(&picture, gnuplot_new_file_mode(), false);
	if (err)
		ctl_error(err, "writing %s", out);
	return err ? -1 : (int)drawn;
}
