// SPDX-License-Identifier: GPL-2.0
#include "faultlatency.h"

#include <errno.h>
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
#include "kprobes.h"
#include "targetsfile.h"

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
	int armed;

	/* One fault per 4 KiB page, whatever the THP setting. */
	if (prctl(PR_SET_THP_DISABLE, 1, 0, 0, 0))
		die("PR_SET_THP_DISABLE", errno);
	holder = spawn_registered_sleeper(other ? TARGETSFILE_OPT_LATENCY : 0);
	if (self)
		register_self(TARGETSFILE_OPT_LATENCY);
	map_ring(&ring);
	armed = kprobe_expect("handle_mm_fault", 'r', other || self, &ftrace);
	first = mp3ring_head(&ring);
	getrusage(RUSAGE_SELF, &before);
	for (unsigned int r = 0; r < rounds; r++)
		cpu += touch_fresh(pages, page);
	getrusage(RUSAGE_SELF, &after);
	faults = after.ru_minflt - before.ru_minflt;
	if (self) {
		/* The faults of the last period are in the next tick's records. */
		usleep(200000);
		read_records(&ring, first, add_timed, &timed);
		unregister_self();
	}
	end_registered_sleeper(holder);
	mp3ring_unmap(&ring);
	printf("latency mode=%s pages=%lu rounds=%u faults=%ld ns_per_fault=%.1f armed=%d probe=%s"
	       " timed=%llu timed_ns_per_fault=%.1f\n", mode, pages, rounds, faults,
	       faults ? (double)cpu / faults : 0.0, armed,
	       armed < 0 ? "unknown" : !armed ? "none" : ftrace ? "ftrace" : "int3", (unsigned long long)timed.faults,
	       timed.faults ? (double)timed.ns / timed.faults : 0.0);
	return 0;
}
