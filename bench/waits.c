// SPDX-License-Identifier: GPL-2.0
#include "waits.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "benchring.h"
#include "clock.h"
#include "stalls.h"
#include "swaprounds.h"

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
	struct swap_rounds swapped;
	uint64_t trips;

	if (on < 0)
		die(DELAYACCT_SYSCTL, -on);
	swapped = swap_rounds(pages, rounds);
	trips = pipe_round_trips(pipe_loops);
	printf("waits delayacct=%d pages=%lu rounds=%u swapins=%ld ns_per_swapin=%.1f"
	       " pipe_loops=%lu ns_per_round_trip=%.1f\n", on, pages, rounds, swapped.swapins,
	       (double)swapped.in_cpu_ns / swapped.swapins, pipe_loops, (double)trips / pipe_loops);
	return 0;
}
