/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What pfprofd has counted since it started, or since the counters it saved
 * (counterfile.h): per process its name, faults, CPU time and waits (those
 * measured), per target the same and how long its faults took (those
 * timed), the processes' counts summed, samples written and lost, the
 * module's sampler cost and the system's paging counters at the last
 * sample. The collector feeds it with
 * every sample and record it reads; the per-process log takes its names
 * from it, the Prometheus export (exporter.h) everything. Counters only
 * grow: a process's start again from 0 only when its name changes, and the
 * module's, which restart at each load, are summed over the loads. A
 * target's (targets.h) keep the counts of its processes that are gone.
 */
#ifndef PFPROF_COUNTERS_H
#define PFPROF_COUNTERS_H

#include <stdbool.h>
#include <stdint.h>

#include <linux/mp3.h>

#include "cgroupmemory.h"
#include "latency.h"
#include "logformat.h"
#include "ownerbudget.h"
#include "proctable.h"
#include "refaultdist.h"
#include "refaults.h"
#include "refaultwindow.h"
#include "stalls.h"
#include "targets.h"
#include "targetsfile.h"

/* proc_entry.marks: the process's Prometheus series (counters_select_series()). */
#define SERIES_EXPORTED	1u	/* it has one */
#define SERIES_OMITTED	2u	/* left out by the cap, and counted so */
/*
 * Its waits (stall_us) were measured at least once since its name: they
 * are exported. Sticky, so that a series does not come and go with
 * kernel.task_delayacct: while it is off the waits stop growing.
 */
#define SERIES_STALLS	4u

/* A counter of the module's that starts from 0 at every module load. */
struct load_counter {
	uint64_t load_id;	/* the load that current counts */
	uint64_t current;	/* the module's value in that load */
	uint64_t before;	/* summed over the loads before it */
};

/* A target's processes summed, those gone too: a record's counts go to its process and here. */
struct target_total {
	uint32_t number;		/* the records' target, never 0 */
	uint64_t minor, major, cpu_ns;
	uint64_t stall_us[STALL_KINDS];	/* the waits measured */
	bool stalls;			/* one of its records' waits was measured: exported */
	/* How long its processes' faults took (ring version 8), those gone too. */
	struct latency_hist latency[LATENCY_KINDS];
	bool timed;			/* a latency record came: exported */
	/* Its pages sent to swap and taken back (ring version 10), those gone too. */
	uint64_t swap_out, swap_in_cached, swap_in_read, swap_stall_ns;
	/* Its pages of files read again after reclaim dropped them (ring version 13). */
	uint64_t file_refaults;
	bool paged;			/* a swap or refault record came: exported */
	/* Its pages read back whose swap-out pfprofd saw, by refault distance. */
	struct refault_dist refaults;
	/* The same, finer, of the last minutes; made at its first. */
	struct refault_window *recent;
	/*
	 * The same distances on the machine's clock (refaults.h): the memory
	 * the machine would have needed, for pages its reclaim pushed out.
	 */
	struct refault_window *machine_recent;
	/* Its cgroup's memory at the last reading (groupmemory.h): a unit's or cgroup's with pages. */
	struct cgroup_memory memory;
	bool memory_read;		/* exported while so */
	uint64_t processes;		/* registered, at the last counters_select_series() */
	uint64_t records;		/* since the last counters_forget_targets() */
};

struct counters {
	/*
	 * Per process, by tgid: those a record came for since the sweep
	 * before last (counters_sweep()). proc_entry.samples counts the
	 * records since the last sweep.
	 */
	struct proc_table procs;
	uint64_t minor, major, cpu_ns;		/* summed over the registered processes */
	uint64_t samples_written;		/* sample lines written to the log */
	uint64_t samples_lost;			/* samples overwritten before they were read */
	uint64_t omitted;			/* processes left out by the series cap */
	struct load_counter sampler_ns, sampler_runs;
	/* Processes of followed trees, cgroups and names the module left out. */
	struct load_counter follow_skipped, follow_missed;
	/* Faults of "latency" registrations the module could not time. */
	struct load_counter latency_missed;
	/* Swap events of "pages" registrations the module could not write. */
	struct load_counter swap_dropped;
	/* The whole system at the last sample that had its counters. */
	bool have_system;
	uint64_t pgmajfault, pswpin, pswpout;
	size_t registered;			/* processes the module samples */
	/*
	 * The waits of the sample being read, and of its records, are measured
	 * (the ring has MP3_RING_STALLS and delay accounting is on): set before
	 * its records are added; those of others are not added.
	 */
	bool stalls_known;
	/* The module says which pages of files were read again (ring version 13). */
	bool file_refaults_known;
	struct target_total *targets;		/* in the order first recorded */
	size_t nr_targets, targets_cap;
	/*
	 * The targets' swap events replayed (counters_add_page()), made at the
	 * first: where each page went, to know its refault distance when back,
	 * on its target's clock and on the machine's.
	 */
	struct refault_replay *replay, *machine_replay;
	/* Users' lines in the logs, and what each lost there and in the ring, since start. */
	struct ownerbudget owners;
};

/* A sample read from the ring; has_system: its system counters are valid (version 2). */
void counters_add_sample(struct counters *c, const struct mp3_ring_sample *s, bool has_system);
void counters_add_lost(struct counters *c, uint64_t count);
/*
 * A record of a sample read: a name, or counts or durations to add to the
 * process and to its target (if it has one), their waits only if
 * stalls_known. A new name restarts the process's counters, not its
 * target's. Returns the process's entry, or NULL without memory (for
 * either).
 */
struct proc_entry *counters_add_record(struct counters *c, const struct mp3_proc_record *r);
/* Its target's share of a record (none without a target); false without memory. */
bool counters_add_target_record(struct counters *c, const struct mp3_proc_record *r);

/*
 * A swap event of a target's process, as the pages log has it: its pages
 * read back get their refault distance into the target's histogram and
 * window, and on the machine's clock into its machine window (those of a
 * process registered alone are not replayed). 0, or -ENOMEM: the replay
 * goes on, the pages it lost have no distance.
 */
int counters_add_page(struct counters *c, const struct log_page *pg);

/* The total of target number, added if new; NULL without memory. */
struct target_total *counters_target(struct counters *c, uint32_t number);
/* The total of target number if it has one, else NULL. */
struct target_total *counters_find_target(struct counters *c, uint32_t number);

/*
 * Forgets the targets that are gone: not in the list read from the PID
 * file, no process registered and no record since the last call. Called
 * after the metrics are written, so that each shows its last counts once.
 */
void counters_forget_targets(struct counters *c, const struct target_list *listed);

/*
 * Forgets the processes no record came for since the last sweep: they were
 * unregistered or have exited; with @active_only (the ring's
 * MP3_RING_ACTIVE_ONLY) only those that left or are gone from /proc, the
 * others slept. The caller sweeps once per many samples.
 */
void counters_sweep(struct counters *c, bool active_only);

/* The module's sampler cost, as its header says now. */
void counters_set_sampler(struct counters *c, uint64_t load_id, uint64_t ns_total,
			  uint64_t runs);
/* The processes the module left out of what it follows, as its header says now. */
void counters_set_unfollowed(struct counters *c, uint64_t load_id, uint64_t skipped,
			     uint64_t missed);
/* The faults the module could not time, as its header says now. */
void counters_set_latency_missed(struct counters *c, uint64_t load_id, uint64_t missed);
void counters_set_swap_dropped(struct counters *c, uint64_t load_id, uint64_t dropped);
uint64_t load_counter_total(const struct load_counter *lc);

/*
 * Marks which processes have a Prometheus series, at most max of the
 * registered ones: those that had one keep it, the others are taken in
 * table order and the rest counted as omitted, once each. Counts each
 * target's registered processes, whatever max. Returns 0 or -ENOMEM
 * (nothing changed then).
 */
int counters_select_series(struct counters *c, const struct pidlist *registered,
			   unsigned int max);

void counters_free(struct counters *c);

#endif /* PFPROF_COUNTERS_H */
