// SPDX-License-Identifier: GPL-2.0
/* daemon/counters: what the collector counts, which processes it forgets, which get series. */
#include <string.h>
#include <unistd.h>

#include "expect_counters.h"

static struct mp3_proc_record counts(pid_t tgid, uint64_t minor, uint64_t major, uint64_t cpu_ns)
{
	struct mp3_proc_record r = { .tgid = tgid, .type = MP3_RECORD_COUNTS };

	r.counts.minor_faults = minor;
	r.counts.major_faults = major;
	r.counts.cpu_ns = cpu_ns;
	return r;
}

static struct mp3_proc_record comm(pid_t tgid, const char *name)
{
	struct mp3_proc_record r = { .tgid = tgid, .type = MP3_RECORD_COMM };

	strncpy(r.comm, name, sizeof(r.comm) - 1);
	return r;
}

static void add(struct counters *m, struct mp3_proc_record r)
{
	expect(counters_add_record(m, &r), "counters_add_record failed");
}

static struct proc_entry *entry(struct counters *m, pid_t tgid)
{
	return proctable_find_or_add(&m->procs, tgid);
}

static void test_samples_summed(void)
{
	struct mp3_ring_sample s = { .minor_faults = 5, .major_faults = 2, .cpu_ns = 300,
				     .pgmajfault = 40, .pswpin = 7, .pswpout = 9 };
	struct counters m = { 0 };

	counters_add_sample(&m, &s, false);
	expect(!m.have_system, "a version 1 sample gave system counters");
	counters_add_sample(&m, &s, true);
	counters_add_lost(&m, 3);
	expect(m.minor == 10 && m.major == 4 && m.cpu_ns == 600, "sums %llu %llu %llu",
	       (unsigned long long)m.minor, (unsigned long long)m.major,
	       (unsigned long long)m.cpu_ns);
	/* Written is counted when the log writer has written the line, not here. */
	expect(m.samples_written == 0 && m.samples_lost == 3, "written %llu lost %llu",
	       (unsigned long long)m.samples_written, (unsigned long long)m.samples_lost);
	expect(m.have_system && m.pgmajfault == 40 && m.pswpin == 7 && m.pswpout == 9,
	       "system counters not taken");
	counters_free(&m);
}

static void test_records_per_process(void)
{
	struct counters m = { 0 };
	struct proc_entry *e;

	add(&m, comm(100, "work"));
	add(&m, counts(100, 10, 1, 1000));
	add(&m, counts(100, 5, 0, 500));
	add(&m, counts(200, 1, 1, 1));
	e = entry(&m, 100);
	expect(e->minor == 15 && e->major == 1 && e->cpu_ns == 1500 && !strcmp(e->comm, "work"),
	       "process 100: %llu %llu %llu %s", (unsigned long long)e->minor,
	       (unsigned long long)e->major, (unsigned long long)e->cpu_ns, e->comm);
	/* The same name again (registered again): the counters go on. */
	add(&m, comm(100, "work"));
	expect(entry(&m, 100)->minor == 15, "the same name reset the counters");
	/* A new name (an exec, or the PID reused) is a new series: from 0. */
	add(&m, comm(100, "other"));
	add(&m, counts(100, 2, 0, 0));
	e = entry(&m, 100);
	expect(e->minor == 2 && e->major == 0 && e->cpu_ns == 0 && !strcmp(e->comm, "other"),
	       "after a new name: %llu %llu %llu %s", (unsigned long long)e->minor,
	       (unsigned long long)e->major, (unsigned long long)e->cpu_ns, e->comm);
	expect(entry(&m, 200)->minor == 1, "process 200 was touched");
	counters_free(&m);
}

static bool exported(struct counters *m, pid_t tgid)
{
	return entry(m, tgid)->marks & SERIES_EXPORTED;
}

static void select_registered(struct counters *m, pid_t *pids, size_t count, unsigned int max)
{
	struct pidlist registered = { .pids = pids, .count = count };

	expect(!counters_select_series(m, &registered, max), "counters_select_series failed");
}

/* Only registered processes have series; the others stay counted, without one. */
static void test_select_registered_only(void)
{
	pid_t both[] = { 30, 10 }, one[] = { 30 };
	struct counters m = { 0 };

	add(&m, counts(10, 1, 0, 0));
	add(&m, counts(30, 1, 0, 0));
	select_registered(&m, both, 2, 100);
	expect(m.registered == 2 && exported(&m, 10) && exported(&m, 30),
	       "registered %zu, series of 10: %d, of 30: %d", m.registered, exported(&m, 10),
	       exported(&m, 30));
	select_registered(&m, one, 1, 100);
	expect(m.registered == 1 && !exported(&m, 10) && exported(&m, 30),
	       "after 10 left: registered %zu, series of 10: %d", m.registered, exported(&m, 10));
	expect(entry(&m, 10)->minor == 1, "10's counts went with its series");
	select_registered(&m, NULL, 0, 100);
	expect(m.registered == 0 && !exported(&m, 30), "nothing registered left a series");
	counters_free(&m);
}

/* A sweep forgets the processes no record came for since the sweep before. */
static void test_sweep_forgets_unrecorded(void)
{
	struct counters m = { 0 };

	add(&m, counts(10, 1, 0, 0));
	add(&m, counts(30, 1, 0, 0));
	counters_sweep(&m, false);
	expect(m.procs.used == 2, "both recorded, %zu kept", m.procs.used);
	add(&m, counts(30, 1, 0, 0));
	/* A name alone is not a sign of life: exited processes get none. */
	add(&m, comm(10, "gone"));
	counters_sweep(&m, false);
	expect(m.procs.used == 1 && entry(&m, 30)->minor == 2,
	       "after 10's last counts: %zu kept, 30's minor faults %llu", m.procs.used,
	       (unsigned long long)entry(&m, 30)->minor);
	counters_sweep(&m, false);
	expect(m.procs.used == 0, "nothing recorded, %zu kept", m.procs.used);
	counters_free(&m);
}

/*
 * Active-only ring: a sleeping process has no records and stays, until its
 * LEFT record or, that record lost, until it is gone from /proc.
 */
static void test_sweep_keeps_sleeping(void)
{
	/* Beyond any pid_max: no such process. */
	const pid_t self = getpid(), vanished = 0x7ffffff0, left = getppid();
	struct counters m = { 0 };
	struct mp3_proc_record gone = { .tgid = left, .type = MP3_RECORD_LEFT };

	add(&m, counts(self, 1, 0, 0));
	add(&m, counts(vanished, 1, 0, 0));
	add(&m, counts(left, 1, 0, 0));
	add(&m, gone);
	counters_sweep(&m, true);
	expect(m.procs.used == 3, "all recorded: %zu kept", m.procs.used);
	counters_sweep(&m, true);
	expect(m.procs.used == 1 && entry(&m, self)->minor == 1,
	       "asleep: %zu kept, want the live one and its counts", m.procs.used);
	add(&m, comm(left, "again"));
	counters_sweep(&m, true);
	expect(m.procs.used == 2, "named again, registered anew: %zu kept", m.procs.used);
	counters_sweep(&m, false);
	expect(m.procs.used == 0, "a version 3 ring: nothing recorded, %zu kept", m.procs.used);
	counters_free(&m);
}

static unsigned int exported_count(struct counters *m)
{
	unsigned int n = 0;

	for (size_t i = 0; i < m->procs.cap; i++)
		n += m->procs.slots[i].tgid && (m->procs.slots[i].marks & SERIES_EXPORTED);
	return n;
}

static void test_select_cap(void)
{
	pid_t pids[] = { 1, 2, 3, 4, 5 };
	struct counters m = { 0 };
	pid_t first[2];
	size_t n = 0;

	for (size_t i = 0; i < 3; i++)
		add(&m, counts(pids[i], 1, 0, 0));
	select_registered(&m, pids, 5, 2);
	expect(exported_count(&m) == 2 && m.omitted == 1, "3 processes, cap 2: %u series, %llu omitted",
	       exported_count(&m), (unsigned long long)m.omitted);
	for (size_t i = 0; i < 3; i++)
		if (exported(&m, pids[i]))
			first[n++] = pids[i];
	/* Two more: those with a series keep it, each left out is counted once. */
	add(&m, counts(4, 1, 0, 0));
	add(&m, counts(5, 1, 0, 0));
	select_registered(&m, pids, 5, 2);
	select_registered(&m, pids, 5, 2);
	expect(exported(&m, first[0]) && exported(&m, first[1]), "a process lost its series");
	expect(m.omitted == 3, "omitted %llu, want 3", (unsigned long long)m.omitted);
	/* A process with a series leaves: one that was left out takes its place. */
	select_registered(&m, (pid_t[]){ first[0], 4, 5 }, 3, 2);
	expect(exported(&m, first[0]) && exported_count(&m) == 2 && m.omitted == 3,
	       "after one left: %u series, %llu omitted", exported_count(&m),
	       (unsigned long long)m.omitted);
	/* A lower cap: series are dropped, no new omissions for processes counted before. */
	select_registered(&m, (pid_t[]){ first[0], 4, 5 }, 3, 1);
	expect(exported_count(&m) == 1 && exported(&m, first[0]), "cap 1: %u series",
	       exported_count(&m));
	select_registered(&m, (pid_t[]){ first[0], 4, 5 }, 3, 0);
	expect(exported_count(&m) == 0 && m.omitted == 4, "cap 0: %u series, %llu omitted",
	       exported_count(&m), (unsigned long long)m.omitted);
	counters_free(&m);
}

static void test_sampler_across_loads(void)
{
	struct counters m = { 0 };

	counters_set_sampler(&m, 0xa, 1000, 10);
	counters_set_sampler(&m, 0xa, 1500, 15);
	expect_sampler(&m, 1500, 15, "one load");
	counters_set_sampler(&m, 0xa, 1200, 12);
	expect_sampler(&m, 1500, 15, "a smaller value in the same load");
	/* A new load starts from 0: its counts come on top. */
	counters_set_sampler(&m, 0xb, 100, 1);
	expect_sampler(&m, 1600, 16, "after a reload");
}

#define UNIT_A 0x40000005U		/* a target the targets file names */
#define TREE_B 77U			/* a `pfprofctl run` tree, in no targets file */

static struct mp3_proc_record of_target(struct mp3_proc_record r, uint32_t target)
{
	r.target = target;
	return r;
}

/*
 * A target's totals keep the counts of its processes after they exit, are
 * swept, or are renamed; its processes are counted whatever the series cap.
 */
static void test_target_totals(void)
{
	struct counters m = { 0 };

	add(&m, of_target(comm(10, "web"), UNIT_A));
	add(&m, of_target(counts(10, 4, 1, 100), UNIT_A));
	add(&m, of_target(counts(11, 6, 0, 50), UNIT_A));
	add(&m, of_target(counts(20, 1, 1, 1), TREE_B));
	add(&m, counts(30, 9, 9, 9));
	expect(m.nr_targets == 2, "%zu targets, want 2 (none for target 0)", m.nr_targets);
	expect_target(&m, UNIT_A, 10, 1, 150, "two processes");
	select_registered(&m, (pid_t[]){ 10, 11, 20, 30 }, 4, 0);
	expect(counters_target(&m, UNIT_A)->processes == 2 &&
	       counters_target(&m, TREE_B)->processes == 1, "processes %llu and %llu, want 2, 1",
	       (unsigned long long)counters_target(&m, UNIT_A)->processes,
	       (unsigned long long)counters_target(&m, TREE_B)->processes);
	/* 11 exits and is swept; 10 execs: their counts stay in the target's. */
	counters_sweep(&m, false);
	add(&m, of_target(comm(10, "other"), UNIT_A));
	add(&m, of_target(counts(10, 1, 0, 0), UNIT_A));
	counters_sweep(&m, false);
	select_registered(&m, (pid_t[]){ 10 }, 1, 0);
	expect(m.procs.used == 1, "%zu processes after the sweeps", m.procs.used);
	expect_target(&m, UNIT_A, 11, 1, 150, "after an exit and an exec");
	expect(counters_target(&m, UNIT_A)->processes == 1 &&
	       counters_target(&m, TREE_B)->processes == 0, "processes %llu and %llu, want 1, 0",
	       (unsigned long long)counters_target(&m, UNIT_A)->processes,
	       (unsigned long long)counters_target(&m, TREE_B)->processes);
	counters_free(&m);
}

/*
 * A target is forgotten once it is in no targets file, has no process and got
 * no record since the last look: its last counts were shown once.
 */
static void test_forget_targets(void)
{
	struct target named = { .kind = TARGET_UNIT, .name = "web.service", .number = UNIT_A };
	struct target_list listed = { &named, 1 };
	struct counters m = { 0 };

	add(&m, of_target(counts(10, 1, 0, 0), UNIT_A));
	add(&m, of_target(counts(20, 1, 0, 0), TREE_B));
	select_registered(&m, NULL, 0, 0);
	counters_forget_targets(&m, &listed);
	expect(m.nr_targets == 2, "recorded since the last look, %zu kept", m.nr_targets);
	counters_forget_targets(&m, &listed);
	expect(m.nr_targets == 1 && m.targets[0].number == UNIT_A,
	       "%zu kept, want only the listed one", m.nr_targets);
	counters_forget_targets(&m, &(struct target_list){ 0 });
	expect(m.nr_targets == 0, "%zu kept after it left the targets file", m.nr_targets);
	counters_free(&m);
}

/*
 * Waits measured go to the process and its target and mark both for
 * export; those of samples not measured are not added, and a new name
 * restarts the process's, not its target's.
 */
static void test_stalls(void)
{
	static const uint32_t us[STALL_KINDS] = { 1, 20, 300, 4000, 50000 };
	static const uint64_t once[STALL_KINDS] = { 1, 20, 300, 4000, 50000 };
	static const uint64_t none[STALL_KINDS] = { 0 };
	struct counters m = { 0 };

	add_target_process(&m, 7, "db", 0x40000003U, 0, 0, 0);
	add_stalls(&m, 7, us);
	expect(!(entry(&m, 7)->marks & SERIES_STALLS) && !counters_target(&m, 0x40000003U)->stalls,
	       "waits not measured were marked for export");
	expect_stalls(entry(&m, 7)->stall_us, none, "process, not measured");
	expect_stalls(counters_target(&m, 0x40000003U)->stall_us, none, "target, not measured");
	m.stalls_known = true;
	add_stalls(&m, 7, us);
	expect((entry(&m, 7)->marks & SERIES_STALLS) && counters_target(&m, 0x40000003U)->stalls,
	       "waits measured were not marked for export");
	expect_stalls(entry(&m, 7)->stall_us, once, "process, measured");
	expect_stalls(counters_target(&m, 0x40000003U)->stall_us, once, "target, measured");
	/* Delay accounting off again: the series stay, not growing. */
	m.stalls_known = false;
	add_stalls(&m, 7, us);
	expect(entry(&m, 7)->marks & SERIES_STALLS, "a series went with delay accounting");
	expect_stalls(entry(&m, 7)->stall_us, once, "process, off again");
	add(&m, comm(7, "other"));
	expect(!(entry(&m, 7)->marks & SERIES_STALLS), "a new name kept the old one's waits");
	expect_stalls(entry(&m, 7)->stall_us, none, "process, renamed");
	expect_stalls(counters_target(&m, 0x40000003U)->stall_us, once, "target, renamed");
	counters_free(&m);
}

/*
 * Latency records go to the target's histograms, by kind, and mark it for
 * export; a target without them has none. The module's faults not timed
 * add up over its loads.
 */
static void test_latency(void)
{
	struct counters m = { 0 };
	const struct target_total *t;

	add(&m, of_target(counts(10, 4, 1, 100), UNIT_A));
	add(&m, of_target(counts(20, 1, 0, 0), TREE_B));
	add_latency(&m, 10, LATENCY_MINOR, 1, 4, 3000);
	add_latency(&m, 10, LATENCY_MAJOR, 14, 1, 5000000);
	add_latency(&m, 10, LATENCY_MINOR, 1, 2, 1500);
	t = counters_target(&m, UNIT_A);
	expect(t->timed && t->latency[LATENCY_MINOR].faults[1] == 6 &&
	       t->latency[LATENCY_MINOR].time_ns == 4500 &&
	       t->latency[LATENCY_MAJOR].faults[14] == 1 &&
	       t->latency[LATENCY_MAJOR].time_ns == 5000000, "the target's histograms");
	t = counters_target(&m, TREE_B);
	expect(!t->timed && !latency_count(&t->latency[LATENCY_MINOR]),
	       "a target without latency records is timed");
	counters_set_latency_missed(&m, 0xa, 5);
	counters_set_latency_missed(&m, 0xb, 2);
	expect(load_counter_total(&m.latency_missed) == 7, "%llu missed over two loads, want 7",
	       (unsigned long long)load_counter_total(&m.latency_missed));
	counters_free(&m);
}

UNIT_TESTS(UNIT_TEST(samples_summed), UNIT_TEST(stalls), UNIT_TEST(records_per_process),
	   UNIT_TEST(select_registered_only), UNIT_TEST(sweep_forgets_unrecorded),
	   UNIT_TEST(sweep_keeps_sleeping),
	   UNIT_TEST(select_cap), UNIT_TEST(sampler_across_loads), UNIT_TEST(target_totals),
	   UNIT_TEST(forget_targets), UNIT_TEST(latency));
