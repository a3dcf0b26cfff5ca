/* SPDX-License-Identifier: GPL-2.0 */
/* What pfprof-bench's commands share: failing, and the ring they read. */
#ifndef PFPROF_BENCHRING_H
#define PFPROF_BENCHRING_H

#include <stdint.h>

#include "mp3ring.h"

/* "pfprof-bench: WHAT: strerror(ERR)" on standard error, exit status 1. */
__attribute__((noreturn)) void die(const char *what, int err);
/* The versioned region of /dev/mp3, mapped; dies if it cannot be. */
void map_ring(struct mp3ring *ring);
/* The times of samples [first, first + count), once they are all published. */
void read_samples(const struct mp3ring *ring, uint64_t first, uint64_t count, uint64_t *times);

#endif
