// SPDX-License-Identifier: GPL-2.0
#include "clock.h"

uint64_t clock_ns(clockid_t clock)
{
	struct timespec t;

	clock_gettime(clock, &t);
	return (uint64_t)t.tv_sec * NSEC_PER_SEC + t.tv_nsec;
}

uint64_t clock_wall_offset_ns(void)
{
	return clock_ns(CLOCK_REALTIME) - clock_ns(CLOCK_MONOTONIC);
}
