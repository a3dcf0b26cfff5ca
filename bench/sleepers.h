/* SPDX-License-Identifier: GPL-2.0 */
/* Idle processes to profile or poll, and their registration with mp3. */
#ifndef PFPROF_BENCH_SLEEPERS_H
#define PFPROF_BENCH_SLEEPERS_H

#include <stddef.h>
#include <sys/types.h>

struct sleepers {
	pid_t *pids;
	size_t count;
};

/*
 * Forks count processes that wait in pause() until killed, the last busy of
 * them instead waking every 2 ms to touch a page: what a server's busy
 * workers look like to the sampler, with little CPU. 0 or -errno.
 */
int sleepers_spawn(struct sleepers *s, size_t count, size_t busy);

/* Writes "R <pid>" (or "U <pid>") for each to /proc/mp3/status. 0 or -errno. */
int sleepers_register(const struct sleepers *s, char command);

/* Kills and reaps them all. */
void sleepers_kill(struct sleepers *s);

/*
 * From now on SIGTERM kills and reaps them before the process exits: a
 * shell's wait for it returns once their exits are over, so that they do
 * not run beside what is measured next.
 */
void sleepers_kill_on_sigterm(const struct sleepers *s);

#endif
