/* SPDX-License-Identifier: GPL-2.0 */
/* What pfprof-bench's commands share: failing, the ring they read, registering, /proc/vmstat. */
#ifndef PFPROF_BENCHRING_H
#define PFPROF_BENCHRING_H

#include <stdint.h>
#include <sys/types.h>

#include "mp3ring.h"

/* "pfprof-bench: WHAT: strerror(ERR)" on standard error, exit status 1. */
__attribute__((noreturn)) void die(const char *what, int err);
/* The versioned region of /dev/mp3, mapped; dies if it cannot be. */
void map_ring(struct mp3ring *ring);
/* The times of samples [first, first + count), once they are all published. */
void read_samples(const struct mp3ring *ring, uint64_t first, uint64_t count, uint64_t *times);

/*
 * Hands fn every record of the samples from first on, as far as they are
 * published; dies if any was overwritten before it was read.
 */
void read_records(const struct mp3ring *ring, uint64_t first,
		  void (*fn)(void *ctx, const struct mp3_proc_record *r), void *ctx);

/*
 * A child that sleeps, registered with options (TARGETSFILE_OPT_*): the
 * sampler runs while it is, whatever the command measures.
 */
pid_t spawn_registered_sleeper(unsigned int options);
/* The sleeper unregistered, killed and reaped. */
void end_registered_sleeper(pid_t sleeper);
/* This process registered with options (TARGETSFILE_OPT_*), and unregistered; dies if not. */
void register_self(unsigned int options);
void unregister_self(void);

/* A counter of /proc/vmstat (0 if this kernel has none of that name); dies if it is unreadable. */
uint64_t vmstat_count(const char *name);

#endif
