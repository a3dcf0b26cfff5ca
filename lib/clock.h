/* SPDX-License-Identifier: GPL-2.0 */
/* Clock readings in nanoseconds, the unit of the module's samples. */
#ifndef PFPROF_CLOCK_H
#define PFPROF_CLOCK_H

#include <stdint.h>
#include <time.h>

#define NSEC_PER_SEC UINT64_C(1000000000)

/* clock_gettime(clock) in ns. */
uint64_t clock_ns(clockid_t clock);

/* CLOCK_REALTIME - CLOCK_MONOTONIC now: added to a sample's time_ns, the wall clock. */
uint64_t clock_wall_offset_ns(void);

#endif /* PFPROF_CLOCK_H */
