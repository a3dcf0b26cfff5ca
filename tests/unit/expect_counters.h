/* SPDX-License-Identifier: GPL-2.0 */
/* Helpers and checks of struct counters shared by the counters, counterfile and promfile tests. */
#ifndef PFPROF_EXPECT_COUNTERS_H
#define PFPROF_EXPECT_COUNTERS_H

#include <string.h>

#include "counters.h"
#include "unit.h"

/* A process named name, of that target (0: none), with these counts. */
static inline void add_target_process(struct counters *c, pid_t tgid, const char *name,
				      uint32_t target, uint64_t minor, uint64_t major,
				      uint64_t cpu_ns)
{
	struct mp3_proc_record r = { .tgid = tgid, .type = MP3_RECORD_COMM, .target = target };

	strncpy(r.comm, name, sizeof(r.comm) - 1);
	expect(counters_add_record(c, &r), "counters_add_record failed");
	r = (struct mp3_proc_record){ .tgid = tgid, .type = MP3_RECORD_COUNTS, .target = target };
	r.counts.minor_faults = minor;
	r.counts.major_faults = major;
	r.counts.cpu_ns = cpu_ns;
	expect(counters_add_record(c, &r), "counters_add_record failed");
}

/* The same, of no target. */
static inline void add_process(struct counters *c, pid_t tgid, const char *name,
			       uint64_t minor, uint64_t major, uint64_t cpu_ns)
{
	add_target_process(c, tgid, name, 0, minor, major, cpu_ns);
}

/* A faults record of tgid (of the target it has): its faults in a mapping of that kind. */
static inline void add_faults(struct counters *c, pid_t tgid, uint32_t mapping, uint32_t minor,
			      uint32_t major)
{
	struct mp3_proc_record r = { .tgid = tgid, .type = MP3_RECORD_FAULTS, .mapping = mapping,
				     .target = proctable_find_or_add(&c->procs, tgid)->target };

	r.faults.minor_faults = minor;
	r.faults.major_faults = major;
	expect(counters_add_record(c, &r), "counters_add_record failed");
}

/*
 * A counts record of tgid (of the target it has) with these waits in µs
 * (swapin, thrashing, reclaim, compact, blkio), measured or not as
 * c->stalls_known says.
 */
static inline void add_stalls(struct counters *c, pid_t tgid, const uint32_t us[STALL_KINDS])
{
	struct mp3_proc_record r = { .tgid = tgid, .type = MP3_RECORD_COUNTS,
				     .target = proctable_find_or_add(&c->procs, tgid)->target };

	r.stalls = (struct mp3_stalls){ us[STALL_SWAPIN], us[STALL_THRASHING], us[STALL_RECLAIM],
					us[STALL_COMPACT], us[STALL_BLKIO], 0 };
	expect(counters_add_record(c, &r), "counters_add_record failed");
}

/* A latency record of tgid (of the target it has): faults of a kind and bucket, and their time. */
/* A swap record of tgid's process (target, event, pages, the stall of a swap-in). */
static inline void add_swap_record(struct counters *c, pid_t tgid, uint32_t target,
				   uint32_t event, uint32_t pages, uint64_t stall_ns)
{
	struct mp3_proc_record r = { .type = MP3_RECORD_SWAP, .tgid = (uint32_t)tgid,
				     .target = target };

	r.swap.event = event;
	r.swap_time.pages = pages;
	r.swap_time.stall_ns = stall_ns;
	expect(counters_add_record(c, &r), "counters_add_record failed");
}

static inline void add_refault_record(struct counters *c, pid_t tgid, uint32_t target,
				      uint64_t pages)
{
	struct mp3_proc_record r = { .type = MP3_RECORD_REFAULT, .tgid = (uint32_t)tgid,
				     .target = target, .mapping = MP3_MAPPING_FILE };

	r.refault.inode = 12;
	r.swap_time.pages = pages;
	expect(counters_add_record(c, &r), "counters_add_record failed");
}

static inline void add_latency(struct counters *c, pid_t tgid, enum latency_kind kind,
			       uint16_t bucket, uint32_t faults, uint64_t time_ns)
{
	struct mp3_proc_record r = { .tgid = tgid, .type = MP3_RECORD_LATENCY,
				     .target = proctable_find_or_add(&c->procs, tgid)->target };

	r.latency.major = kind == LATENCY_MAJOR;
	r.latency.bucket = bucket;
	r.latency.faults = faults;
	r.latency.time_ns = time_ns;
	expect(counters_add_record(c, &r), "counters_add_record failed");
}

/* Waits summed in sum_us are want_us (µs, by enum stall_kind). */
static inline void expect_stalls(const uint64_t sum_us[STALL_KINDS],
				 const uint64_t want_us[STALL_KINDS], const char *what)
{
	for (int k = 0; k < STALL_KINDS; k++)
		expect(sum_us[k] == want_us[k], "%s: %s %llu us, want %llu", what,
		       stall_kind_word(k), (unsigned long long)sum_us[k],
		       (unsigned long long)want_us[k]);
}

/* A target's totals are minor, major, cpu_ns. */
static inline void expect_target(struct counters *c, uint32_t number, uint64_t minor,
				 uint64_t major, uint64_t cpu_ns, const char *when)
{
	const struct target_total *t = counters_target(c, number);

	expect(t && t->minor == minor && t->major == major && t->cpu_ns == cpu_ns,
	       "%s: target %u: %llu %llu %llu, want %llu %llu %llu", when, number,
	       t ? (unsigned long long)t->minor : 0, t ? (unsigned long long)t->major : 0,
	       t ? (unsigned long long)t->cpu_ns : 0, (unsigned long long)minor,
	       (unsigned long long)major, (unsigned long long)cpu_ns);
}

/* The sampler's counters, over every module load, are ns and runs. */
static inline void expect_sampler(const struct counters *m, uint64_t ns, uint64_t runs,
				  const char *when)
{
	uint64_t got_ns = load_counter_total(&m->sampler_ns);
	uint64_t got_runs = load_counter_total(&m->sampler_runs);

	expect(got_ns == ns && got_runs == runs, "%s: %llu ns, %llu runs; want %llu, %llu", when,
	       (unsigned long long)got_ns, (unsigned long long)got_runs, (unsigned long long)ns,
	       (unsigned long long)runs);
}

#endif /* PFPROF_EXPECT_COUNTERS_H */
