/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pfprofctl status's fault times: how long the faults of the processes
 * registered with "latency" took, from the latency records (ring version
 * 8) of the samples still in the ring, per target and per process of none.
 */
#ifndef PFPROF_FAULTTIME_H
#define PFPROF_FAULTTIME_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "latency.h"
#include "mp3ring.h"

/* A target's timed processes summed, or a timed process of no target. */
struct fault_time {
	uint32_t target;	/* 0: the process pid */
	pid_t pid;		/* 0 for a target */
	char comm[24];		/* the process's name; "" for a target */
	struct latency_hist latency[LATENCY_KINDS];
};

struct fault_times {
	struct fault_time *v;	/* the targets by number, then the processes by PID */
	size_t count, cap;
	double seconds;		/* the samples read span this much time */
};

/* Reads the samples in ring (as many as it holds) into *t, emptied first. 0 or -ENOMEM. */
int fault_times_read(const struct mp3ring *ring, struct fault_times *t);
void fault_times_free(struct fault_times *t);

#endif /* PFPROF_FAULTTIME_H */
