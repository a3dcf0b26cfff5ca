// SPDX-License-Identifier: GPL-2.0
#include "refaultcost.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include <linux/mp3.h>

#include "benchring.h"
#include "clock.h"
#include "kprobes.h"
#include "targetsfile.h"

/* MADV_PAGEOUT (Linux 5.4) from <linux/mman.h>, which glibc's headers may lack. */
#ifndef MADV_PAGEOUT
#define MADV_PAGEOUT 21
#endif

/* The pages of files read again that this process's records say, and those of cgroups evicted. */
struct refaults_traced {
	uint32_t tgid;
	uint64_t pages, evicted;
};

static void add_traced(void *ctx, const struct mp3_proc_record *r)
{
	struct refaults_traced *t = ctx;

	if (r->type == MP3_RECORD_REFAULT && r->tgid == t->tgid)
		t->pages += r->swap_time.pages;
	else if (r->type == MP3_RECORD_CGROUP_EVICT)
		t->evicted += r->swap_time.pages;
}

static uint64_t read_all(const char *p, unsigned long pages, long page)
{
	uint64_t sum = 0;

	for (unsigned long i = 0; i < pages; i++)
		sum += ((const volatile char *)p)[i * page];
	return sum;
}

/*
 * The first pages pages of path mapped, each fault reading its own page,
 * read, pushed out and read again once: its pages are then in the page
 * cache and charged to this process's memory cgroup.
 */
static char *map_warm(const char *path, unsigned long pages, long page)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	char *p;

	if (fd < 0)
		die(path, errno);
	p = mmap(NULL, pages * page, PROT_READ, MAP_SHARED, fd, 0);
	close(fd);
	if (p == MAP_FAILED)
		die("mmap", errno);
	if (madvise(p, pages * page, MADV_RANDOM))
		die("madvise(MADV_RANDOM)", errno);
	read_all(p, pages, page);
	if (madvise(p, pages * page, MADV_PAGEOUT))
		die("madvise(MADV_PAGEOUT)", errno);
	read_all(p, pages, page);
	return p;
}

/*
 * The CPU time of the touches and the pages read again over rounds rounds,
 * and of the MADV_PAGEOUTs that evicted them before.
 */
struct refault_rounds {
	uint64_t cpu_ns, refaults, evict_ns;
};

static struct refault_rounds refault_rounds(char *p, unsigned long pages, long page,
					    unsigned int rounds)
{
	struct refault_rounds r = { 0 };

	for (unsigned int i = 0; i < rounds; i++) {
		uint64_t before, start;

		start = clock_ns(CLOCK_PROCESS_CPUTIME_ID);
		if (madvise(p, pages * page, MADV_PAGEOUT))
			die("madvise(MADV_PAGEOUT)", errno);
		r.evict_ns += clock_ns(CLOCK_PROCESS_CPUTIME_ID) - start;
		before = vmstat_count("workingset_refault_file");
		start = clock_ns(CLOCK_PROCESS_CPUTIME_ID);
		read_all(p, pages, page);
		r.cpu_ns += clock_ns(CLOCK_PROCESS_CPUTIME_ID) - start;
		r.refaults += vmstat_count("workingset_refault_file") - before;
	}
	if (r.refaults < (uint64_t)pages * rounds / 2)
		die("reading the pages again (were they pushed out?)", EAGAIN);
	return r;
}

int cmd_refault_cost(const char *path, unsigned long pages, unsigned int rounds,
		     const char *mode)
{
	bool other = !strcmp(mode, "other"), self = !strcmp(mode, "self");
	bool charged = !strcmp(mode, "charged"), cgroup = charged || !strcmp(mode, "cgroup");
	struct refaults_traced traced = { .tgid = (uint32_t)getpid() };
	const long page = sysconf(_SC_PAGESIZE);
	struct refault_rounds done;
	uint64_t first, dropped;
	char *p;
	struct mp3ring ring;
	int armed, evictions;
	pid_t sleeper;
	bool ftrace;

	/* In "charged", a child is its cgroup's already: this process stands for the sleeper. */
	sleeper = charged ? 0 : spawn_registered_sleeper(other ? TARGETSFILE_OPT_PAGES : 0);
	if (self)
		register_self(TARGETSFILE_OPT_PAGES);
	map_ring(&ring);
	armed = kprobe_expect("filemap_add_folio", 'r', other || self || cgroup, &ftrace);
	evictions = kprobe_expect("__filemap_remove_folio", 'k', cgroup, &ftrace);
	if (armed >= 0 && evictions < 0)
		die("the kprobes' list lost __filemap_remove_folio", EPROTO);
	p = map_warm(path, pages, page);
	/* The warm round's events go out at the next tick, before the first record counted. */
	usleep(200000);
	first = mp3ring_head(&ring);
	dropped = mp3ring_swap_dropped(&ring);
	done = refault_rounds(p, pages, page, rounds);
	dropped = mp3ring_swap_dropped(&ring) - dropped;
	munmap(p, pages * page);
	/* The events of the last period are in the next tick's records. */
	usleep(200000);
	if (self || charged)
		read_records(&ring, first, add_traced, &traced);
	if (self)
		unregister_self();
	if (sleeper)
		end_registered_sleeper(sleeper);
	mp3ring_unmap(&ring);
	/* Each page read again was evicted once before. */
	printf("refault mode=%s pages=%lu rounds=%u refaults=%" PRIu64 " ns_per_refault=%.1f"
	       " ns_per_eviction=%.1f armed=%d evictions_armed=%d traced=%" PRIu64
	       " evicted=%" PRIu64 " dropped=%" PRIu64 "\n", mode, pages, rounds, done.refaults,
	       (double)done.cpu_ns / (double)done.refaults,
	       (double)done.evict_ns / (double)done.refaults, armed, evictions, traced.pages,
	       traced.evicted, dropped);
	return 0;
}
