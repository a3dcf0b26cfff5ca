// SPDX-License-Identifier: GPL-2.0
#include "promfile.h"

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stddef.h>
#include <string.h>

#include "atomicfile.h"
#include "clock.h"

/*
 * A counter kept as a uint64_t at offset in its struct (struct counters,
 * struct proc_entry or struct target_total).
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

int promfile_render(FILE *out, struct counters *counts, const struct target_list *targets,
		    const struct psi_memory *psi)
{
	for (size_t i = 0; i < ARRAY_SIZE(per_process); i++)
		put_processes(out, counts, targets, &per_process[i]);
	put_processes_by_mapping(out, counts, targets);
	for (size_t i = 0; i < ARRAY_SIZE(per_target); i++)
		put_targets(out, counts, targets, &per_target[i], "counter");
	put_targets(out, counts, targets, &target_processes, "gauge");
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
