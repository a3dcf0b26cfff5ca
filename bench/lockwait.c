// SPDX-License-Identifier: GPL-2.0
#include "lockwait.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <linux/mp3.h>

#include "benchring.h"
#include "clock.h"
#include "procstatus.h"

#define LOCKWAIT_TARGET 4242
/* The smallest stack glibc takes: thousands of idle threads in a small guest. */
#define IDLE_THREAD_STACK (64 * 1024)

static void *idle_thread(void *arg)
{
	(void)arg;
	for (;;)
		pause();
	return NULL;
}

/* A child with @n threads in all, idle; says "r" on @ready once they all are. */
static void threads_child(unsigned long n, int ready)
{
	pthread_attr_t attr;
	pthread_t thread;

	if (pthread_attr_init(&attr) || pthread_attr_setstacksize(&attr, IDLE_THREAD_STACK))
		_exit(3);
	for (unsigned long i = 1; i < n; i++)
		if (pthread_create(&thread, &attr, idle_thread, NULL))
			_exit(4);
	if (write(ready, "r", 1) != 1)
		_exit(5);
	idle_thread(NULL);
}

/* A chain of @n processes from here down; the last says "r" on @ready. */
static void chain_child(unsigned long n, int ready)
{
	while (--n && fork() == 0)
		;
	if (!n && write(ready, "r", 1) != 1)
		_exit(5);
	idle_thread(NULL);
}

/* The child that is registered: its own process group, killed whole. */
static pid_t start_child(void (*fn)(unsigned long n, int ready), unsigned long n)
{
	int ready[2];
	char byte;
	pid_t pid;

	if (pipe(ready))
		die("pipe", errno);
	pid = fork();
	if (pid < 0)
		die("fork", errno);
	if (pid == 0) {
		setpgid(0, 0);
		close(ready[0]);
		fn(n, ready[1]);	/* idles until its group is killed */
		_exit(0);
	}
	close(ready[1]);
	if (read(ready[0], &byte, 1) != 1)
		die("starting the registered processes", EPIPE);
	close(ready[0]);
	return pid;
}

struct prober {
	atomic_bool stop;
	uint64_t reads;
	uint64_t max_ns;
};

/* Reads /proc/mp3/status over and over, as a monitoring script would, keeping the longest. */
static void *probe_status(void *arg)
{
	struct prober *p = arg;
	char buf[4096];

	while (!atomic_load(&p->stop)) {
		uint64_t start = clock_ns(CLOCK_MONOTONIC), took;
		int fd = open(MP3_STATUS_PATH, O_RDONLY | O_CLOEXEC);

		if (fd < 0)
			die(MP3_STATUS_PATH, errno);
		while (read(fd, buf, sizeof(buf)) > 0)
			;
		close(fd);
		took = clock_ns(CLOCK_MONOTONIC) - start;
		if (took > p->max_ns)
			p->max_ns = took;
		p->reads++;
		usleep(1000);
	}
	return NULL;
}

/* The longest gap between two samples of [first, last). */
static uint64_t longest_gap(const struct mp3ring *ring, uint64_t first, uint64_t last)
{
	uint64_t count = last - first, *times = calloc(count, sizeof(*times)), gap = 0;

	if (!times)
		die("allocating", ENOMEM);
	read_samples(ring, first, count, times);
	for (uint64_t i = 1; i < count; i++)
		if (times[i] - times[i - 1] > gap)
			gap = times[i] - times[i - 1];
	free(times);
	return gap;
}

int cmd_lockwait(const char *kind, unsigned long n)
{
	bool threads = !strcmp(kind, "threads");
	struct prober prober = { 0 };
	uint64_t first, start, took;
	struct mp3ring ring;
	pthread_t thread;
	pid_t keeper, pid;
	int err;

	/* Keeps the sampler publishing before and after. */
	keeper = start_child(threads_child, 1);
	pid = start_child(threads ? threads_child : chain_child, n);
	/*
	 * Mapped after the forks: a chain's processes, killed at the end,
	 * exit after this returns, and a mapping they inherited would hold
	 * the module meanwhile (rmmod: EAGAIN).
	 */
	map_ring(&ring);
	err = procstatus_command(MP3_STATUS_PATH, 'R', keeper);
	if (err)
		die("registering the sampler's keeper", -err);
	first = mp3ring_head(&ring) + 1;
	while (mp3ring_head(&ring) < first + 2)
		usleep(1000);
	if (pthread_create(&thread, NULL, probe_status, &prober))
		die("pthread_create", EAGAIN);
	usleep(100000);
	start = clock_ns(CLOCK_MONOTONIC);
	err = threads ? procstatus_register(MP3_STATUS_PATH, pid, TARGETSFILE_OPT_MAPS) :
			procstatus_tree(MP3_STATUS_PATH, pid, LOCKWAIT_TARGET);
	took = clock_ns(CLOCK_MONOTONIC) - start;
	usleep(200000);
	atomic_store(&prober.stop, true);
	pthread_join(thread, NULL);
	if (err)
		die(threads ? "R maps of the threads" : "T of the chain", -err);
	printf("lockwait kind=%s n=%lu register_ms=%.1f status_reads=%llu status_read_max_ms=%.1f"
	       " sample_gap_max_ms=%.1f period_ms=%.0f\n", kind, n, took / 1e6,
	       (unsigned long long)prober.reads, prober.max_ns / 1e6,
	       longest_gap(&ring, first, mp3ring_head(&ring)) / 1e6, ring.hdr->period_ns / 1e6);
	err = threads ? procstatus_command(MP3_STATUS_PATH, 'U', pid) :
			procstatus_untarget(MP3_STATUS_PATH, LOCKWAIT_TARGET);
	if (!err)
		err = procstatus_command(MP3_STATUS_PATH, 'U', keeper);
	if (err)
		die("unregistering", -err);
	kill(-pid, SIGKILL);
	kill(-keeper, SIGKILL);
	while (wait(NULL) > 0)
		;
	mp3ring_unmap(&ring);
	return 0;
}
