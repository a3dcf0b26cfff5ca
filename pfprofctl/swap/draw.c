// SPDX-License-Identifier: GPL-2.0
#include "draw.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ctl.h"
#include "plot/gnuplot.h"

/* Owners told apart by colour; the others are drawn as one. */
#define OWNERS_APART 8
/* Swap areas drawn, a panel each, in swapon's order. */
#define AREAS_MAX 4
/* Points drawn at most: past them, every k-th page of each owner. */
#define POINTS_MAX 200000

/* What one picture needs: for gnuplot_draw()'s callback and the passes over the slots. */
struct swap_drawing {
	const char *out;
	const struct refault_replay *replay;
	uint64_t now_ns;
	const struct swap_drawn_owner *owners;
	size_t n, apart;
	int8_t *block_of;		/* by replay owner index: its block, -1 none */
	size_t stride;
	/* The points of each area and block; the pass's area and block, its pages seen. */
	size_t points[AREAS_MAX][OWNERS_APART + 1];
	unsigned int area;
	int block;
	size_t seen;
	FILE *data;
};

/* A point of the pass's area and block: MiB into the area, age in seconds. */
static void put_point(const struct refault_slot *s, void *ctx)
{
	struct swap_drawing *d = ctx;
	const uint64_t offset = s->key & ((1ULL << 48) - 1);
	const uint64_t age = d->now_ns > s->out_ns ? d->now_ns - s->out_ns : 0;

	if (d->block_of[s->owner] != d->block || (s->key >> 48) != d->area ||
	    d->seen++ % d->stride)
		return;
	d->points[d->area][d->block]++;
	/* The axis of ages is logarithmic: a page out under a millisecond is drawn at 1 ms. */
	fprintf(d->data, "%.3f %.3f\n", ctl_pages_mib(offset),
		age > 1000000 ? (double)age / 1e9 : 0.001);
}

/* A file of "MiB age" lines per area and block of owners with points: dir/area-block. */
static int write_points(const char *dir, struct swap_drawing *d)
{
	char path[PATH_MAX];
	size_t total = 0;

	for (size_t i = 0; i < d->n; i++)
		total += d->owners[i].out_now;
	d->stride = total > POINTS_MAX ? (total + POINTS_MAX - 1) / POINTS_MAX : 1;
	for (d->area = 0; d->area < AREAS_MAX; d->area++) {
		for (d->block = 0; d->block <= (int)d->apart; d->block++) {
			snprintf(path, sizeof(path), "%s/%u-%d", dir, d->area, d->block);
			d->data = fopen(path, "we");
			if (!d->data)
				return -errno;
			d->seen = 0;
			refaults_for_each_out(d->replay, put_point, d);
			if (fclose(d->data))
				return -errno;
		}
	}
	return 0;
}

/* The legend's words of block b: its owner, or the others. */
static void put_title(FILE *f, const struct swap_drawing *d, size_t b)
{
	size_t others = 0;

	if (b < d->apart) {
		gnuplot_quote(f, d->owners[b].label);
		fprintf(f, ": %zu out", d->owners[b].out_now);
		if (d->owners[b].back_percent >= 0)
			fprintf(f, ", %.0f %% of those sent back", d->owners[b].back_percent);
		return;
	}
	for (size_t i = d->apart; i < d->n; i++)
		others += d->owners[i].out_now;
	fprintf(f, "%zu others: %zu out", d->n - d->apart, others);
}

/* The areas with points. */
static int panels_of(const struct swap_drawing *d)
{
	int panels = 0;

	for (unsigned int area = 0; area < AREAS_MAX; area++)
		for (size_t b = 0; b <= d->apart; b++)
			if (d->points[area][b]) {
				panels++;
				break;
			}
	return panels;
}

/* A panel per swap area with points; each owner's colour the same in all. */
static int write_script(const char *path, const char *dir, const char *temp,
			const struct swap_drawing *d)
{
	const int panels = panels_of(d);
	FILE *f = fopen(path, "we");

	if (!f)
		return -errno;
	gnuplot_set_output(f, ctl_picture_of(d->out) == CTL_PICTURE_SVG, 1100,
			   250 + 300 * panels, temp);
	fprintf(f, "set multiplot layout %d,1 title 'Pages out in swap now: where, since when,"
		" whose%s'\n", panels, d->stride > 1 ? " (a sample of them)" : "");
	fputs("set ylabel 'out for (s)'\nset logscale y\nset grid\nset key below\n"
	      "set xrange [0:*]\n", f);
	for (unsigned int area = 0; area < AREAS_MAX; area++) {
		const char *sep = "plot ";

		for (size_t b = 0; b <= d->apart; b++) {
			if (!d->points[area][b])
				continue;
			if (*sep == 'p')
				fprintf(f, "set xlabel 'slot: MiB into swap area %u (swapon "
					"order)'\n", area);
			fprintf(f, "%s'", sep);
			gnuplot_quote(f, dir);
			fprintf(f, "/%u-%zu' with points pt 7 ps 0.4 lc %zu title '", area, b, b + 1);
			put_title(f, d, b);
			fputs("'", f);
			sep = ", \\\n     ";
		}
		if (*sep != 'p')
			fputs("\n", f);
	}
	fputs("unset multiplot\n", f);
	return fclose(f) ? -errno : 0;
}

static int write_inputs(const char *dir, const char *temp, char *script, void *ctx)
{
	struct swap_drawing *d = ctx;
	int err;

	snprintf(script, PATH_MAX, "%s/swap.gp", dir);
	err = write_points(dir, d);
	return err ? err : write_script(script, dir, temp, d);
}

int swap_draw(const char *out, const struct refault_replay *replay, uint64_t now_ns,
	      const struct swap_drawn_owner *owners, size_t n)
{
	struct swap_drawing d = { .out = out, .replay = replay, .now_ns = now_ns,
				  .owners = owners, .n = n,
				  .apart = n > OWNERS_APART + 1 ? OWNERS_APART : n };
	int err;

	d.block_of = malloc(replay->nr_owners + 1);
	if (!d.block_of) {
		ctl_error(-ENOMEM, "drawing %s", out);
		return -1;
	}
	memset(d.block_of, -1, replay->nr_owners + 1);
	for (size_t i = 0; i < n; i++)
		d.block_of[owners[i].index] = (int8_t)(i < d.apart ? i : d.apart);
	err = gnuplot_draw(out, "/tmp/pfprof-swap.XXXXXX", write_inputs, &d);
	free(d.block_of);
	return err ? -1 : 0;
}
