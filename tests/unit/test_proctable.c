// SPDX-License-Identifier: GPL-2.0
/* lib/proctable: the table of processes that pfprofctl top and pfprofd's metrics keep. */
#include <string.h>

#include "mp3ring.h"
#include "proctable.h"
#include "unit.h"

static void add_counts(struct proc_table *t, pid_t tgid, uint64_t minor)
{
	struct mp3_proc_record r = { .tgid = tgid, .type = MP3_RECORD_COUNTS };

	r.counts.minor_faults = minor;
	expect(proctable_apply(t, &r), "proctable_apply failed");
}

static bool even_tgid(struct proc_entry *e, void *ctx)
{
	(*(unsigned int *)ctx)++;
	e->marks = 1;
	return e->tgid % 2 == 0;
}

/* keep() sees every entry and may change it; the chosen ones stay, with what they hold. */
static void test_retain(void)
{
	struct proc_table t = { 0 };
	unsigned int seen = 0;

	/* Enough to make the table grow more than once. */
	for (pid_t tgid = 1; tgid <= 1000; tgid++)
		add_counts(&t, tgid, (uint64_t)tgid * 10);
	expect(!proctable_retain(&t, even_tgid, &seen), "proctable_retain failed");
	expect(seen == 1000 && t.used == 500, "keep() saw %u, %zu kept", seen, t.used);
	for (pid_t tgid = 2; tgid <= 1000; tgid += 2) {
		struct proc_entry *e = proctable_find_or_add(&t, tgid);

		expect(e->minor == (uint64_t)tgid * 10 && e->marks == 1, "process %d changed",
		       (int)tgid);
	}
	expect(t.used == 500, "an odd process was still there");
	proctable_free(&t);
}

/*
 * Finding a process the table has moves no entry, however full the table:
 * pfprofd keeps an entry's name across the lookup of another's (a pfprofd
 * crashed reading a moved name while Apache forked a hundred workers). A
 * process it has not is not added by proctable_find().
 */
static void test_find_moves_nothing(void)
{
	struct proc_table t = { 0 };
	struct proc_entry *first;
	pid_t tgid;

	/* Up to the size at which the next proctable_find_or_add() used to grow it. */
	for (tgid = 1; tgid <= 128; tgid++)
		add_counts(&t, tgid, 1);
	expect(t.cap == 256 && (t.used + 1) * 2 > t.cap, "%zu of %zu used", t.used, t.cap);
	first = proctable_find(&t, 1);
	expect(first && proctable_find_or_add(&t, 2) && proctable_find(&t, 1) == first &&
	       t.cap == 256, "finding process 2 moved process 1 (%p, now %p; %zu slots)",
	       (void *)first, (void *)proctable_find(&t, 1), t.cap);
	expect(!proctable_find(&t, tgid) && t.used == (size_t)tgid - 1,
	       "proctable_find(%d) found or added a process it did not have", (int)tgid);
	proctable_free(&t);
}

/*
 * A sweep forgets the processes without counts since the last one, unless
 * marked to be kept, and zeroes the others'.
 */
static void test_sweep(void)
{
	struct proc_table t = { 0 };
	struct proc_entry *e;

	add_counts(&t, 1, 5);
	add_counts(&t, 2, 7);
	proctable_find_or_add(&t, 3)->marks = 4 | 1;
	proctable_sweep(&t, 4);
	e = proctable_find_or_add(&t, 3);
	expect(t.used == 3 && e->marks == 1, "%zu processes, marks %#x: the marked one not kept,"
	       " its mark not cleared, or another mark cleared", t.used, e->marks);
	add_counts(&t, 2, 3);
	proctable_sweep(&t, 4);
	expect(t.used == 1, "%zu processes after the sweep, want 1", t.used);
	e = proctable_find_or_add(&t, 2);
	expect(e->minor == 0 && e->samples == 0, "counters not zeroed");
	proctable_free(&t);
}

/* Each record, a name or counts, sets the process's target: the last one wins. */
static void test_target(void)
{
	struct mp3_proc_record r = { .tgid = 7, .type = MP3_RECORD_COMM, .comm = "sh",
				     .target = 0x40000001U };
	struct proc_table t = { 0 };
	struct proc_entry *e = proctable_apply(&t, &r);

	expect(e && e->target == 0x40000001U, "a name record left target %u",
	       e ? e->target : 0);
	r = (struct mp3_proc_record){ .tgid = 7, .type = MP3_RECORD_COUNTS, .target = 5 };
	r.counts.minor_faults = 2;
	e = proctable_apply(&t, &r);
	expect(e->target == 5 && e->minor == 2 && !strcmp(e->comm, "sh"),
	       "counts record: target %u, minor %llu, comm '%s'", e->target,
	       (unsigned long long)e->minor, e->comm);
	proctable_free(&t);
}

/* A counts record's waits add up per kind, and a sweep zeroes them with the rest. */
static void test_stalls(void)
{
	struct mp3_proc_record r = { .tgid = 9, .type = MP3_RECORD_COUNTS,
				     .stalls = { .swapin_us = 10, .thrashing_us = 20, .reclaim_us = 30,
						 .compact_us = 40, .blkio_us = 500 } };
	struct proc_table t = { 0 };
	struct proc_entry *e;

	proctable_apply(&t, &r);
	e = proctable_apply(&t, &r);
	expect(e->stall_us[STALL_SWAPIN] == 20 && e->stall_us[STALL_COMPACT] == 80 &&
	       e->stall_us[STALL_BLKIO] == 1000 && stalls_memory_us(e->stall_us) == 200,
	       "swapin %llu, compact %llu, blkio %llu, memory %llu",
	       (unsigned long long)e->stall_us[STALL_SWAPIN],
	       (unsigned long long)e->stall_us[STALL_COMPACT],
	       (unsigned long long)e->stall_us[STALL_BLKIO],
	       (unsigned long long)stalls_memory_us(e->stall_us));
	proctable_sweep(&t, 0);
	e = proctable_find_or_add(&t, 9);
	expect(!stalls_memory_us(e->stall_us) && !e->stall_us[STALL_BLKIO], "waits not zeroed");
	proctable_free(&t);
}

/*
 * Latency records add up per kind and bucket and mark the process timed; a
 * sweep zeroes them with the rest, the mark stays.
 */
static void test_latency(void)
{
	struct mp3_proc_record r = { .tgid = 9, .type = MP3_RECORD_LATENCY };
	struct proc_table t = { 0 };
	struct proc_entry *e = proctable_find_or_add(&t, 9);

	expect(e && !e->timed, "a process without latency records is timed");
	r.latency.bucket = 2;
	r.latency.faults = 3;
	r.latency.time_ns = 4000;
	proctable_apply(&t, &r);
	proctable_apply(&t, &r);
	r.latency.major = 1;
	r.latency.bucket = 15;
	r.latency.faults = 1;
	r.latency.time_ns = 9000000;
	e = proctable_apply(&t, &r);
	expect(e->timed && e->latency[LATENCY_MINOR].faults[2] == 6 &&
	       e->latency[LATENCY_MINOR].time_ns == 8000 &&
	       e->latency[LATENCY_MAJOR].faults[15] == 1 &&
	       e->latency[LATENCY_MAJOR].time_ns == 9000000 &&
	       latency_count(&e->latency[LATENCY_MINOR]) == 6 &&
	       latency_count(&e->latency[LATENCY_MAJOR]) == 1, "the records not added up by kind");
	add_counts(&t, 9, 1);
	proctable_sweep(&t, 0);
	e = proctable_find_or_add(&t, 9);
	expect(e->timed && !latency_count(&e->latency[LATENCY_MINOR]) &&
	       !e->latency[LATENCY_MAJOR].time_ns, "durations not zeroed, or the mark gone");
	proctable_free(&t);
}

/*
 * A record of no process (a cgroup's swap-out, tgid 0) is none of the
 * table's: no entry is made, and the table does not grow with them.
 */
static void test_no_process(void)
{
	struct mp3_proc_record cgroup_out = { .type = MP3_RECORD_CGROUP_SWAP, .target = 4 };
	struct mp3_proc_record refault = { .type = MP3_RECORD_REFAULT, .tgid = 7 };
	struct proc_table t = { 0 };

	expect(!mp3ring_record_of_process(&cgroup_out) && mp3ring_record_of_process(&refault),
	       "which records are of a process");
	for (int i = 0; i < 1000; i++)
		expect(!proctable_find_or_add(&t, 0), "an entry of process 0");
	expect(!t.used, "%zu entries used by records of no process", t.used);
	proctable_free(&t);
}

UNIT_TESTS(UNIT_TEST(retain), UNIT_TEST(find_moves_nothing), UNIT_TEST(sweep), UNIT_TEST(target), UNIT_TEST(stalls),
	   UNIT_TEST(latency), UNIT_TEST(no_process));
