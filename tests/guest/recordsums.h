/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The ring's records added up per process over samples, checked against
 * each sample's sums: what the records, targets and top tests read.
 */
#ifndef PFPROF_GUEST_RECORDSUMS_H
#define PFPROF_GUEST_RECORDSUMS_H

#include "harness.h"

#define MAX_PROCS 1024

#define TOP_OUT "/tmp/top.out"

/* What the records of a run of samples say about one process. */
struct proc_total {
	pid_t tgid;
	uint64_t minor, major, cpu_ns;
	uint64_t counts;		/* MP3_RECORD_COUNTS records */
	uint64_t last_sample;		/* seq of the sample of its last counts record */
	uint64_t left_sample;		/* of its last MP3_RECORD_LEFT record */
	unsigned int lefts;		/* MP3_RECORD_LEFT records */
	uint32_t target;		/* of its last record */
	char comm[24];			/* its last MP3_RECORD_COMM */
	unsigned int names;		/* MP3_RECORD_COMM records */
};

struct record_totals {
	struct proc_total procs[MAX_PROCS];
	int nr;
	uint64_t lost;			/* records overwritten before they were read */
};

/* tgid's entry in t, added (zeroed) if it has none; fails past MAX_PROCS. */
struct proc_total *proc_of(struct record_totals *t, pid_t tgid);

/* One sample's records as add_records() reads them: their sums, for the check. */
struct sample_sums {
	struct record_totals *totals;
	uint64_t seq;
	uint64_t minor, major, cpu_ns, counts;
};

/* mp3ring_for_each_record()'s callback: r into the struct sample_sums ctx. */
void add_record(void *ctx, const struct mp3_proc_record *r);

/* Adds one sample's records; checks that their counts add up to the sample. */
void add_records(const struct mp3ring *ring, const struct mp3_ring_sample *s,
		 struct record_totals *t);

/* The records of samples [from, to); fails if a sample is missed. */
void total_records(const struct mp3ring *ring, uint64_t from, uint64_t to,
		   struct record_totals *t);

/* The records of the last total_records() of a test: too large for a stack. */
extern struct record_totals records_seen;

/* Whether the module visits only the processes that ran (sampler=events). */
bool active_only(const struct mp3ring *ring);

#endif /* PFPROF_GUEST_RECORDSUMS_H */
