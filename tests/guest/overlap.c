// SPDX-License-Identifier: GPL-2.0
/*
 * Whether a concurrency test is concurrent: how often the two CPUs were
 * inside the module at the same moment. ftrace's function_graph tracer
 * records every outermost call of one of mp3's functions (its probes, the
 * sampler, the proc and device handlers) with the CPU, the time it began
 * and its duration; a call overlaps when the other CPU was inside the
 * module during part of it. With one host thread for both virtual CPUs,
 * they take turns at QEMU's switches: the guest's clock goes on while a
 * vCPU waits for its turn, so a call cut by a switch lasts milliseconds and
 * seems to overlap all the other vCPU ran meanwhile. Only calls shorter
 * than OVERLAP_SHORT_US count as overlapping, and only with short calls.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <unistd.h>

#include "harness.h"
#include "overlap.h"

#define TRACING "/sys/kernel/tracing"
/* Per CPU: some seconds of a storm's calls, then tracing stops (no overwrite). */
#define OVERLAP_BUFFER_KB "16384"
#define OVERLAP_SHORT_US 1000.0

struct calls {
	double *start, *end;	/* µs, the global trace clock */
	size_t n, max;
};

static int tracing_write(const char *file, const char *value)
{
	char path[128];
	FILE *f;
	int err = 0;

	snprintf(path, sizeof(path), TRACING "/%s", file);
	f = fopen(path, "w");
	if (!f)
		return -errno;
	if (fputs(value, f) == EOF)
		err = -errno;
	if (fclose(f) && !err)
		err = -errno;
	return err;
}

bool overlap_start(const char *test)
{
	static const char *const settings[][2] = {
		{ "tracing_on", "0" },
		{ "current_tracer", "nop" },
		{ "trace", "" },
		{ "buffer_size_kb", OVERLAP_BUFFER_KB },
		{ "trace_clock", "global" },
		{ "options/overwrite", "0" },
		{ "set_ftrace_filter", ":mod:mp3" },
		{ "max_graph_depth", "1" },
		{ "current_tracer", "function_graph" },
		{ "options/funcgraph-abstime", "1" },
		{ "options/funcgraph-cpu", "1" },
		{ "options/funcgraph-duration", "1" },
		{ "tracing_on", "1" },
	};

	if (access(TRACING "/trace", F_OK))
		mount("tracefs", TRACING, "tracefs", 0, NULL);
	for (size_t i = 0; i < sizeof(settings) / sizeof(settings[0]); i++) {
		int err = tracing_write(settings[i][0], settings[i][1]);

		if (err) {
			printf("  %s: CPUs inside the module at once: not measured (%s: %s)\n", test,
			       settings[i][0], errno_name(err));
			return false;
		}
	}
	return true;
}

static void calls_add(struct calls *c, double start, double duration)
{
	if (c->n == c->max) {
		c->max = c->max ? 2 * c->max : 4096;
		c->start = realloc(c->start, c->max * sizeof(*c->start));
		c->end = realloc(c->end, c->max * sizeof(*c->end));
		expect(c->start && c->end, "no memory for %zu calls", c->max);
	}
	c->start[c->n] = start;
	c->end[c->n] = start + duration;
	c->n++;
}

/*
 * One line of the function_graph tracer's output, an outermost call:
 * " 123.456789 |   1)   2.345 us    |  mp3_probe_wakeup [mp3]();".
 * Long calls have a mark before their duration ("+", "!", "#"...).
 */
static bool parse_call(const char *line, double *start_us, unsigned int *cpu, double *duration_us)
{
	double seconds;
	const char *p;
	int len = 0;

	if (!strstr(line, "();") || sscanf(line, " %lf | %u)%n", &seconds, cpu, &len) != 2)
		return false;
	for (p = line + len; *p && *p != '|' && (*p < '0' || *p > '9'); p++)
		;
	if (sscanf(p, "%lf us", duration_us) != 1)
		return false;
	*start_us = seconds * 1e6;
	return true;
}

/* How many of a's calls overlap one of b's (each in the order they began). */
static size_t overlapping(const struct calls *a, const struct calls *b)
{
	size_t j = 0, n = 0;

	for (size_t i = 0; i < a->n; i++) {
		while (j < b->n && b->end[j] < a->start[i])
			j++;
		if (j < b->n && b->start[j] <= a->end[i])
			n++;
	}
	return n;
}

void overlap_report(const char *test)
{
	struct calls cpus[2] = { 0 };
	size_t both = 0, calls = 0, ignored = 0, long_calls = 0;
	double start, duration, first = 0, last = 0, share;
	char line[512];
	unsigned int cpu;
	FILE *f;

	expect(!tracing_write("tracing_on", "0"), "stopping the tracer");
	f = fopen(TRACING "/trace", "r");
	expect(f, "opening " TRACING "/trace: %s", strerror(errno));
	while (fgets(line, sizeof(line), f)) {
		if (!parse_call(line, &start, &cpu, &duration))
			continue;
		if (cpu > 1) {
			ignored++;
			continue;
		}
		if (!calls)
			first = start;
		last = start > last ? start : last;
		calls++;
		if (duration < OVERLAP_SHORT_US)
			calls_add(&cpus[cpu], start, duration);
		else
			long_calls++;
	}
	fclose(f);
	tracing_write("current_tracer", "nop");
	tracing_write("set_ftrace_filter", "");
	tracing_write("buffer_size_kb", "1408");
	both = overlapping(&cpus[0], &cpus[1]) + overlapping(&cpus[1], &cpus[0]);
	share = calls ? 100.0 * both / calls : 0;
	printf("  %s: CPUs inside the module at once: %zu of %zu module calls (%.2f %%) "
	       "overlapped one of the other CPU's, both shorter than %.0f us, over %.1f s "
	       "traced (%zu calls longer)\n", test, both, calls, share, OVERLAP_SHORT_US,
	       (last - first) / 1e6, long_calls);
	expect(!ignored, "%zu calls on a third CPU", ignored);
	expect(cpus[0].n && cpus[1].n, "short module calls traced on CPU 0: %zu, CPU 1: %zu",
	       cpus[0].n, cpus[1].n);
	for (int i = 0; i < 2; i++) {
		free(cpus[i].start);
		free(cpus[i].end);
	}
}
