/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pfprofctl top's data: what the ring's per-process records and system
 * counters add up to between two looks, as rates.
 */
#ifndef PFPROF_TOPDATA_H
#define PFPROF_TOPDATA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "mp3ring.h"
#include "targetsfile.h"
#include "proctable.h"

/* A target's processes in a snapshot (top_group()). */
struct top_group {
	struct proc_entry sum;		/* their counts summed; tgid 0, target the group's */
	size_t first, count;		/* they are procs[first .. first + count) */
};

struct top_snapshot {
	uint64_t first, end;		/* samples first .. end - 1 */
	double seconds;			/* from the sample before first to end - 1 */
	uint64_t missed;		/* samples the reader could not get */
	uint64_t lost;			/* records it could not get */
	uint64_t pgmajfault, pswpin, pswpout;	/* system-wide, in the snapshot */
	struct proc_entry *procs;	/* sorted by major faults, then minor, then CPU */
	size_t nr_procs;
	struct top_group *groups;	/* after top_group(), in the same order; else NULL */
	size_t nr_groups;
	/* The processes' waits are known: the ring has them and delay accounting is on. */
	bool stalls;
};

struct top_reader {
	const struct mp3ring *ring;
	uint64_t next;			/* the next sample to read */
	struct mp3_ring_sample prev;	/* the last sample read */
	bool have_prev;
	struct proc_table procs;	/* counts since the last snapshot, and names */
};

/* Starts at the newest sample: the first snapshot covers what comes after. */
int top_reader_init(struct top_reader *r, const struct mp3ring *ring);
void top_reader_free(struct top_reader *r);

/*
 * What was published since the last call; 0 or -errno. Free with
 * top_snapshot_free(). The processes of registered (NULL: none) are in it
 * too, with zero counts if they had no records: a module that visits only
 * the processes that ran (MP3_RING_ACTIVE_ONLY) writes none while one sleeps.
 */
int top_take(struct top_reader *r, struct top_snapshot *snap, const struct pidlist *registered);
void top_snapshot_free(struct top_snapshot *snap);

/*
 * Groups the snapshot's processes by target: each group's processes in
 * order, the groups ordered as processes are, by their sums. 0 or -ENOMEM.
 */
int top_group(struct top_snapshot *snap);

/*
 * Per second over the snapshot; CPU in percent of one CPU; a wait (the
 * memory stall, swap-in to compaction, or block I/O) in percent of the
 * snapshot's time, threads added, as CPU is: a process of 4 threads all
 * waiting shows 400.
 */
double top_rate(const struct top_snapshot *snap, uint64_t count);
double top_cpu_percent(const struct top_snapshot *snap, const struct proc_entry *p);
double top_stall_percent(const struct top_snapshot *snap, const struct proc_entry *p);
double top_io_wait_percent(const struct top_snapshot *snap, const struct proc_entry *p);
/*
 * The time a process with latency spent in the kernel's fault handler, in
 * percent of the snapshot's time, threads added; meaningful only if p->timed.
 */
double top_fault_percent(const struct top_snapshot *snap, const struct proc_entry *p);

#endif /* PFPROF_TOPDATA_H */
