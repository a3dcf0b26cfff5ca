// SPDX-License-Identifier: GPL-2.0
#include "promwaits.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>

#include "latency.h"
#include "promtext.h"
#include "psi.h"
#include "stalls.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/*
 * The waits of delay accounting as metrics: the kinds [first, end) of a
 * stall_us array, labelled kind if more than one. Block I/O is a metric of
 * its own: it overlaps swap-in's and thrashing's I/O, so that a sum over
 * kind of the memory one means something and one with block I/O would not.
 */
struct stall_metric {
	const char *process_name, *process_help;
	const char *target_name, *target_help;
	enum stall_kind first, end;
};

static const struct stall_metric stall_metrics[] = {
	{ "pfprof_process_memory_stall_seconds_total",
	  "Time a registered process's threads waited for memory, by kind: swapin, thrashing,"
	  " reclaim (direct reclaim, a memory cgroup's at its limits too), compact (kernel delay"
	  " accounting; each thread adds its own).",
	  "pfprof_target_memory_stall_seconds_total",
	  "Time a target's processes' threads waited for memory, by kind, those gone included"
	  " (kernel delay accounting; each thread adds its own).",
	  STALL_SWAPIN, STALL_MEMORY_KINDS },
	{ "pfprof_process_block_io_wait_seconds_total",
	  "Time a registered process's threads waited for synchronous block I/O, swap-ins"
	  " included (kernel delay accounting; each thread adds its own).",
	  "pfprof_target_block_io_wait_seconds_total",
	  "Time a target's processes' threads waited for synchronous block I/O, those gone"
	  " included (kernel delay accounting; each thread adds its own).",
	  STALL_BLKIO, STALL_KINDS },
};

/* The end of a series of m, after its other labels: its kind, if m has kinds, and sum_us's. */
static void put_stall_value(FILE *out, const struct stall_metric *m, enum stall_kind kind,
			    const uint64_t sum_us[STALL_KINDS])
{
	if (m->end - m->first > 1)
		fprintf(out, ",kind=\"%s\"", stall_kind_word(kind));
	fputc('}', out);
	prom_put_microseconds(out, sum_us[kind]);
}

/* The processes with series whose waits were measured (SERIES_STALLS). */
static void put_process_stalls(FILE *out, struct counters *counts,
			       const struct target_list *targets, const struct stall_metric *m)
{
	bool header = false;

	for (size_t i = 0; i < counts->procs.cap; i++) {
		struct proc_entry *e = &counts->procs.slots[i];

		if (!e->tgid || (e->marks & (SERIES_EXPORTED | SERIES_STALLS)) !=
				(SERIES_EXPORTED | SERIES_STALLS))
			continue;
		prom_put_header_once(out, &header, m->process_name, "counter", m->process_help);
		for (enum stall_kind k = m->first; k < m->end; k++) {
			prom_put_process_labels(out, m->process_name, e, targets);
			put_stall_value(out, m, k, e->stall_us);
		}
	}
}

/* The targets whose waits were measured. */
static void put_target_stalls(FILE *out, const struct counters *counts,
			      const struct target_list *targets, const struct stall_metric *m)
{
	bool header = false;

	for (size_t i = 0; i < counts->nr_targets; i++) {
		const struct target_total *t = &counts->targets[i];

		if (!t->stalls)
			continue;
		prom_put_header_once(out, &header, m->target_name, "counter", m->target_help);
		for (enum stall_kind k = m->first; k < m->end; k++) {
			fprintf(out, "%s{", m->target_name);
			prom_put_target_label(out, targets, t->number);
			put_stall_value(out, m, k, t->stall_us);
		}
	}
}

/* le="..." of a bucket's upper bound: the shortest decimal of its whole nanoseconds. */
static void put_le(FILE *out, unsigned int bucket)
{
	double bound = latency_bound_seconds(bucket);
	char text[32];
	size_t len;

	if (isinf(bound)) {
		fputs(",le=\"+Inf\"}", out);
		return;
	}
	len = (size_t)snprintf(text, sizeof(text), "%.9f", bound);
	while (text[len - 1] == '0')
		len--;
	fprintf(out, ",le=\"%.*s\"}", (int)(text[len - 1] == '.' ? len - 1 : len), text);
}

#define DURATION_METRIC "pfprof_target_fault_duration_seconds"

/* DURATION_METRIC<suffix>{target="...",kind="..." : the closing brace is the caller's. */
static void put_duration_labels(FILE *out, const char *suffix, const struct target_list *targets,
				const struct target_total *t, enum latency_kind kind)
{
	fprintf(out, DURATION_METRIC "%s{", suffix);
	prom_put_target_label(out, targets, t->number);
	fprintf(out, ",kind=\"%s\"", latency_kind_word(kind));
}

/* A target's histogram of one kind: cumulative buckets, then its sum and count. */
static void put_duration_series(FILE *out, const struct target_list *targets,
				const struct target_total *t, enum latency_kind kind)
{
	const struct latency_hist *h = &t->latency[kind];
	uint64_t count = 0;

	for (unsigned int b = 0; b < MP3_LATENCY_BUCKETS; b++) {
		count += h->faults[b];
		put_duration_labels(out, "_bucket", targets, t, kind);
		put_le(out, b);
		prom_put_value(out, count, false);
	}
	put_duration_labels(out, "_sum", targets, t, kind);
	fputc('}', out);
	prom_put_value(out, h->time_ns, true);
	put_duration_labels(out, "_count", targets, t, kind);
	fputc('}', out);
	prom_put_value(out, count, false);
}

/* How long the faults of the targets whose processes' faults are timed took. */
void promwaits_put_durations(FILE *out, const struct counters *counts,
			     const struct target_list *targets)
{
	bool header = false;

	for (size_t i = 0; i < counts->nr_targets; i++) {
		const struct target_total *t = &counts->targets[i];

		if (!t->timed)
			continue;
		prom_put_header_once(out, &header, DURATION_METRIC, "histogram",
				"How long a target's processes' page faults took, by kind (minor,"
				" major), those gone included: from the entry into the kernel's"
				" fault handler to its return, retries added (processes registered"
				" with latency).");
		for (enum latency_kind k = 0; k < LATENCY_KINDS; k++)
			put_duration_series(out, targets, t, k);
	}
}

/* A target's cgroup's memory pressure, read at this write. */
struct cgroup_pressure {
	uint32_t number;
	struct psi_memory psi;
};

/*
 * The PSI of the targets of the list that have a cgroup now (units and
 * cgroups) whose memory.pressure reads: none for a unit stopped or without
 * PSI. Into out (targets->count entries); returns how many.
 */
static size_t read_cgroup_pressure(const struct target_list *targets,
				   struct cgroup_pressure *out)
{
	size_t n = 0;

	for (size_t i = 0; i < targets->count; i++) {
		const struct target *t = &targets->targets[i];
		char cgroup[PATH_MAX];

		if (target_cgroup(t, cgroup, sizeof(cgroup)) &&
		    !psi_read_cgroup(cgroup, &out[n].psi))
			out[n++].number = t->number;
	}
	return n;
}

/* A metric of the cgroups' pressure: their some totals, or their full ones. */
static void put_pressure_metric(FILE *out, const char *name, const char *help,
				const struct target_list *targets,
				const struct cgroup_pressure *p, size_t n, bool full)
{
	if (n)
		prom_put_header(out, name, "counter", help);
	for (size_t i = 0; i < n; i++) {
		fprintf(out, "%s{", name);
		prom_put_target_label(out, targets, p[i].number);
		fputc('}', out);
		prom_put_microseconds(out, full ? p[i].psi.full_total_us : p[i].psi.some_total_us);
	}
}

/*
 * The kernel's cumulative stall times of each target's cgroup, as read: like
 * node_exporter's node_pressure_memory_*_seconds_total, of the cgroup.
 * 0 or -ENOMEM.
 */
static int put_cgroup_pressure(FILE *out, const struct target_list *targets)
{
	struct cgroup_pressure *p = calloc(targets->count ? targets->count : 1, sizeof(*p));
	size_t n;

	if (!p)
		return -ENOMEM;
	n = read_cgroup_pressure(targets, p);
	put_pressure_metric(out, "pfprof_target_pressure_memory_waiting_seconds_total",
			    "Time some tasks of a target's cgroup waited for memory (PSI: its"
			    " memory.pressure some total).", targets, p, n, false);
	put_pressure_metric(out, "pfprof_target_pressure_memory_stalled_seconds_total",
			    "Time all non-idle tasks of a target's cgroup waited for memory at once"
			    " (PSI: its memory.pressure full total).", targets, p, n, true);
	free(p);
	return 0;
}

/*
 * What the processes and targets waited for: delay accounting's waits where
 * measured, whether they are measured now, the cgroups' PSI. 0 or -ENOMEM.
 */
int promwaits_put(FILE *out, struct counters *counts, const struct target_list *targets)
{
	for (size_t i = 0; i < ARRAY_SIZE(stall_metrics); i++) {
		put_process_stalls(out, counts, targets, &stall_metrics[i]);
		put_target_stalls(out, counts, targets, &stall_metrics[i]);
	}
	/* Beside series that stopped growing: off, or no wait? */
	prom_put_header(out, "pfprof_delay_accounting_enabled", "gauge",
		   "Whether the waits are measured now (the mp3 module sends them and"
		   " kernel.task_delayacct is on): 1 or 0.");
	fprintf(out, "pfprof_delay_accounting_enabled %d\n", counts->stalls_known);
	return put_cgroup_pressure(out, targets);
}
