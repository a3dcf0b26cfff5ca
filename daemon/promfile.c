// SPDX-License-Identifier: GPL-2.0
#include "promfile.h"

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "atomicfile.h"
#include "clock.h"

/*
 * A counter kept as a uint64_t at offset in its struct (struct counters,
 * struct proc_entry, struct target_total or struct owner_losses).
 */
struct counter {
	const char *name;
	const char *help;
	size_t offset;
	bool nanoseconds;	/* exported in seconds */
};

#define TOTAL(field) offsetof(struct counters, field)
#define PROC(field) offsetof(struct proc_entry, field)
#define TARGET(field) offsetof(struct target_total, field)

static const struct counter totals[] = {
	{ "pfprof_minor_faults_total",
	  "Minor page faults of the registered processes, summed.", TOTAL(minor), false },
	{ "pfprof_major_faults_total",
	  "Major page faults of the registered processes, summed.", TOTAL(major), false },
	{ "pfprof_cpu_seconds_total",
	  "CPU time (user and system) of the registered processes, summed.", TOTAL(cpu_ns), true },
	{ "pfprof_samples_written_total",
	  "Samples of the mp3 module written to pfprofd's log (counted once on disk).",
	  TOTAL(samples_written), false },
	{ "pfprof_samples_lost_total",
	  "Samples overwritten in the module's ring before pfprofd could read them.",
	  TOTAL(samples_lost), false },
	{ "pfprof_process_series_omitted_total",
	  "Processes left out of the per-process series by prometheus_max_processes.",
	  TOTAL(omitted), false },
};

static const struct counter per_process[] = {
	{ "pfprof_process_minor_faults_total",
	  "Minor page faults of a registered process.", PROC(minor), false },
	{ "pfprof_process_major_faults_total",
	  "Major page faults of a registered process.", PROC(major), false },
	{ "pfprof_process_cpu_seconds_total",
	  "CPU time (user and system) of a registered process.", PROC(cpu_ns), true },
};

/* Not capped like the processes': there are few targets. */
static const struct counter per_target[] = {
	{ "pfprof_target_minor_faults_total",
	  "Minor page faults of a target's processes, those gone included.", TARGET(minor), false },
	{ "pfprof_target_major_faults_total",
	  "Major page faults of a target's processes, those gone included.", TARGET(major), false },
	{ "pfprof_target_cpu_seconds_total",
	  "CPU time (user and system) of a target's processes, those gone included.",
	  TARGET(cpu_ns), true },
};

static const struct counter target_processes = {
	"pfprof_target_processes", "Registered processes of a target.", TARGET(processes), false
};

/* The module's counters that start from 0 at each load: a struct load_counter at offset. */
static const struct counter module_totals[] = {
	{ "pfprof_sampler_seconds_total",
	  "Time the mp3 module spent taking samples.", TOTAL(sampler_ns), true },
	{ "pfprof_sampler_runs_total", "Samples the mp3 module took.", TOTAL(sampler_runs), false },
	{ "pfprof_followed_processes_skipped_total",
	  "Processes of followed units, trees and names left out: whoever added them may not"
	  " read them (another user's, or a setuid program).", TOTAL(follow_skipped), false },
	{ "pfprof_followed_processes_missed_total",
	  "Processes of followed units, trees and names left out: the kernel had no memory for"
	  " them at their fork.", TOTAL(follow_missed), false },
	{ "pfprof_fault_latency_missed_total",
	  "Page faults of processes registered with latency that the mp3 module could not time:"
	  " its probe's instances were all in use (its latency_active parameter).",
	  TOTAL(latency_missed), false },
};

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

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

static uint64_t field_at(const void *base, const struct counter *c)
{
	return *(const uint64_t *)((const char *)base + c->offset);
}

static const struct load_counter *load_counter_at(const struct counters *counts,
						  const struct counter *c)
{
	return (const struct load_counter *)((const char *)counts + c->offset);
}

static void put_header(FILE *out, const char *name, const char *type, const char *help)
{
	fprintf(out, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, type);
}

/* HELP and TYPE before a metric's first series: none for a metric without series. */
static void put_header_once(FILE *out, bool *done, const char *name, const char *type,
			    const char *help)
{
	if (!*done)
		put_header(out, name, type, help);
	*done = true;
}

static void put_value(FILE *out, uint64_t value, bool nanoseconds)
{
	if (nanoseconds)
		fprintf(out, " %" PRIu64 ".%09" PRIu64 "\n", value / NSEC_PER_SEC,
			value % NSEC_PER_SEC);
	else
		fprintf(out, " %" PRIu64 "\n", value);
}

static void put_counter(FILE *out, const char *name, const char *help, uint64_t value,
			bool nanoseconds)
{
	put_header(out, name, "counter", help);
	fputs(name, out);
	put_value(out, value, nanoseconds);
}

static void put_gauge(FILE *out, const char *name, const char *help, double value)
{
	put_header(out, name, "gauge", help);
	fprintf(out, "%s %.4f\n", name, value);
}

/*
 * A label value: backslash and double quote escaped as the format wants;
 * bytes that are not printable ASCII become '?', since a comm may be cut in
 * the middle of a UTF-8 character and the format takes only valid UTF-8.
 */
static void put_label_value(FILE *out, const char *text)
{
	for (const unsigned char *p = (const unsigned char *)text; *p; p++) {
		if (*p == '\\' || *p == '"')
			fputc('\\', out);
		fputc(*p >= 0x20 && *p < 0x7f ? *p : '?', out);
	}
}

/*
 * target="<label>": "" for none rather than no label, so that every series of
 * a metric has the same label names, as client libraries make them (to
 * Prometheus an empty value is no label).
 */
static void put_target_label(FILE *out, const struct target_list *targets, uint32_t number)
{
	fputs("target=\"", out);
	if (number) {
		char label[PATH_MAX + 32];

		put_label_value(out, target_label(targets, number, label, sizeof(label)));
	}
	fputc('"', out);
}

/* name{pid="...",comm="...",target="..." and the labels' closing brace are the caller's. */
static void put_process_labels(FILE *out, const char *name, struct proc_entry *e,
			       const struct target_list *targets)
{
	fprintf(out, "%s{pid=\"%d\",comm=\"", name, (int)e->tgid);
	put_label_value(out, proctable_name(e));
	fputs("\",", out);
	put_target_label(out, targets, e->target);
}

static void put_processes(FILE *out, struct counters *counts, const struct target_list *targets,
			  const struct counter *c)
{
	put_header(out, c->name, "counter", c->help);
	for (size_t i = 0; i < counts->procs.cap; i++) {
		struct proc_entry *e = &counts->procs.slots[i];

		if (!e->tgid || !(e->marks & SERIES_EXPORTED))
			continue;
		put_process_labels(out, c->name, e, targets);
		fputc('}', out);
		put_value(out, field_at(e, c), c->nanoseconds);
	}
}

/*
 * The major faults of the processes registered with "maps", by what the
 * mapping was: three series each, never one per file, to bound the series.
 */
static void put_processes_by_mapping(FILE *out, struct counters *counts,
				     const struct target_list *targets)
{
	static const char name[] = "pfprof_process_major_faults_by_mapping_total";

	put_header(out, name, "counter",
		   "Major page faults of a process registered with maps, by mapping: anon ="
		   " swap-ins of private memory (heap, stacks), file = reads of mapped files,"
		   " shmem = swap-ins of shared memory. Faults not placed are in none.");
	for (size_t i = 0; i < counts->procs.cap; i++) {
		struct proc_entry *e = &counts->procs.slots[i];

		if (!e->tgid || !e->placed || !(e->marks & SERIES_EXPORTED))
			continue;
		for (int g = 0; g < MAPPING_GROUPS; g++) {
			put_process_labels(out, name, e, targets);
			fprintf(out, ",mapping=\"%s\"}", proctable_mapping_group_word(g));
			put_value(out, e->major_in[g], false);
		}
	}
}

/* Seconds from whole microseconds (delay accounting's and PSI's). */
static void put_microseconds(FILE *out, uint64_t us)
{
	fprintf(out, " %" PRIu64 ".%06" PRIu64 "\n", us / 1000000, us % 1000000);
}

/* The end of a series of m, after its other labels: its kind, if m has kinds, and sum_us's. */
static void put_stall_value(FILE *out, const struct stall_metric *m, enum stall_kind kind,
			    const uint64_t sum_us[STALL_KINDS])
{
	if (m->end - m->first > 1)
		fprintf(out, ",kind=\"%s\"", stall_kind_word(kind));
	fputc('}', out);
	put_microseconds(out, sum_us[kind]);
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
		put_header_once(out, &header, m->process_name, "counter", m->process_help);
		for (enum stall_kind k = m->first; k < m->end; k++) {
			put_process_labels(out, m->process_name, e, targets);
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
		put_header_once(out, &header, m->target_name, "counter", m->target_help);
		for (enum stall_kind k = m->first; k < m->end; k++) {
			fprintf(out, "%s{", m->target_name);
			put_target_label(out, targets, t->number);
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
	put_target_label(out, targets, t->number);
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
		put_value(out, count, false);
	}
	put_duration_labels(out, "_sum", targets, t, kind);
	fputc('}', out);
	put_value(out, h->time_ns, true);
	put_duration_labels(out, "_count", targets, t, kind);
	fputc('}', out);
	put_value(out, count, false);
}

/* How long the faults of the targets whose processes' faults are timed took. */
static void put_target_durations(FILE *out, const struct counters *counts,
				 const struct target_list *targets)
{
	bool header = false;

	for (size_t i = 0; i < counts->nr_targets; i++) {
		const struct target_total *t = &counts->targets[i];

		if (!t->timed)
			continue;
		put_header_once(out, &header, DURATION_METRIC, "histogram",
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
		put_header(out, name, "counter", help);
	for (size_t i = 0; i < n; i++) {
		fprintf(out, "%s{", name);
		put_target_label(out, targets, p[i].number);
		fputc('}', out);
		put_microseconds(out, full ? p[i].psi.full_total_us : p[i].psi.some_total_us);
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

/* A series per target; type: "counter" or "gauge". */
static void put_targets(FILE *out, const struct counters *counts,
			const struct target_list *targets, const struct counter *c, const char *type)
{
	put_header(out, c->name, type, c->help);
	for (size_t i = 0; i < counts->nr_targets; i++) {
		fprintf(out, "%s{", c->name);
		put_target_label(out, targets, counts->targets[i].number);
		fputc('}', out);
		put_value(out, field_at(&counts->targets[i], c), c->nanoseconds);
	}
}

static void put_context(FILE *out, const struct counters *counts, const struct psi_memory *psi)
{
	if (counts->have_system) {
		put_counter(out, "pfprof_system_major_faults_total",
			    "Major page faults of the whole system since boot (/proc/vmstat pgmajfault).",
			    counts->pgmajfault, false);
		put_counter(out, "pfprof_swap_in_pages_total",
			    "Pages swapped in since boot (/proc/vmstat pswpin).", counts->pswpin, false);
		put_counter(out, "pfprof_swap_out_pages_total",
			    "Pages swapped out since boot (/proc/vmstat pswpout).", counts->pswpout, false);
	}
	if (psi) {
		put_gauge(out, "pfprof_memory_pressure_some_ratio",
			  "Share of the last 10 s in which some tasks stalled on memory (PSI avg10).",
			  psi->some_avg10 / 100);
		put_gauge(out, "pfprof_memory_pressure_full_ratio",
			  "Share of the last 10 s in which all tasks stalled on memory (PSI avg10).",
			  psi->full_avg10 / 100);
	}
}

/*
 * What the processes and targets waited for: delay accounting's waits where
 * measured, whether they are measured now, the cgroups' PSI. 0 or -ENOMEM.
 */
static int put_waits(FILE *out, struct counters *counts, const struct target_list *targets)
{
	for (size_t i = 0; i < ARRAY_SIZE(stall_metrics); i++) {
		put_process_stalls(out, counts, targets, &stall_metrics[i]);
		put_target_stalls(out, counts, targets, &stall_metrics[i]);
	}
	/* Beside series that stopped growing: off, or no wait? */
	put_header(out, "pfprof_delay_accounting_enabled", "gauge",
		   "Whether the waits are measured now (the mp3 module sends them and"
		   " kernel.task_delayacct is on): 1 or 0.");
	fprintf(out, "pfprof_delay_accounting_enabled %d\n", counts->stalls_known);
	return put_cgroup_pressure(out, targets);
}

/* owner="<uid>", or "others" past the owners told apart. */
static void put_owner_series(FILE *out, const char *name, uint32_t owner, uint64_t value)
{
	if (owner == MP3_OWNER_OTHERS)
		fprintf(out, "%s{owner=\"others\"} %" PRIu64 "\n", name, value);
	else
		fprintf(out, "%s{owner=\"%" PRIu32 "\"} %" PRIu64 "\n", name, owner, value);
}

/* What users lost: a uint64_t of struct owner_losses at offset. */
static const struct counter owner_losses[] = {
	{ "pfprof_user_records_dropped_total",
	  "Records of a user's registrations that the mp3 module did not write, the user past"
	  " its records_per_user in a sample, or users together past theirs.",
	  offsetof(struct owner_losses, ring_dropped), false },
	{ "pfprof_user_log_lines_dropped_total",
	  "Lines of a user's registrations that pfprofd did not log, the user past its"
	  " user_log_lines a second, or users together past theirs.",
	  offsetof(struct owner_losses, log_dropped), false },
};

/* What each user that lost something lost, since pfprofd started: no series for the others. */
static void put_owner_losses(FILE *out, const struct ownerbudget *b)
{
	for (size_t k = 0; k < ARRAY_SIZE(owner_losses); k++) {
		const struct counter *c = &owner_losses[k];

		put_header(out, c->name, "counter", c->help);
		for (size_t i = 0; i < b->nr_owners; i++)
			if (field_at(&b->owners[i], c))
				put_owner_series(out, c->name, b->owners[i].owner,
						 field_at(&b->owners[i], c));
	}
}

int promfile_render(FILE *out, struct counters *counts, const struct target_list *targets,
		    const struct psi_memory *psi)
{
	int err;

	for (size_t i = 0; i < ARRAY_SIZE(per_process); i++)
		put_processes(out, counts, targets, &per_process[i]);
	put_processes_by_mapping(out, counts, targets);
	for (size_t i = 0; i < ARRAY_SIZE(per_target); i++)
		put_targets(out, counts, targets, &per_target[i], "counter");
	put_targets(out, counts, targets, &target_processes, "gauge");
	put_target_durations(out, counts, targets);
	err = put_waits(out, counts, targets);
	if (err)
		return err;
	for (size_t i = 0; i < ARRAY_SIZE(totals); i++)
		put_counter(out, totals[i].name, totals[i].help, field_at(counts, &totals[i]),
			    totals[i].nanoseconds);
	put_header(out, "pfprof_registered_processes", "gauge",
		   "Processes the mp3 module samples.");
	fprintf(out, "pfprof_registered_processes %zu\n", counts->registered);
	for (size_t i = 0; i < ARRAY_SIZE(module_totals); i++)
		put_counter(out, module_totals[i].name, module_totals[i].help,
			    load_counter_total(load_counter_at(counts, &module_totals[i])),
			    module_totals[i].nanoseconds);
	put_owner_losses(out, &counts->owners);
	put_context(out, counts, psi);
	return ferror(out) ? -EIO : 0;
}

static int file_path(char *buf, size_t size, const char *dir, const char *name)
{
	int len = snprintf(buf, size, "%s/%s", dir, name);

	return len < 0 || (size_t)len >= size ? -ENAMETOOLONG : 0;
}

int promfile_write(const char *dir, struct counters *counts, const struct target_list *targets,
		   const struct psi_memory *psi)
{
	struct atomic_file f;
	char path[PATH_MAX];
	int err = file_path(path, sizeof(path), dir, PROMFILE_NAME);

	/* The temporary pfprof.prom.XXXXXX does not end in ".prom": node_exporter skips it. */
	if (!err)
		err = atomic_file_begin(&f, path);
	if (err)
		return err;
	err = promfile_render(f.out, counts, targets, psi);
	if (err) {
		atomic_file_abort(&f);
		return err;
	}
	/*
	 * Not durable: rewritten every few seconds. Readable by all, unlike the
	 * logs (privfile.h): node_exporter reads it as its own user and serves
	 * it to whoever connects (README, "Who may profile whom").
	 */
	return atomic_file_commit(&f, 0644, false);
}
