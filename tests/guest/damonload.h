/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the DAMON and heatmap tests share: DAMON in this kernel, a process
 * touching random pages, and how hot DAMON found them.
 */
#ifndef PFPROF_GUEST_DAMONLOAD_H
#define PFPROF_GUEST_DAMONLOAD_H

#include "harness.h"
#include "heatmap/damon.h"

/*
 * Debian 12's kernel is built without DAMON (# CONFIG_DAMON is not set),
 * and so is the debug kernel (tests/guest/run says so in PFPROF_NO_DAMON);
 * Debian's 6.12 and 7.x have it. Sets *why for one without.
 */
bool kernel_has_damon(const char **why);

/* The calling process on CPU 0 alone. */
void pin_to_cpu0(void);

/* Yields, on CPU 0, for ever: the random toucher's companion. */
pid_t spawn_yielder(void);

/* A random order of the region's pages (Fisher-Yates), the same every run. */
void shuffle_pages(uint32_t *order);

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
void random_toucher(int go, int back);

/*
 * The access counts of the toucher's pages, summed over snapshots: what a
 * heatmap of the region shows over that time. One snapshot's counts are
 * binomial (a sample finds the page touched or not), and the sum over a
 * few is what "hot" is judged on.
 */
struct page_heat {
	uint64_t start;			/* the region's first address */
	uint32_t sum[REGION_PAGES];
};

/* Adds a region's count to each page of the toucher's region it covers (regions are whole pages). */
void add_region(struct page_heat *ph, const struct damon_region *r);

/* qsort()'s order of page_heat sums, the least first. */
int compare_sums(const void *a, const void *b);

/*
 * The share of the region's pages with at least half the most its pages
 * had, the hottest 1 % of them left out of that most (in *most). On 7.3 a
 * few pages (0.2 % of them) had 20 accesses of 20 in every snapshot while
 * the rest had 7: DAMON's regions at the area's edge may reach into memory
 * of another use (an inference; not looked into), and the maximum of all
 * would judge the whole area by them.
 */
double hot_share(const struct page_heat *ph, uint32_t *most);

/*
 * DAMON as the guest booted: no kdamond of the sysfs interface on (one left
 * by a test that failed is stopped), damon_stat on where the kernel has it
 * (7.x starts it at boot). Returns damon_check()'s answer.
 */
int damon_as_booted(void);

#endif /* PFPROF_GUEST_DAMONLOAD_H */
