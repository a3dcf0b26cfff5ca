/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Refault distances, from the page events of the pages log (logformat.h)
 * replayed in order: for each page read back from swap, or of a file read
 * again, how long it was away and how many pages its owner evicted in
 * between (sent to swap, and dropped from the page cache where the log
 * has the owner's evictions: a unit's or cgroup's asked for with
 * "charged"). That is mm/workingset.c's refault distance counted in the
 * owner's own evictions: had the owner had that many more pages of
 * memory, the page would still have been there. The distances' quantiles
 * answer "how much more memory would have kept X % of these pages in"
 * (refaults_extra()).
 *
 * An owner is a target (a unit, cgroup, tree or name: the events' target)
 * or, for a process added alone (target 0), its PID. A page read back
 * whose swap-out was not replayed (before the log's first line, evicted
 * again without a write: a clean page of the swap cache, or shmem written
 * out while no traced process mapped it) has no distance: it is counted in
 * unmatched.
 *
 * The owner's own evictions are the clock of a page its own limit pushed
 * out (a unit's or cgroup's memory.max). A page the machine's reclaim
 * pushed out had the whole machine's evictions in between; with
 * machine_clock, distances count those: the machine's pages written to
 * swap between the samples that carried the two events (the pages log's
 * sys_pswpout), the memory the machine would have needed beyond what it
 * had. The log has no machine's clock of file evictions: on it, a file's
 * page read again has no distance.
 */
#ifndef PFPROF_REFAULTS_H
#define PFPROF_REFAULTS_H

#include <stddef.h>
#include <stdint.h>

#include "logformat.h"

/* A page read back: when, its distance in pages, its time away. */
struct refault {
	uint64_t at_ns, distance, away_ns;
	uint32_t pages;
};

struct refault_owner {
	uint32_t target, pid;		/* pid: 0 unless target is 0 */
	char comm[24];			/* the last name its events gave */
	uint64_t evicted;		/* pages sent to swap or evicted so far: its clock */
	/* In the window: pages sent out, faulted back from the cache, read back. */
	uint64_t out_pages, in_pages, read_pages;
	/*
	 * In the window: pages back (read or cached) whose swap-out was
	 * replayed; a shmem page sent out while no traced process mapped it
	 * comes back without one.
	 */
	uint64_t back_pages;
	uint64_t unmatched;		/* pages read back without a distance */
	uint64_t stall_ns;		/* what the swap-ins cost the faulting threads */
	/*
	 * In the window: pages of files read again, those of them without an
	 * eviction replayed (no distance), and pages of files evicted.
	 */
	uint64_t file_refault_pages, file_unmatched, file_evicted_pages;
	struct refault *refaults;	/* the window's pages read back with a distance */
	size_t nr_refaults, refaults_cap;
};

/*
 * Where a page went: the slot of a swap-out, or the file page of an
 * eviction, replayed and not yet back.
 */
struct refault_slot {
	/*
	 * A slot's device << 48 | offset; a file page's, bit 63 and 63 bits of
	 * a hash of its file and place (among 2^20 pages out, two share one
	 * with a chance of 1 in 2^24); 0: free.
	 */
	uint64_t key;
	uint64_t evicted;		/* its owner's (or the machine's) clock after it went out */
	uint64_t out_ns;
	uint32_t owner;
};

/*
 * What a replay that never ends (a daemon's) does with each matched page
 * read back in its window, instead of keeping it in its owner's refaults.
 */
typedef void refault_sink(void *ctx, const struct refault_owner *o, const struct refault *rf);

struct refault_replay {
	uint64_t from_ns, to_ns;	/* the window: events outside it only move clocks */
	struct refault_owner *owners;
	size_t nr_owners, owners_cap;
	struct refault_slot *slots;	/* open addressing, a power of two */
	size_t nr_slots, slots_cap;
	/* Optional, set after refaults_init(): */
	refault_sink *sink;		/* the matched pages read back go there */
	void *sink_ctx;
	/*
	 * Pages out remembered at most (0: no bound), of them files' half at
	 * most; those sent out beyond it are counted in untracked, and have no
	 * distance when read back.
	 */
	size_t slots_max, nr_file_slots;
	uint64_t untracked;
	/* Distances in the machine's evictions (see above); lines without them match nothing. */
	bool machine_clock;
};

/* A replay counting the events in [from_ns, to_ns] (wall clock). */
void refaults_init(struct refault_replay *r, uint64_t from_ns, uint64_t to_ns);
void refaults_free(struct refault_replay *r);

/* Replays one event, the log's next. 0, or -ENOMEM (the replay is then incomplete). */
int refaults_add(struct refault_replay *r, const struct log_page *pg);

/*
 * The pages of memory the owner would have needed beyond what it had for
 * share (0 to 1) of its window's matched pages read back to have stayed
 * in: the smallest distance at or under which that share of them lies
 * (sorts o->refaults). 0 without refaults.
 */
uint64_t refaults_extra(struct refault_owner *o, double share);

/*
 * The owner's miss curve: into distance[i], the pages beyond what it had
 * that would have kept (i + 1) / points of its window's matched pages read
 * back in, for i below points (sorts o->refaults once). 0 without refaults.
 */
void refaults_curve(struct refault_owner *o, size_t points, uint64_t *distance);

/* Calls fn for every page whose swap-out was replayed and its return not: still in swap. */
void refaults_for_each_out(const struct refault_replay *r,
			   void (*fn)(const struct refault_slot *s, void *ctx), void *ctx);

/* The median time away of the owner's window's matched pages read back, ns (sorts). */
uint64_t refaults_median_away(struct refault_owner *o);

#endif /* PFPROF_REFAULTS_H */
