// SPDX-License-Identifier: GPL-2.0
#include "benchring.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <linux/mp3.h>

#include "procstatus.h"

void die(const char *what, int err)
{
	fprintf(stderr, "pfprof-bench: %s: %s\n", what, strerror(err));
	exit(1);
}

void map_ring(struct mp3ring *ring)
{
	int fd = open(MP3_DEVICE_PATH, O_RDONLY | O_CLOEXEC);
	int err;

	if (fd < 0)
		die(MP3_DEVICE_PATH, errno);
	err = mp3ring_map(ring, fd);
	if (err)
		die("mapping the versioned region", -err);
	close(fd);
}

void read_samples(const struct mp3ring *ring, uint64_t first, uint64_t count, uint64_t *times)
{
	struct mp3_ring_sample sample;
	uint64_t next = first, missed = 0;

	for (uint64_t i = 0; i < count; i++) {
		if (mp3ring_read(ring, &next, &sample, &missed) != MP3RING_SAMPLE)
			die("reading the samples", ENODATA);
		if (missed)
			die("samples were overwritten before they were read", ENOBUFS);
		times[i] = sample.time_ns;
	}
}

void read_records(const struct mp3ring *ring, uint64_t first,
		  void (*fn)(void *ctx, const struct mp3_proc_record *r), void *ctx)
{
	struct mp3_ring_sample sample;
	uint64_t next = first, missed = 0, lost = 0;

	while (mp3ring_read(ring, &next, &sample, &missed) == MP3RING_SAMPLE)
		lost += mp3ring_for_each_record(ring, &sample, fn, ctx);
	if (missed || lost)
		die("samples or records were overwritten before they were read", ENOBUFS);
}

pid_t spawn_registered_sleeper(unsigned int options)
{
	pid_t sleeper = fork();
	int err;

	if (sleeper < 0)
		die("fork", errno);
	if (!sleeper) {
		for (;;)
			pause();
	}
	err = procstatus_register(MP3_STATUS_PATH, sleeper, options);
	if (err)
		die("registering the sleeping child", -err);
	return sleeper;
}

void end_registered_sleeper(pid_t sleeper)
{
	int err = procstatus_command(MP3_STATUS_PATH, 'U', sleeper);

	if (err)
		die("unregistering the sleeping child", -err);
	kill(sleeper, SIGKILL);
	waitpid(sleeper, NULL, 0);
}

void register_self(unsigned int options)
{
	int err = procstatus_register(MP3_STATUS_PATH, getpid(), options);

	if (err)
		die("registering this process", -err);
}

void unregister_self(void)
{
	int err = procstatus_command(MP3_STATUS_PATH, 'U', getpid());

	if (err)
		die("unregistering this process", -err);
}

uint64_t vmstat_count(const char *name)
{
	FILE *f = fopen("/proc/vmstat", "re");
	char key[64];
	uint64_t value, found = 0;

	if (!f)
		die("/proc/vmstat", errno);
	while (fscanf(f, "%63s %" SCNu64, key, &value) == 2)
		if (!strcmp(key, name))
			found = value;
	fclose(f);
	return found;
}
