// SPDX-License-Identifier: GPL-2.0
/* pfprofctl top's grouping by target (the 't' key): top_group() in pfprofctl/top/data.c. */
#include <stdlib.h>
#include <string.h>

#include "top/data.h"
#include "unit.h"

static const struct proc_entry procs[] = {
	{ .tgid = 10, .target = 0, .minor = 5 },
	{ .tgid = 11, .target = 7, .minor = 100, .major = 1, .cpu_ns = 30,
	  .stall_us = { 100000, 50000, 0, 0, 400000 }, .timed = true,
	  .latency = { { .time_ns = 20000000 }, { .time_ns = 80000000 } } },
	{ .tgid = 13, .target = 9, .minor = 500 },
	{ .tgid = 12, .target = 7, .minor = 50, .cpu_ns = 12,
	  .stall_us = { 0, 0, 1000000, 250000, 0 }, .timed = true,
	  .latency = { { .time_ns = 50000000 } } },
	{ .tgid = 14, .target = 9, .minor = 1 },
};

#define NR_PROCS (sizeof(procs) / sizeof(procs[0]))

static void snapshot_of(struct top_snapshot *snap)
{
	memset(snap, 0, sizeof(*snap));
	snap->procs = malloc(sizeof(procs));
	expect(snap->procs, "no memory");
	memcpy(snap->procs, procs, sizeof(procs));
	snap->nr_procs = NR_PROCS;
}

/* The groups in top's order (major faults, then minor), each with its own processes. */
static void test_groups_by_target(void)
{
	static const struct { uint32_t target; size_t count; uint64_t minor, major, cpu_ns; } want[] = {
		{ 7, 2, 150, 1, 42 }, { 9, 2, 501, 0, 0 }, { 0, 1, 5, 0, 0 },
	};
	struct top_snapshot snap;

	snapshot_of(&snap);
	expect(!top_group(&snap), "top_group failed");
	expect(snap.nr_groups == 3, "%zu groups, want 3", snap.nr_groups);
	for (size_t g = 0; g < snap.nr_groups && g < 3; g++) {
		const struct top_group *group = &snap.groups[g];

		expect(group->sum.target == want[g].target && group->count == want[g].count,
		       "group %zu: target %u with %zu processes, want %u with %zu", g,
		       group->sum.target, group->count, want[g].target, want[g].count);
		expect(group->sum.minor == want[g].minor && group->sum.major == want[g].major &&
		       group->sum.cpu_ns == want[g].cpu_ns,
		       "group %zu: sums %llu/%llu/%llu", g, (unsigned long long)group->sum.minor,
		       (unsigned long long)group->sum.major, (unsigned long long)group->sum.cpu_ns);
		for (size_t i = group->first; i < group->first + group->count; i++)
			expect(snap.procs[i].target == group->sum.target,
			       "process %d of target %u under group %u", (int)snap.procs[i].tgid,
			       snap.procs[i].target, group->sum.target);
	}
	top_snapshot_free(&snap);
}

/*
 * A target's waits are its processes' summed; a wait's share is of the
 * snapshot's time, threads added: 1.4 s of memory stall in 0.5 s is 280 %.
 */
static void test_group_stalls(void)
{
	struct top_snapshot snap;
	double stall, io;

	snapshot_of(&snap);
	snap.seconds = 0.5;
	expect(!top_group(&snap), "top_group failed");
	stall = top_stall_percent(&snap, &snap.groups[0].sum);
	io = top_io_wait_percent(&snap, &snap.groups[0].sum);
	expect(snap.groups[0].sum.target == 7 && stall > 279.99 && stall < 280.01 &&
	       io > 79.99 && io < 80.01, "target %u: memory stall %.3f%%, I/O wait %.3f%%, "
	       "want 280 and 80", snap.groups[0].sum.target, stall, io);
	top_snapshot_free(&snap);
}

/*
 * A target's fault time is its timed processes' summed, in percent of the
 * snapshot's time: 150 ms in 0.5 s is 30 %; a target none of whose
 * processes is timed is not timed either (top shows "-").
 */
static void test_group_fault_time(void)
{
	struct top_snapshot snap;
	double fault;

	snapshot_of(&snap);
	snap.seconds = 0.5;
	expect(!top_group(&snap), "top_group failed");
	fault = top_fault_percent(&snap, &snap.groups[0].sum);
	expect(snap.groups[0].sum.timed && fault > 29.99 && fault < 30.01,
	       "target %u: timed %d, fault time %.3f%%, want 30", snap.groups[0].sum.target,
	       snap.groups[0].sum.timed, fault);
	expect(!snap.groups[1].sum.timed && !snap.groups[2].sum.timed,
	       "targets %u and %u have no timed process, but are timed: %d %d",
	       snap.groups[1].sum.target, snap.groups[2].sum.target, snap.groups[1].sum.timed,
	       snap.groups[2].sum.timed);
	top_snapshot_free(&snap);
}

static void test_no_processes(void)
{
	struct top_snapshot snap = { 0 };

	expect(!top_group(&snap) && snap.nr_groups == 0, "an empty snapshot has %zu groups",
	       snap.nr_groups);
	top_snapshot_free(&snap);
}

UNIT_TESTS(
	UNIT_TEST(groups_by_target),
	UNIT_TEST(group_stalls),
	UNIT_TEST(group_fault_time),
	UNIT_TEST(no_processes)
);
