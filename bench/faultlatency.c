// SPDX-License-Identifier: GPL-2.0
#include "faultlatency.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <linux/mp3.h>

#include "benchring.h"
#include "clock.h"
#include "procstatus.h"

#define KPROBES_LIST "/sys/kernel/debug/kprobes/list"

/* "R <pid> latency": what lib/procstatus.c does for the other forms of R. */
static int register_latency(pid_t pid)
{
	char cmd[40];
	int len = snprintf(cmd, sizeof(cmd), "R %d latency\n", (int)pid);
	int fd = open(MP3_STATUS_PATH, O_WRONLY | O_CLOEXEC), err = 0;
	ssize_t written;

	if (fd < 0)
		return -errno;
	written = write(fd, cmd, len);
	if (written != len)
		err = written < 0 ? -errno : -EIO;
	close(fd);
	return err;
}

/*
 * Whether a return probe is on handle_mm_fault: 1 or 0, -1 if the kprobes'
 * list cannot be read (no debugfs); *ftrace: whether it is a kprobe on ftrace.
 */
static int fault_probe_armed(bool *ftrace)
{
	FILE *f = fopen(KPROBES_LIST, "re");
	char line[256];
	int armed = 0;

	*ftrace = false;
	if (!f)
		return -1;
	/* "ADDRESS  r  handle_mm_fault+0x0    [FTRACE]" */
	while (fgets(line, sizeof(line), f)) {
		char type[4], sym[128];

		if (sscanf(line, "%*s %3s %127s", type, sym) == 2 && !strcmp(type, "r") &&
		    !strncmp(sym, "handle_mm_fault+", strlen("handle_mm_fault+"))) {
			armed = 1;
			*ftrace = strstr(line, "[FTRACE]") != NULL;
		}
	}
	fclose(f);
	return armed;
}

/* The CPU time of touching @pages fresh anonymous pages once each, mapping and unmapping left out. */
static uint64_t touch_fresh(unsigned long pages, long page)
{
	char *p = mmap(NULL, pages * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
		       -1, 0);
	uint64_t start, cpu;

	if (p == MAP_FAILED)
		die("mmap", errno);
	start = clock_ns(CLOCK_PROCESS_CPUTIME_ID);
	for (unsigned long i = 0; i < pages; i++)
		((volatile char *)p)[i * page] = 1;
	cpu = clock_ns(CLOCK_PROCESS_CPUTIME_ID) - start;
	munmap(p, pages * page);
	return cpu;
}

/* The latency records of one process, summed. */
struct timed {
	uint32_t tgid;
	uint64_t faults, ns;
};

static void add_timed(void *ctx, const struct mp3_proc_record *r)
{
	struct timed *t = ctx;

	if (r->type == MP3_RECORD_LATENCY && r->tgid == t->tgid && !r->latency.major) {
		t->faults += r->latency.faults;
		t->ns += r->latency.time_ns;
	}
}

/* What the samples from @first on timed of this process's minor faults. */
static void read_timed(const struct mp3ring *ring, uint64_t first, struct timed *t)
{
	struct mp3_ring_sample sample;
	uint64_t next = first, missed = 0, lost = 0;

	while (mp3ring_read(ring, &next, &sample, &missed) == MP3RING_SAMPLE)
		lost += mp3ring_for_each_record(ring, &sample, add_timed, t);
	if (missed || lost)
		die("samples or records were overwritten before they were read", ENOBUFS);
}

int cmd_fault_latency(unsigned long pages, unsigned int rounds, const char *mode)
{
	bool other = !strcmp(mode, "other"), self = !strcmp(mode, "self"), ftrace;
	long page = sysconf(_SC_PAGESIZE);
	struct rusage before, after;
	struct timed timed = { .tgid = (uint32_t)getpid() };
	struct mp3ring ring;
	uint64_t cpu = 0, first;
	pid_t holder;
	long faults;
	int armed, err;

	/* One fault per 4 KiB page, whatever the THP setting. */
	if (prctl(PR_SET_THP_DISABLE, 1, 0, 0, 0))
		die("PR_SET_THP_DISABLE", errno);
	holder = fork();
	if (holder < 0)
		die("fork", errno);
	if (!holder) {
		for (;;)
			pause();
	}
	err = other ? register_latency(holder) : procstatus_command(MP3_STATUS_PATH, 'R', holder);
	if (!err && self)
		err = register_latency(getpid());
	if (err)
		die("registering", -err);
	map_ring(&ring);
	/* Disarmed by the sampler's next tick once nothing asks for latency (an earlier run). */
	for (int i = 0; i < 40 && (armed = fault_probe_armed(&ftrace)) > 0 && !other && !self; i++)
		usleep(50000);
	if (armed >= 0 && armed != (other || self))
		die(armed ? "the probe on handle_mm_fault is armed" :
		    "the probe on handle_mm_fault is not armed", EPROTO);
	if (armed < 0)
		usleep(200000);
	first = mp3ring_head(&ring);
	getrusage(RUSAGE_SELF, &before);
	for (unsigned int r = 0; r < rounds; r++)
		cpu += touch_fresh(pages, page);
	getrusage(RUSAGE_SELF, &after);
	faults = after.ru_minflt - before.ru_minflt;
	if (self) {
		/* The faults of the last period are in the next tick's records. */
		usleep(200000);
		read_timed(&ring, first, &timed);
		err = procstatus_command(MP3_STATUS_PATH, 'U', getpid());
		if (err)
			die("unregistering this process", -err);
	}
	err = procstatus_command(MP3_STATUS_PATH, 'U', holder);
	if (err)
		die("unregistering the child", -err);
	kill(holder, SIGKILL);
	waitpid(holder, NULL, 0);
	mp3ring_unmap(&ring);
	printf("latency mode=%s pages=%lu rounds=%u faults=%ld ns_per_fault=%.1f armed=%d probe=%s"
	       " timed=%llu timed_ns_per_fault=%.1f\n", mode, pages, rounds, faults,
	       faults ? (double)cpu / faults : 0.0, armed,
	       armed < 0 ? "unknown" : !armed ? "none" : ftrace ? "ftrace" : "int3", (unsigned long long)timed.faults,
	       timed.faults ? (double)timed.ns / timed.faults : 0.0);
	return 0;
}
