// SPDX-License-Identifier: GPL-2.0
#include "waits.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "benchring.h"
#include "clock.h"
#include "stalls.h"

/* MADV_PAGEOUT (Linux 5.4) from <linux/mman.h>, which glibc's headers may lack. */
#ifndef MADV_PAGEOUT
#define MADV_PAGEOUT 21
#endif

static void touch_all(char *p, unsigned long pages, long page)
{
	for (unsigned long i = 0; i < pages; i++)
		((volatile char *)p)[i * page]++;
}

/* The process's CPU time in the touches after each push-out; *@swapins: its major faults then. */
static uint64_t swap_in_rounds(unsigned long pages, unsigned int rounds, long *swapins)
{
	long page = sysconf(_SC_PAGESIZE);
	char *p = mmap(NULL, pages * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
		       -1, 0);
	struct rusage before, after;
	uint64_t cpu = 0;

	if (p == MAP_FAILED)
		die("mmap", errno);
	touch_all(p, pages, page);
	*swapins = 0;
	for (unsigned int r = 0; r < rounds; r++) {
		uint64_t start;

		if (madvise(p, pages * page, MADV_PAGEOUT))
			die("madvise(MADV_PAGEOUT)", errno);
		getrusage(RUSAGE_SELF, &before);
		start = clock_ns(CLOCK_PROCESS_CPUTIME_ID);
		touch_all(p, pages, page);
		cpu += clock_ns(CLOCK_PROCESS_CPUTIME_ID) - start;
		getrusage(RUSAGE_SELF, &after);
		*swapins += after.ru_majflt - before.ru_majflt;
	}
	munmap(p, pages * page);
	return cpu;
}

static void pass_byte(int from, int to)
{
	char c;

	if (read(from, &c, 1) != 1 || write(to, &c, 1) != 1)
		die("pipe round trip", errno ? errno : EPIPE);
}

/* The time of @loops round trips with a child through two pipes. */
static uint64_t pipe_round_trips(unsigned long loops)
{
	int there[2], back[2];
	uint64_t start, elapsed;
	pid_t child;

	if (pipe(there) || pipe(back))
		die("pipe", errno);
	child = fork();
	if (child < 0)
		die("fork", errno);
	if (!child) {
		for (unsigned long i = 0; i < loops; i++)
			pass_byte(there[0], back[1]);
		_exit(0);
	}
	start = clock_ns(CLOCK_MONOTONIC);
	for (unsigned long i = 0; i < loops; i++) {
		char c = 'x';

		if (write(there[1], &c, 1) != 1 || read(back[0], &c, 1) != 1)
			die("pipe round trip", errno ? errno : EPIPE);
	}
	elapsed = clock_ns(CLOCK_MONOTONIC) - start;
	waitpid(child, NULL, 0);
	return elapsed;
}

int cmd_waits(unsigned long pages, unsigned int rounds, unsigned long pipe_loops)
{
	int on = delayacct_read(DELAYACCT_SYSCTL);
	uint64_t cpu, trips;
	long swapins;

	if (on < 0)
		die(DELAYACCT_SYSCTL, -on);
	/* One swap-in per 4 KiB page, whatever the THP setting. */
	if (prctl(PR_SET_THP_DISABLE, 1, 0, 0, 0))
		die("PR_SET_THP_DISABLE", errno);
	cpu = swap_in_rounds(pages, rounds, &swapins);
	if (swapins < (long)pages * rounds / 2)
		die("swapping the pages in (is swap on?)", EAGAIN);
	trips = pipe_round_trips(pipe_loops);
	printf("waits delayacct=%d pages=%lu rounds=%u swapins=%ld ns_per_swapin=%.1f"
	       " pipe_loops=%lu ns_per_round_trip=%.1f\n", on, pages, rounds, swapins,
	       (double)cpu / swapins, pipe_loops, (double)trips / pipe_loops);
	return 0;
}
