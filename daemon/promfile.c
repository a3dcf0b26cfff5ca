// SPDX-License-Identifier: GPL-2.0
#include "promfile.h"

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stddef.h>

#include "atomicfile.h"
#include "prommemory.h"
#include "promrefaults.h"
#include "promtext.h"
#include "promwaits.h"

#define TOTAL(field) offsetof(struct counters, field)
#define PROC(field) offsetof(struct proc_entry, field)
#define TARGET(field) offsetof(struct target_total, field)

static const struct prom_counter totals[] = {
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

static const struct prom_counter per_process[] = {
	{ "pfprof_process_minor_faults_total",
	  "Minor page faults of a registered process.", PROC(minor), false },
	{ "pfprof_process_major_faults_total",
	  "Major page faults of a registered process.", PROC(major), false },
	{ "pfprof_process_cpu_seconds_total",
	  "CPU time (user and system) of a registered process.", PROC(cpu_ns), true },
};

/* Not capped like the processes': there are few targets. */
static const struct prom_counter per_target[] = {
	{ "pfprof_target_minor_faults_total",
	  "Minor page faults of a target's processes, those gone included.", TARGET(minor), false },
	{ "pfprof_target_major_faults_total",
	  "Major page faults of a target's processes, those gone included.", TARGET(major), false },
	{ "pfprof_target_cpu_seconds_total",
	  "CPU time (user and system) of a target's processes, those gone included.",
	  TARGET(cpu_ns), true },
};

/* Of the targets added with pages only: a target without is not one that does not swap. */
static const struct prom_counter per_paged_target[] = {
	{ "pfprof_target_swap_out_pages_total",
	  "Pages of a target's processes written to swap, of a target added with pages.",
	  TARGET(swap_out), false },
	{ "pfprof_target_swap_in_pages_total",
	  "Pages of a target's processes read back from swap (the kernel's pswpin), of a target"
	  " added with pages.", TARGET(swap_in_read), false },
	{ "pfprof_target_swap_in_cached_pages_total",
	  "Pages of a target's processes faulted back from the swap cache, nothing read, of a"
	  " target added with pages.", TARGET(swap_in_cached), false },
	{ "pfprof_target_swap_in_stall_seconds_total",
	  "Time the swap-ins of a target's processes stalled the faulting threads, of a target"
	  " added with pages.", TARGET(swap_stall_ns), true },
};

/* Of those, with a module that says which pages of files were read again. */
static const struct prom_counter per_refaulting_target = {
	"pfprof_target_file_refault_pages_total",
	"Pages of files a target's processes read again after reclaim had dropped them from the"
	" page cache (the kernel's workingset_refault_file), of a target added with pages.",
	TARGET(file_refaults), false
};

static const struct prom_counter target_processes = {
	"pfprof_target_processes", "Registered processes of a target.", TARGET(processes), false
};

/* The module's counters that start from 0 at each load: a struct load_counter at offset. */
static const struct prom_counter module_totals[] = {
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
	{ "pfprof_swap_events_dropped_total",
	  "Swap-outs and swap-ins of processes registered with pages that the mp3 module could"
	  " not write: a CPU's buffer was full.", TOTAL(swap_dropped), false },
};

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

static const struct load_counter *load_counter_at(const struct counters *counts,
						  const struct prom_counter *c)
{
	return (const struct load_counter *)((const char *)counts + c->offset);
}

static void put_processes(FILE *out, struct counters *counts, const struct target_list *targets,
			  const struct prom_counter *c)
{
	prom_put_header(out, c->name, "counter", c->help);
	for (size_t i = 0; i < counts->procs.cap; i++) {
		struct proc_entry *e = &counts->procs.slots[i];

		if (!e->tgid || !(e->marks & SERIES_EXPORTED))
			continue;
		prom_put_process_labels(out, c->name, e, targets);
		fputc('}', out);
		prom_put_value(out, prom_field_at(e, c), c->nanoseconds);
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

	prom_put_header(out, name, "counter",
		   "Major page faults of a process registered with maps, by mapping: anon ="
		   " swap-ins of private memory (heap, stacks), file = reads of mapped files,"
		   " shmem = swap-ins of shared memory. Faults not placed are in none.");
	for (size_t i = 0; i < counts->procs.cap; i++) {
		struct proc_entry *e = &counts->procs.slots[i];

		if (!e->tgid || !e->placed || !(e->marks & SERIES_EXPORTED))
			continue;
		for (int g = 0; g < MAPPING_GROUPS; g++) {
			prom_put_process_labels(out, name, e, targets);
			fprintf(out, ",mapping=\"%s\"}", proctable_mapping_group_word(g));
			prom_put_value(out, e->major_in[g], false);
		}
	}
}

/* Whether a target had a swap record: else the swap series are left out, headers too. */
static bool any_paged(const struct counters *counts)
{
	for (size_t i = 0; i < counts->nr_targets; i++)
		if (counts->targets[i].paged)
			return true;
	return false;
}

/* A series per target (those that paged only, if paged_only); type: "counter" or "gauge". */
static void put_targets(FILE *out, const struct counters *counts,
			const struct target_list *targets, const struct prom_counter *c, const char *type,
			bool paged_only)
{
	prom_put_header(out, c->name, type, c->help);
	for (size_t i = 0; i < counts->nr_targets; i++) {
		if (paged_only && !counts->targets[i].paged)
			continue;
		fprintf(out, "%s{", c->name);
		prom_put_target_label(out, targets, counts->targets[i].number);
		fputc('}', out);
		prom_put_value(out, prom_field_at(&counts->targets[i], c), c->nanoseconds);
	}
}

static void put_context(FILE *out, const struct counters *counts, const struct psi_memory *psi)
{
	if (counts->have_system) {
		prom_put_counter(out, "pfprof_system_major_faults_total",
			    "Major page faults of the whole system since boot (/proc/vmstat pgmajfault).",
			    counts->pgmajfault, false);
		prom_put_counter(out, "pfprof_swap_in_pages_total",
			    "Pages swapped in since boot (/proc/vmstat pswpin).", counts->pswpin, false);
		prom_put_counter(out, "pfprof_swap_out_pages_total",
			    "Pages swapped out since boot (/proc/vmstat pswpout).", counts->pswpout, false);
	}
	if (psi) {
		prom_put_gauge(out, "pfprof_memory_pressure_some_ratio",
			  "Share of the last 10 s in which some tasks stalled on memory (PSI avg10).",
			  psi->some_avg10 / 100);
		prom_put_gauge(out, "pfprof_memory_pressure_full_ratio",
			  "Share of the last 10 s in which all tasks stalled on memory (PSI avg10).",
			  psi->full_avg10 / 100);
	}
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
static const struct prom_counter owner_losses[] = {
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
		const struct prom_counter *c = &owner_losses[k];

		prom_put_header(out, c->name, "counter", c->help);
		for (size_t i = 0; i < b->nr_owners; i++)
			if (prom_field_at(&b->owners[i], c))
				put_owner_series(out, c->name, b->owners[i].owner,
						 prom_field_at(&b->owners[i], c));
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
		put_targets(out, counts, targets, &per_target[i], "counter", false);
	for (size_t i = 0; any_paged(counts) && i < ARRAY_SIZE(per_paged_target); i++)
		put_targets(out, counts, targets, &per_paged_target[i], "counter", true);
	if (any_paged(counts) && counts->file_refaults_known)
		put_targets(out, counts, targets, &per_refaulting_target, "counter", true);
	promrefaults_put(out, counts, targets);
	prommemory_put(out, counts, targets);
	put_targets(out, counts, targets, &target_processes, "gauge", false);
	promwaits_put_durations(out, counts, targets);
	err = promwaits_put(out, counts, targets);
	if (err)
		return err;
	for (size_t i = 0; i < ARRAY_SIZE(totals); i++)
		prom_put_counter(out, totals[i].name, totals[i].help, prom_field_at(counts, &totals[i]),
			    totals[i].nanoseconds);
	prom_put_header(out, "pfprof_registered_processes", "gauge",
		   "Processes the mp3 module samples.");
	fprintf(out, "pfprof_registered_processes %zu\n", counts->registered);
	for (size_t i = 0; i < ARRAY_SIZE(module_totals); i++)
		prom_put_counter(out, module_totals[i].name, module_totals[i].help,
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
