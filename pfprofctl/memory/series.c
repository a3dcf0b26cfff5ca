// SPDX-License-Identifier: GPL-2.0
#include "series.h"

#include <errno.h>
#include <stdio.h>

#include "logformat.h"
#include "logscan.h"

struct series_scan {
	FILE *out;
	uint32_t target;
	uint64_t from_ns, to_ns;
	struct log_memory last;	/* the target's line before; last.wall_ns 0: none yet */
	size_t points;
};

static double mib(uint64_t bytes)
{
	return (double)bytes / (1 << 20);
}

/* Field f of now as MiB, "NaN" if unknown or no limit. */
static void write_mib(FILE *out, const struct cgroup_memory *now, enum cgroup_memory_field f)
{
	if (cgroup_memory_has(now, f) && now->value[f] != CGROUP_MEMORY_NO_LIMIT)
		fprintf(out, " %.3f", mib(now->value[f]));
	else
		fputs(" NaN", out);
}

/*
 * Field f's growth from before to now, per second of seconds, times scale;
 * "NaN" if either does not know it, or it went back (a cgroup made anew).
 */
static void write_rate(FILE *out, const struct cgroup_memory *before,
		       const struct cgroup_memory *now, enum cgroup_memory_field f,
		       double seconds, double scale)
{
	if (cgroup_memory_has(before, f) && cgroup_memory_has(now, f) &&
	    now->value[f] >= before->value[f])
		fprintf(out, " %.3f", (double)(now->value[f] - before->value[f]) / seconds * scale);
	else
		fputs(" NaN", out);
}

static void series_line(char *line, void *ctx)
{
	struct series_scan *s = ctx;
	struct log_memory lm;

	if (line[0] == '#' || !logformat_parse_memory(line, &lm) || lm.target != s->target ||
	    lm.wall_ns < s->from_ns || lm.wall_ns > s->to_ns)
		return;
	if (s->last.wall_ns && lm.wall_ns > s->last.wall_ns) {
		double seconds = (double)(lm.wall_ns - s->last.wall_ns) / 1e9;

		fprintf(s->out, "%.3f", (double)lm.wall_ns / 1e9);
		write_mib(s->out, &lm.m, CGMEM_CURRENT);
		write_mib(s->out, &lm.m, CGMEM_MAX);
		write_rate(s->out, &s->last.m, &lm.m, CGMEM_REFAULT_FILE, seconds, 1);
		write_rate(s->out, &s->last.m, &lm.m, CGMEM_REFAULT_ANON, seconds, 1);
		/* us stalled per us: % of the time */
		write_rate(s->out, &s->last.m, &lm.m, CGMEM_SOME_US, seconds, 1e-4);
		write_rate(s->out, &s->last.m, &lm.m, CGMEM_FULL_US, seconds, 1e-4);
		fputc('\n', s->out);
		s->points++;
	}
	s->last = lm;
}

int memory_series_write(const char *dir, unsigned int keep, uint32_t target, uint64_t from_ns,
			uint64_t to_ns, const char *path, size_t *points)
{
	struct series_scan s = { .target = target, .from_ns = from_ns, .to_ns = to_ns };
	int err;

	s.out = fopen(path, "we");
	if (!s.out)
		return -errno;
	err = logscan_forward(dir, LOGKIND_MEMORY, keep, series_line, &s);
	if (fclose(s.out) && !err)
		err = -errno;
	*points = s.points;
	return err;
}
