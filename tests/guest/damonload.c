// SPDX-License-Identifier: GPL-2.0
#include "damonload.h"

#include <errno.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "harness.h"

/*
 * Debian 12's kernel is built without DAMON (# CONFIG_DAMON is not set),
 * and so is the debug kernel (tests/guest/run says so in PFPROF_NO_DAMON);
 * Debian's 6.12 and 7.x have it. Sets *why for one without.
 */
bool kernel_has_damon(const char **why)
{
	struct utsname u;

	expect(!uname(&u), "uname: %s", strerror(errno));
	*why = getenv("PFPROF_NO_DAMON");
	if (!*why && !strncmp(u.release, "6.1.", 4))
		*why = "this kernel has no DAMON";
	return !*why;
}

void pin_to_cpu0(void)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(0, &set);
	if (sched_setaffinity(0, sizeof(set), &set))
		_exit(6);
}

/* Yields, on CPU 0, for ever: the random toucher's companion. */
pid_t spawn_yielder(void)
{
	pid_t pid = fork();

	expect(pid >= 0, "fork: %s", strerror(errno));
	if (!pid) {
		pin_to_cpu0();
		for (;;)
			sched_yield();
	}
	return pid;
}

/* A random order of the region's pages (Fisher-Yates), the same every run. */
void shuffle_pages(uint32_t *order)
{
	unsigned int seed = 1;

	for (uint32_t i = 0; i < REGION_PAGES; i++)
		order[i] = i;
	for (uint32_t i = REGION_PAGES - 1; i > 0; i--) {
		uint32_t j = (uint32_t)rand_r(&seed) % (i + 1), t = order[i];

		order[i] = order[j];
		order[j] = t;
	}
}

/*
 * spawn_piped()'s fn: touches the pages of a REGION_PAGES region in a
 * random order for ever, every page once a round, after saying where it
 * is; on CPU 0, yielding after each round to spawn_yielder()'s process
 * there.
 *
 * Why the yields: DAMON clears a page's accessed bit and looks whether it
 * is set again a sample later, without flushing the TLB (mm/damon/
 * ops-common.c, damon_ptep_mkold()); the bit is set again only when a TLB
 * miss walks the page table. A real CPU's TLB holds a few thousand pages
 * and misses all the time over 16384; QEMU's software TLB grows to hold
 * them all, so that under TCG DAMON saw the region accessed for about a
 * second, then never again. A switch to another process loads CR3, which
 * makes QEMU flush its TLB: with a process that yields beside it on its
 * CPU, the toucher's next touches walk the page tables again.
 *
 * Why rounds: DAMON samples one page per region each 5 ms and counts the
 * samples that found it accessed; a region is hot when its pages are
 * touched between two samples. Touched at random with replacement, at the
 * million touches a second TCG allows with a yield every 64, a page was
 * touched in a sample's 5 ms one time in four: the counts were binomial
 * around 5 of 20, and a third of the region fell below half the most
 * (34.7 % on 6.12, 37.5 % on 7.3). A round touches every page, with one
 * TLB flush, in a few milliseconds.
 */
void random_toucher(int go, int back)
{
	long page = sysconf(_SC_PAGESIZE);
	char *p = map_region(REGION_PAGES);
	uint32_t *order = malloc(REGION_PAGES * sizeof(*order));

	(void)go;
	if (!order)
		_exit(3);
	shuffle_pages(order);
	pin_to_cpu0();
	touch_region(p, REGION_PAGES);
	child_says(back, (uintptr_t)p);
	for (;;) {
		for (uint32_t i = 0; i < REGION_PAGES; i++)
			((volatile char *)p)[order[i] * page]++;
		sched_yield();
	}
}

/* Adds a region's count to each page of the toucher's region it covers (regions are whole pages). */
void add_region(struct page_heat *ph, const struct damon_region *r)
{
	const uint64_t page = (uint64_t)sysconf(_SC_PAGESIZE), end = ph->start + REGION_PAGES * page;

	for (uint64_t a = r->start > ph->start ? r->start : ph->start; a < r->end && a < end;
	     a += page)
		ph->sum[(a - ph->start) / page] += r->nr_accesses;
}

int compare_sums(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return (x > y) - (x < y);
}

/*
 * The share of the region's pages with at least half the most its pages
 * had, the hottest 1 % of them left out of that most (in *most). On 7.3 a
 * few pages (0.2 % of them) had 20 accesses of 20 in every snapshot while
 * the rest had 7: DAMON's regions at the area's edge may reach into memory
 * of another use (an inference; not looked into), and the maximum of all
 * would judge the whole area by them.
 */
double hot_share(const struct page_heat *ph, uint32_t *most)
{
	static uint32_t sorted[REGION_PAGES];
	unsigned int hot = 0;

	memcpy(sorted, ph->sum, sizeof(sorted));
	qsort(sorted, REGION_PAGES, sizeof(*sorted), compare_sums);
	*most = sorted[REGION_PAGES * 99 / 100];
	for (unsigned int i = 0; i < REGION_PAGES; i++)
		hot += *most && 2 * ph->sum[i] >= *most;
	return (double)hot / REGION_PAGES;
}

/*
 * DAMON as the guest booted: no kdamond of the sysfs interface on (one left
 * by a test that failed is stopped), damon_stat on where the kernel has it
 * (7.x starts it at boot). Returns damon_check()'s answer.
 */
int damon_as_booted(void)
{
	int err = damon_check(DAMON_ADMIN);

	if (err == -EBUSY) {
		expect_ok(damon_stop(DAMON_ADMIN), "stopping a kdamond a failed test left on");
		err = damon_check(DAMON_ADMIN);
	}
	if (damon_stat_enabled(DAMON_STAT_ENABLED) == 0)
		expect_ok(damon_stat_set(DAMON_STAT_ENABLED, 1), "turning damon_stat on again");
	return err;
}
