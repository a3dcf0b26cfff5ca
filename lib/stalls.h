/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The time processes waited for memory and block I/O (ring version 7,
 * struct mp3_stalls): the kinds as an array for sums, and whether a reader
 * knows them at all. Known means the module measures them (MP3_RING_STALLS)
 * and the kernel's delay accounting is on: otherwise a time is unknown
 * ("-"), not 0.
 */
#ifndef PFPROF_STALLS_H
#define PFPROF_STALLS_H

#include <stdbool.h>
#include <stdint.h>

#include <linux/mp3.h>

/* In the order of struct mp3_stalls. The first STALL_MEMORY_KINDS are memory's. */
enum stall_kind { STALL_SWAPIN, STALL_THRASHING, STALL_RECLAIM, STALL_COMPACT, STALL_BLKIO,
		  STALL_KINDS };
#define STALL_MEMORY_KINDS 4

#define DELAYACCT_SYSCTL "/proc/sys/kernel/task_delayacct"

/* "swapin", "thrashing", "reclaim", "compact", "blkio": the logs' and metrics' words. */
const char *stall_kind_word(enum stall_kind kind);

/* Adds a record's or a sample's waits to sum_us. */
void stalls_add(uint64_t sum_us[STALL_KINDS], const struct mp3_stalls *s);

/* The memory stall of sum_us: swap-in, thrashing, reclaim and compaction added. */
uint64_t stalls_memory_us(const uint64_t sum_us[STALL_KINDS]);

/*
 * Whether the kernel's delay accounting is on, from path
 * (DELAYACCT_SYSCTL): 1 or 0, or -errno (-ENOENT: a kernel without it).
 */
int delayacct_read(const char *path);

/*
 * The last reading of delay_acct_read(), taken again at most once per
 * DELAYACCT_CACHE_NS: readers waking 20 times a second need not open the
 * file each time, and one that follows a switch a second late marks at
 * most a second of waits unknown that were not, or the reverse.
 */
#define DELAYACCT_CACHE_NS 1000000000ULL

struct delayacct_cache {
	const char *path;	/* DELAYACCT_SYSCTL, or a test's file */
	uint64_t read_ns;	/* CLOCK_MONOTONIC of the last reading; 0: none yet */
	int state;		/* its result */
};

/* Whether delay accounting is on at now_ns (CLOCK_MONOTONIC), as delayacct_read() says. */
int delayacct_cached(struct delayacct_cache *cache, uint64_t now_ns);

/* Whether a ring's records and samples carry the waits (MP3_RING_STALLS). */
bool stalls_in_ring(const struct mp3_ring_header *hdr);

#endif /* PFPROF_STALLS_H */
