// SPDX-License-Identifier: GPL-2.0
/*
 * The kernel's DAMON, driven through pfprofctl heatmap's driver (docs/damon.md): present
 * from 6.12 on, absent from Debian 12's 6.1; what it sees of a process
 * touching a region at random; 7.x's damon_stat, which holds DAMON from
 * boot and must be handed back as it was.
 */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cgroupfs.h"
#include "heatmap/damon.h"
#include "harness.h"
#include "tests.h"

/* Snapshots taken, one a second as pfprofd would, after a second for DAMON to adapt. */
#define SNAPSHOTS 3
/*
 * pfprofctl's 20 samples an aggregation, each 4 times as long (20 ms,
 * 400 ms): under TCG the toucher's round over 16384 pages took about 5 ms
 * on an idle host and longer beside other guests, and a page is found
 * accessed only if the round reached it within the sample. With the
 * product's 5 ms, 7.3 beside two other guests counted about 5 of 20.
 */
#define TCG_ATTRS { .sample_us = 20000, .aggr_us = 400000, .update_us = 1000000, \
		    .min_regions = 10, .max_regions = 1000 }

/*
 * Debian 12's kernel is built without DAMON (# CONFIG_DAMON is not set),
 * and so is the debug kernel (tests/guest/run says so in PFPROF_NO_DAMON);
 * Debian's 6.12 and 7.x have it. Sets *why for one without.
 */
static bool kernel_has_damon(const char **why)
{
	struct utsname u;

	expect(!uname(&u), "uname: %s", strerror(errno));
	*why = getenv("PFPROF_NO_DAMON");
	if (!*why && !strncmp(u.release, "6.1.", 4))
		*why = "this kernel has no DAMON";
	return !*why;
}

static void pin_to_cpu0(void)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(0, &set);
	if (sched_setaffinity(0, sizeof(set), &set))
		_exit(6);
}

/* Yields, on CPU 0, for ever: the random toucher's companion. */
static pid_t spawn_yielder(void)
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
static void shuffle_pages(uint32_t *order)
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
static void random_toucher(int go, int back)
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
static void add_region(struct page_heat *ph, const struct damon_region *r)
{
	const uint64_t page = (uint64_t)sysconf(_SC_PAGESIZE), end = ph->start + REGION_PAGES * page;

	for (uint64_t a = r->start > ph->start ? r->start : ph->start; a < r->end && a < end;
	     a += page)
		ph->sum[(a - ph->start) / page] += r->nr_accesses;
}

static int compare_sums(const void *a, const void *b)
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
static double hot_share(const struct page_heat *ph, uint32_t *most)
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
 * The share of the region's pages that some snapshot found accessed: with
 * the product's 5 ms samples under TCG, how hot depends on how fast the
 * host runs the toucher (damon_random_hot judges that), whether DAMON saw
 * the whole region used does not.
 */
static double seen_share(const struct page_heat *ph)
{
	unsigned int seen = 0;

	for (unsigned int i = 0; i < REGION_PAGES; i++)
		seen += ph->sum[i] > 0;
	return (double)seen / REGION_PAGES;
}

/*
 * DAMON as the guest booted: no kdamond of the sysfs interface on (one left
 * by a test that failed is stopped), damon_stat on where the kernel has it
 * (7.x starts it at boot). Returns damon_check()'s answer.
 */
static int damon_as_booted(void)
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

/*
 * 7.x's damon_stat runs an exclusive kdamond from boot: ours is refused
 * (EBUSY) until it is turned off. Returns whether it was on, and is off now.
 */
static bool take_from_damon_stat(pid_t pid, const struct damon_attrs *attrs)
{
	int stat_on = damon_stat_enabled(DAMON_STAT_ENABLED), err;

	expect(stat_on >= 0 || stat_on == -ENOENT, "%s: %s", DAMON_STAT_ENABLED,
	       strerror(-stat_on));
	if (stat_on <= 0)
		return false;
	err = damon_start(DAMON_ADMIN, &pid, 1, attrs);
	expect_errno(err, EBUSY, "our kdamond beside damon_stat's");
	expect_ok(damon_stat_set(DAMON_STAT_ENABLED, 0), "turning damon_stat off");
	return true;
}

/*
 * A process touching 64 MiB at random: over SNAPSHOTS snapshots, at least
 * 90 % of the region's bytes have at least half the accesses of its most
 * accessed pages (hot_share()).
 */
void test_damon_random_hot(void)
{
	const struct damon_attrs attrs = TCG_ATTRS;
	struct page_heat *ph = calloc(1, sizeof(*ph));
	struct damon_region *regions;
	int go_fd, back_fd, err;
	pid_t toucher, yielder;
	uintptr_t start;
	bool stat_was_on;
	uint32_t most;
	const char *why;
	double share;
	size_t count;

	expect(ph != NULL, "no memory");
	err = damon_as_booted();
	if (!kernel_has_damon(&why)) {
		expect_errno(err, ENOENT, "DAMON's sysfs interface on a kernel without DAMON");
		printf("  damon_random_hot: not run: %s\n", why);
		free(ph);
		return;
	}
	expect_ok(err, "DAMON's sysfs interface, no kdamond of it on");
	yielder = spawn_yielder();
	toucher = spawn_piped(random_toucher, &go_fd, &back_fd);
	expect(read(back_fd, &start, sizeof(start)) == sizeof(start), "the toucher's region");
	ph->start = start;
	stat_was_on = take_from_damon_stat(toucher, &attrs);
	expect_ok(damon_start(DAMON_ADMIN, &toucher, 1, &attrs), "starting our kdamond");
	sleep_ms(1000);
	for (int i = 0; i < SNAPSHOTS; i++) {
		struct page_heat one = { .start = start };

		expect_ok(damon_snapshot(DAMON_ADMIN, 0, &regions, &count), "a snapshot");
		for (size_t r = 0; r < count; r++) {
			add_region(ph, &regions[r]);
			add_region(&one, &regions[r]);
		}
		free(regions);
		share = hot_share(&one, &most);
		printf("  damon_random_hot: snapshot %d: %zu regions, the most accesses %" PRIu32
		       " of %" PRIu64 ", %.1f %% of the region at half of it or more\n", i, count,
		       most, attrs.aggr_us / attrs.sample_us, 100 * share);
		sleep_ms(1000);
	}
	share = hot_share(ph, &most);
	printf("  damon_random_hot: the %d snapshots summed: the most %" PRIu32 ", %.1f %% of the "
	       "region at half of it or more\n", SNAPSHOTS, most, 100 * share);
	expect(most > 0 && share >= 0.9, "%.1f %% of the region hot (the most %" PRIu32 ")",
	       100 * share, most);
	free(ph);
	expect_ok(damon_stop(DAMON_ADMIN), "stopping our kdamond");
	if (stat_was_on) {
		expect_ok(damon_stat_set(DAMON_STAT_ENABLED, 1), "turning damon_stat on again");
		expect(damon_stat_enabled(DAMON_STAT_ENABLED) == 1, "damon_stat is off afterwards");
	}
	kill_and_reap(toucher);
	kill_and_reap(yielder);
	close(go_fd);
	close(back_fd);
}

/*
 * DAMON's target exits: the kdamond stops by itself, and the next
 * snapshot says so (ESRCH, from EINVAL on 6.12 and ECANCELED on 7.x), as
 * does stopping it (nothing to do).
 */
void test_damon_target_exit(void)
{
	const struct damon_attrs attrs = DAMON_ATTRS_DEFAULT;
	struct damon_region *regions;
	pid_t sleeper;
	bool stat_was_on;
	size_t count;
	int err = -EAGAIN;
	const char *why;

	if (!kernel_has_damon(&why)) {
		printf("  damon_target_exit: not run: %s\n", why);
		return;
	}
	expect_ok(damon_as_booted(), "DAMON's sysfs interface, no kdamond of it on");
	sleeper = spawn_sleeper();
	stat_was_on = take_from_damon_stat(sleeper, &attrs);
	expect_ok(damon_start(DAMON_ADMIN, &sleeper, 1, &attrs), "starting our kdamond");
	expect_ok(damon_snapshot(DAMON_ADMIN, 0, &regions, &count), "a snapshot of the sleeper");
	free(regions);
	kill_and_reap(sleeper);
	/* kdamond sees its target gone at its next check of the targets. */
	for (uint64_t deadline = now_ns() + 5000000000ULL; err != -ESRCH && now_ns() < deadline;) {
		err = damon_snapshot(DAMON_ADMIN, 0, &regions, &count);
		free(regions);
		sleep_ms(100);
	}
	expect_errno(err, ESRCH, "a snapshot once the target has exited");
	expect_ok(damon_stop(DAMON_ADMIN), "stopping a kdamond that stopped by itself");
	expect_ok(damon_check(DAMON_ADMIN), "no kdamond of the sysfs interface on afterwards");
	if (stat_was_on)
		expect_ok(damon_stat_set(DAMON_STAT_ENABLED, 1), "turning damon_stat on again");
}

/* The sliding window: 32 MiB moving through 256 MiB, 1.5 s at each of its 8 places. */
#define SLIDE_WINDOW_PAGES 8192
#define SLIDE_PLACES 8
#define SLIDE_HOLD_MS 1500
#define SLIDE_SNAPSHOTS 10

/*
 * spawn_piped()'s fn: maps SLIDE_PLACES windows end to end, says where,
 * and once told to, touches the window at place (time / SLIDE_HOLD_MS) in
 * rounds, on CPU 0 with a yield after each (random_toucher() says why),
 * staying at the last place. A window left behind is given back
 * (MADV_DONTNEED): the guest has 512 MiB, and memory no longer mapped in
 * is no longer a candidate for an accessed bit.
 */
static void sliding_toucher(int go, int back)
{
	const size_t page = (size_t)sysconf(_SC_PAGESIZE), window = SLIDE_WINDOW_PAGES * page;
	char *p = map_region(SLIDE_PLACES * SLIDE_WINDOW_PAGES);
	unsigned int place = 0;
	uint64_t start;

	pin_to_cpu0();
	child_says(back, (uintptr_t)p);
	child_waits(go);
	start = now_ns();
	for (;;) {
		unsigned int now = (unsigned int)((now_ns() - start) / 1000000 / SLIDE_HOLD_MS);

		if (now >= SLIDE_PLACES)
			now = SLIDE_PLACES - 1;
		if (now != place && madvise(p + place * window, window, MADV_DONTNEED))
			_exit(7);
		place = now;
		touch_region(p + place * window, SLIDE_WINDOW_PAGES);
		sched_yield();
	}
}

/*
 * One snapshot of the sliding region [start, end): the bytes in regions
 * with at least half the most accesses any of its regions had, and their
 * centre; false if no region there was accessed.
 */
static bool hot_band(const struct damon_region *regions, size_t count, uint64_t start,
		     uint64_t end, uint64_t *bytes, double *centre)
{
	uint32_t most = 0;
	double weighted = 0;

	for (size_t i = 0; i < count; i++)
		if (regions[i].start < end && regions[i].end > start && regions[i].nr_accesses > most)
			most = regions[i].nr_accesses;
	*bytes = 0;
	for (size_t i = 0; most && i < count; i++) {
		const struct damon_region *r = &regions[i];
		uint64_t from = r->start > start ? r->start : start, to = r->end < end ? r->end : end;

		if (from >= to || 2 * r->nr_accesses < most)
			continue;
		*bytes += to - from;
		weighted += (double)(to - from) * ((double)(from + to) / 2 - (double)start);
	}
	*centre = *bytes ? weighted / (double)*bytes : 0;
	return most > 0;
}

/*
 * A window sliding through 256 MiB: in each snapshot the hot band is at
 * most 3 times the window (DAMON's adaptive regions need a few
 * aggregations to split around a new window), and its centre advances: no
 * step back by more than half a window, and at least 3 windows from the
 * first snapshot to the last.
 */
void test_damon_sliding_window(void)
{
	const struct damon_attrs attrs = TCG_ATTRS;
	const uint64_t window = SLIDE_WINDOW_PAGES * (uint64_t)sysconf(_SC_PAGESIZE);
	double first = -1, last = -1;
	unsigned int banded = 0;
	struct damon_region *regions;
	int go_fd, back_fd, err;
	pid_t toucher, yielder;
	uintptr_t start;
	bool stat_was_on;
	const char *why;
	size_t count;

	err = damon_as_booted();
	if (!kernel_has_damon(&why)) {
		expect_errno(err, ENOENT, "DAMON's sysfs interface on a kernel without DAMON");
		printf("  damon_sliding_window: not run: %s\n", why);
		return;
	}
	expect_ok(err, "DAMON's sysfs interface, no kdamond of it on");
	yielder = spawn_yielder();
	toucher = spawn_piped(sliding_toucher, &go_fd, &back_fd);
	expect(read(back_fd, &start, sizeof(start)) == sizeof(start), "the toucher's region");
	stat_was_on = take_from_damon_stat(toucher, &attrs);
	expect_ok(damon_start(DAMON_ADMIN, &toucher, 1, &attrs), "starting our kdamond");
	expect(write(go_fd, "g", 1) == 1, "starting the window: %s", strerror(errno));
	for (int i = 0; i < SLIDE_SNAPSHOTS; i++) {
		uint64_t bytes;
		double centre;

		sleep_ms(1000);
		expect_ok(damon_snapshot(DAMON_ADMIN, 0, &regions, &count), "a snapshot");
		if (!hot_band(regions, count, start, start + SLIDE_PLACES * window, &bytes,
			      &centre)) {
			printf("  damon_sliding_window: snapshot %d: nothing accessed\n", i);
			free(regions);
			continue;
		}
		free(regions);
		printf("  damon_sliding_window: snapshot %d: %zu regions, hot band %.1f MiB, its "
		       "centre at %.1f MiB\n", i, count, (double)bytes / (1 << 20),
		       centre / (1 << 20));
		expect(bytes <= 3 * window, "snapshot %d: a hot band of %.1f windows", i,
		       (double)bytes / (double)window);
		expect(last < 0 || centre >= last - (double)window / 2,
		       "snapshot %d: the centre went back from %.1f to %.1f MiB", i,
		       last / (1 << 20), centre / (1 << 20));
		if (first < 0)
			first = centre;
		last = centre;
		banded++;
	}
	expect(banded >= SLIDE_SNAPSHOTS / 2, "only %u of %d snapshots saw the window", banded,
	       SLIDE_SNAPSHOTS);
	expect(last - first >= 3 * (double)window, "the centre moved %.1f MiB, from %.1f to %.1f",
	       (last - first) / (1 << 20), first / (1 << 20), last / (1 << 20));
	expect_ok(damon_stop(DAMON_ADMIN), "stopping our kdamond");
	if (stat_was_on)
		expect_ok(damon_stat_set(DAMON_STAT_ENABLED, 1), "turning damon_stat on again");
	kill_and_reap(toucher);
	kill_and_reap(yielder);
	close(go_fd);
	close(back_fd);
}

#define HEATMAP_LOG "/tmp/pfprof-heatmap.log"
#define HEATMAP_ERR "/tmp/pfprof-heatmap.err"
#define HEATMAP_OUT "/tmp/pfprof-heatmap.out"
#define HEATMAP_SECONDS "5"

/* A heatmap log's region lines summed over the toucher's pages, and how many map lines name it. */
struct heatmap_read {
	struct page_heat heat;
	uint64_t last_ns;
	unsigned int snapshots, maps_of_start;
};

static void read_heatmap_log(const char *path, uint64_t start, struct heatmap_read *h)
{
	FILE *f = fopen(path, "re");
	char line[512];

	expect(f != NULL, "%s: %s", path, strerror(errno));
	memset(h, 0, sizeof(*h));
	h->heat.start = start;
	while (fgets(line, sizeof(line), f)) {
		unsigned long long ns, from, to;
		unsigned int nr, age;

		if (sscanf(line, "map\t%llu\t%llx\t%llx\t", &ns, &from, &to) == 3) {
			h->maps_of_start += from == start;
		} else if (sscanf(line, "region\t%llu\t%llx\t%llx\t%u\t%u", &ns, &from, &to, &nr,
				  &age) == 5) {
			h->snapshots += ns != h->last_ns;
			h->last_ns = ns;
			add_region(&h->heat, &(struct damon_region){ from, to, nr, age });
		} else {
			expect(line[0] == '#', "%s: a line of neither kind: %s", path, line);
		}
	}
	fclose(f);
}

/* What pfprofctl heatmap --record said it did: snapshots, and how many of them were empty. */
static void read_record_summary(unsigned long *snapshots, unsigned long *empty)
{
	FILE *f = fopen(HEATMAP_OUT, "re");
	char line[512];
	unsigned long n;
	int end;

	expect(f != NULL, "%s: %s", HEATMAP_OUT, strerror(errno));
	*snapshots = *empty = ULONG_MAX;
	while (fgets(line, sizeof(line), f)) {
		/* %n: the words matched too ("1 of them empty" is no count of snapshots). */
		end = 0;
		if (sscanf(line, "%lu snapshots of process%n", &n, &end) == 1 && end) {
			*snapshots = n;
			continue;
		}
		end = 0;
		if (sscanf(line, "%lu of them empty%n", &n, &end) == 1 && end)
			*empty = n;
		else
			expect(0, "pfprofctl heatmap --record said: %s", line);
	}
	fclose(f);
	expect(*snapshots != ULONG_MAX, "pfprofctl heatmap --record gave no summary");
	if (*empty == ULONG_MAX)
		*empty = 0;
}

#define HEATMAP_NOBODY_ERR "/tmp/pfprof-heatmap-nobody.err"

/*
 * in_child()'s fn: as nobody, recording nobody's own process pid is
 * refused (EPERM: DAMON's files are root's); where the kernel has no DAMON,
 * that is said first.
 */
static void record_as_nobody(int pid)
{
	char arg[16];
	const char *why;
	int status;

	snprintf(arg, sizeof(arg), "%d", pid);
	become_nobody();
	unlink(HEATMAP_NOBODY_ERR);
	status = run_program_err((char *[]){ "./pfprofctl", "heatmap", "--record", arg, NULL },
				 "/dev/null", HEATMAP_NOBODY_ERR);
	show_file(HEATMAP_NOBODY_ERR, "  heatmap_record (nobody)| ");
	expect(status == 1 && file_contains(HEATMAP_NOBODY_ERR, kernel_has_damon(&why) ?
					    "are root's: Operation not permitted" :
					    "this kernel has no DAMON"),
	       "pfprofctl heatmap --record %s as nobody: exit %d, not the message", arg, status);
}

/*
 * pfprofctl heatmap --record on the random toucher: a snapshot a second
 * for --seconds, the toucher's region among the mappings, 90 % of it seen
 * accessed; damon_stat handed back. On 6.1, the message. Refused first:
 * a kernel thread, and nobody recording its own process. 6.12 may give
 * an empty snapshot when its kdamond falls behind (pfprofctl/heatmap/damon.c,
 * damon_snapshot()): the command must say so, and most snapshots must
 * still have regions.
 */
void test_heatmap_record(void)
{
	int go_fd, back_fd, status, stat_before;
	struct heatmap_read *h = malloc(sizeof(*h));
	pid_t toucher, yielder, nobody;
	unsigned long said_snapshots, said_empty;
	const char *why;
	char pid[16];
	uintptr_t start;
	uint32_t most;
	double share, seen;

	expect(h != NULL, "no memory");
	/* PID 2 is kthreadd here, the first kernel thread (host tests may run where it is not). */
	status = run_program_err((char *[]){ "./pfprofctl", "heatmap", "--record", "2", NULL },
				 "/dev/null", HEATMAP_ERR);
	expect(status == 1 && file_contains(HEATMAP_ERR, kernel_has_damon(&why) ?
					    "(kthreadd) is a kernel thread: it has no address "
					    "space: Invalid argument" : "this kernel has no DAMON"),
	       "pfprofctl heatmap --record 2: exit %d, not the message", status);
	nobody = spawn_nobody_sleeper();
	in_child(record_as_nobody, nobody, "recording as nobody");
	kill_and_reap(nobody);
	if (kernel_has_damon(&why))
		expect_ok(damon_as_booted(), "DAMON's sysfs interface, no kdamond of it on");
	yielder = spawn_yielder();
	toucher = spawn_piped(random_toucher, &go_fd, &back_fd);
	expect(read(back_fd, &start, sizeof(start)) == sizeof(start), "the toucher's region");
	snprintf(pid, sizeof(pid), "%d", (int)toucher);
	stat_before = damon_stat_enabled(DAMON_STAT_ENABLED);
	status = run_program_err((char *[]){ "./pfprofctl", "heatmap", "--record", "--take-damon",
					     "-s", HEATMAP_SECONDS, "-o", HEATMAP_LOG, pid, NULL },
				 HEATMAP_OUT, HEATMAP_ERR);
	if (!kernel_has_damon(&why)) {
		show_file(HEATMAP_ERR, "  heatmap_record| ");
		expect(status == 1 && file_contains(HEATMAP_ERR, "this kernel has no DAMON"),
		       "pfprofctl heatmap where %s: exit %d, not the message", why, status);
		goto out;
	}
	show_file(HEATMAP_OUT, "  heatmap_record| ");
	show_file(HEATMAP_ERR, "  heatmap_record| ");
	expect(status == 0, "pfprofctl heatmap --record: exit %d", status);
	read_record_summary(&said_snapshots, &said_empty);
	read_heatmap_log(HEATMAP_LOG, start, h);
	share = hot_share(&h->heat, &most);
	seen = seen_share(&h->heat);
	printf("  heatmap_record: %u snapshots, the region in %u map lines; %.1f %% of it seen "
	       "accessed, %.1f %% at half the most accesses (%" PRIu32 ") or more\n",
	       h->snapshots, h->maps_of_start, 100 * seen, 100 * share, most);
	expect(said_snapshots == (unsigned long)atoi(HEATMAP_SECONDS),
	       "%lu snapshots in " HEATMAP_SECONDS " s", said_snapshots);
	expect(h->snapshots == said_snapshots - said_empty,
	       "%u snapshots with regions in the log, said %lu of which %lu empty", h->snapshots,
	       said_snapshots, said_empty);
	expect(2 * h->snapshots > said_snapshots, "only %u of %lu snapshots had regions",
	       h->snapshots, said_snapshots);
	expect(h->maps_of_start == 1, "the region in %u map lines, want 1", h->maps_of_start);
	expect(seen >= 0.9, "%.1f %% of the region seen accessed", 100 * seen);
	expect(damon_stat_enabled(DAMON_STAT_ENABLED) == stat_before,
	       "damon_stat was %d, is %d afterwards", stat_before,
	       damon_stat_enabled(DAMON_STAT_ENABLED));
	expect_ok(damon_check(DAMON_ADMIN), "no kdamond of the sysfs interface on afterwards");
out:
	free(h);
	kill_and_reap(toucher);
	kill_and_reap(yielder);
	close(go_fd);
	close(back_fd);
}

#define MANY_DIR "/tmp/pfprof-heatmaps"
#define MANY_CONF MANY_DIR "/pfprofd.conf"
#define MANY_OUT MANY_DIR "/out"
#define MANY_ERR MANY_DIR "/err"
#define MANY 10

/* MANY_DIR, and MANY_CONF naming it the log directory, with the lines extra. */
static void make_many_dir(const char *extra)
{
	FILE *conf;

	expect(!mkdir(MANY_DIR, 0755) || errno == EEXIST, "%s: %s", MANY_DIR, strerror(errno));
	conf = fopen(MANY_CONF, "we");
	expect(conf && fprintf(conf, "log_dir = %s\n%s", MANY_DIR, extra) > 0 && !fclose(conf),
	       "%s: %s", MANY_CONF, strerror(errno));
}

/*
 * The start of a test of pfprofctl heatmap --record in MANY_DIR: false
 * (said) where the kernel has no DAMON; else DAMON as booted, and
 * MANY_CONF with the lines extra.
 */
static bool heatmap_test_begins(const char *test, const char *extra)
{
	const char *why;

	if (!kernel_has_damon(&why)) {
		printf("  %s: not run: %s\n", test, why);
		return false;
	}
	expect_ok(damon_as_booted(), "DAMON's sysfs interface, no kdamond of it on");
	make_many_dir(extra);
	return true;
}

/* Snapshots in the heatmap log of pid in MANY_DIR, after a header naming pid. */
static unsigned int many_snapshots(pid_t pid)
{
	char path[64], line[512], header[64];
	unsigned int snapshots = 0;
	unsigned long long ns, last = 0;
	FILE *f;

	snprintf(path, sizeof(path), MANY_DIR "/heatmap-%d.log", (int)pid);
	snprintf(header, sizeof(header), "# pid %d comm ", (int)pid);
	f = fopen(path, "re");
	expect(f != NULL, "%s: %s", path, strerror(errno));
	expect(fgets(line, sizeof(line), f) && fgets(line, sizeof(line), f) &&
	       !strncmp(line, header, strlen(header)), "%s: no header naming PID %d", path,
	       (int)pid);
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "region\t%llu", &ns) == 1 && ns != last) {
			snapshots++;
			last = ns;
		}
	}
	fclose(f);
	return snapshots;
}

/*
 * pfprofctl heatmap --record of MANY processes at once: a kdamond and a
 * log each, in the configured log directory. The second exits after 2 s:
 * its recording ends with it, the others go on for their 4 s; every
 * kdamond is off afterwards.
 */
void test_heatmap_record_many(void)
{
	char args[MANY][16], *argv[8 + MANY + 1] = { "./pfprofctl", "-c", MANY_CONF, "heatmap",
						     "--record", "--take-damon", "-s", "4" };
	pid_t sleepers[MANY], ctl;
	char said[64];
	int status;

	if (!heatmap_test_begins("heatmap_record_many", ""))
		return;
	for (int i = 0; i < MANY; i++) {
		sleepers[i] = spawn_sleeper();
		snprintf(args[i], sizeof(args[i]), "%d", (int)sleepers[i]);
		argv[8 + i] = args[i];
	}
	ctl = start_program_err(argv, MANY_OUT, MANY_ERR);
	sleep_ms(2000);
	kill_and_reap(sleepers[1]);
	status = wait_program(ctl, "pfprofctl heatmap --record");
	show_file(MANY_OUT, "  heatmap_record_many| ");
	show_file(MANY_ERR, "  heatmap_record_many| ");
	expect(status == 0, "pfprofctl heatmap --record of %d processes: exit %d", MANY, status);
	for (int i = 0; i < MANY; i++) {
		unsigned int n = many_snapshots(sleepers[i]);

		printf("  heatmap_record_many: PID %d: %u snapshots\n", (int)sleepers[i], n);
		if (i == 1) {
			snprintf(said, sizeof(said), "process %d exited: ", (int)sleepers[i]);
			expect(n >= 1 && n < 4, "the process that exited: %u snapshots", n);
		} else {
			snprintf(said, sizeof(said), "4 snapshots of process %d in ",
				 (int)sleepers[i]);
			expect(n >= 3, "PID %d: %u snapshots of 4", (int)sleepers[i], n);
			kill_and_reap(sleepers[i]);
		}
		expect(file_contains(MANY_OUT, said), "not said: %s", said);
	}
	expect_ok(damon_check(DAMON_ADMIN), "no kdamond of the sysfs interface on afterwards");
}

#define UNIT_NAME "pfprof-heatmap-test.service"
#define UNIT_DIR CGROUPFS_ROOT "/system.slice/" UNIT_NAME

/* pfprofctl heatmap --record for 2 s of target (its option, its name): a log each of want. */
static void record_target(const char *option, const char *name, const pid_t *want, int n)
{
	char *argv[] = { "./pfprofctl", "-c", MANY_CONF, "heatmap", "--record", "--take-damon",
			 (char *)option, "-s", "2", (char *)name, NULL };
	int status = run_program_err(argv, MANY_OUT, MANY_ERR);

	show_file(MANY_OUT, "  heatmap_record_targets| ");
	show_file(MANY_ERR, "  heatmap_record_targets| ");
	expect(status == 0, "pfprofctl heatmap --record %s %s: exit %d", option, name, status);
	for (int i = 0; i < n; i++) {
		char said[64];

		snprintf(said, sizeof(said), "2 snapshots of process %d in ", (int)want[i]);
		expect(file_contains(MANY_OUT, said) && many_snapshots(want[i]) == 2,
		       "%s %s: not 2 snapshots of PID %d", option, name, (int)want[i]);
	}
}

/*
 * --record --tree and --unit: a tree's root and the child it forked; a
 * unit's two processes (a cgroup at the place systemd gives a service's,
 * on cgroup2 mounted where pfprofctl looks); a unit that is not running.
 */
void test_heatmap_record_targets(void)
{
	int go_fd, child_fd, status;
	pid_t tree[2], unit[2];
	char root[16];

	if (!heatmap_test_begins("heatmap_record_targets", ""))
		return;
	tree[0] = spawn_forker(&go_fd, &child_fd);
	expect(write(go_fd, "g", 1) == 1 && read(child_fd, &tree[1], sizeof(tree[1])) ==
	       sizeof(tree[1]), "the forker's child: %s", strerror(errno));
	snprintf(root, sizeof(root), "%d", (int)tree[0]);
	record_target("--tree", root, tree, 2);
	kill_and_reap(tree[0]);
	close(go_fd);
	close(child_fd);

	mount_cgroup2(CGROUPFS_ROOT);
	expect(!mkdir(CGROUPFS_ROOT "/system.slice", 0755) || errno == EEXIST,
	       "mkdir system.slice: %s", strerror(errno));
	expect(!mkdir(UNIT_DIR, 0755) || errno == EEXIST, "mkdir %s: %s", UNIT_DIR,
	       strerror(errno));
	for (int i = 0; i < 2; i++) {
		unit[i] = spawn_sleeper();
		move_to_cgroup(UNIT_DIR, unit[i]);
	}
	record_target("--unit", UNIT_NAME, unit, 2);
	for (int i = 0; i < 2; i++)
		kill_and_reap(unit[i]);
	expect(!rmdir(UNIT_DIR), "rmdir %s: %s", UNIT_DIR, strerror(errno));
	status = run_program_err((char *[]){ "./pfprofctl", "heatmap", "--record", "--unit",
					     UNIT_NAME, NULL }, MANY_OUT, MANY_ERR);
	show_file(MANY_ERR, "  heatmap_record_targets| ");
	expect(status == 1 && file_contains(MANY_ERR, "it is not running (no cgroup)"),
	       "a unit that is not running: exit %d, not the message", status);
	expect_ok(damon_check(DAMON_ADMIN), "no kdamond of the sysfs interface on afterwards");
}

#define SURVIVES_PFPROFD_ERR MANY_DIR "/pfprofd.err"

/* pfprofd on MANY_CONF's directories, in the foreground. */
static pid_t start_pfprofd(void)
{
	return start_program_err((char *[]){ "./pfprofd", "--foreground", "--config", MANY_CONF,
					     NULL }, NULL, SURVIVES_PFPROFD_ERR);
}

static void stop_pfprofd(pid_t pfprofd)
{
	expect(!kill(pfprofd, SIGTERM), "SIGTERM to pfprofd: %s", strerror(errno));
	expect(wait_program(pfprofd, "pfprofd") == 0, "pfprofd failed (%s)",
	       SURVIVES_PFPROFD_ERR);
}

/*
 * A recording goes on through what happens to the rest of pfprof: pfprofd
 * stopped, the module unloaded and loaded again, pfprofd started again,
 * all during a 5 s recording, which still takes its 5 snapshots.
 */
void test_heatmap_record_survives(void)
{
	char pid[16], *argv[] = { "./pfprofctl", "-c", MANY_CONF, "heatmap", "--record",
				  "--take-damon", "-s", "5", pid, NULL };
	pid_t sleeper, pfprofd, ctl;

	if (!heatmap_test_begins("heatmap_record_survives", "pid_file = " MANY_DIR "/pids\n"
				 "runtime_dir = " MANY_DIR "\nstate_dir = " MANY_DIR "\n"))
		return;
	sleeper = spawn_sleeper();
	snprintf(pid, sizeof(pid), "%d", (int)sleeper);
	pfprofd = start_pfprofd();
	ctl = start_program_err(argv, MANY_OUT, MANY_ERR);
	sleep_ms(1500);
	stop_pfprofd(pfprofd);
	expect_ok(module_unload(), "rmmod during the recording");
	expect_ok(module_load(NULL), "insmod again");
	pfprofd = start_pfprofd();
	sleep_ms(1000);
	stop_pfprofd(pfprofd);
	expect(wait_program(ctl, "pfprofctl heatmap --record") == 0,
	       "pfprofctl heatmap --record failed");
	show_file(MANY_OUT, "  heatmap_record_survives| ");
	show_file(MANY_ERR, "  heatmap_record_survives| ");
	expect(file_contains(MANY_OUT, "5 snapshots of process") && many_snapshots(sleeper) == 5,
	       "not 5 snapshots of PID %d through pfprofd's restart and the module's reload",
	       (int)sleeper);
	kill_and_reap(sleeper);
	expect_ok(damon_check(DAMON_ADMIN), "no kdamond of the sysfs interface on afterwards");
}

/*
 * The heatmap log of pid in MANY_DIR, rotated file n (0: the current one):
 * its header names pid, and its first region line comes after map lines
 * (each file can be drawn on its own). False if it is not there.
 */
static bool rotated_log_whole(pid_t pid, unsigned int n)
{
	char path[96], line[512], header[64];
	bool maps = false;
	FILE *f;

	if (n)
		snprintf(path, sizeof(path), MANY_DIR "/heatmap-%d.log.%u", (int)pid, n);
	else
		snprintf(path, sizeof(path), MANY_DIR "/heatmap-%d.log", (int)pid);
	snprintf(header, sizeof(header), "# pid %d comm ", (int)pid);
	f = fopen(path, "re");
	if (!f)
		return false;
	expect(fgets(line, sizeof(line), f) && !strncmp(line, "# pfprof heatmap log", 20) &&
	       fgets(line, sizeof(line), f) && !strncmp(line, header, strlen(header)),
	       "%s: no header naming PID %d", path, (int)pid);
	while (fgets(line, sizeof(line), f) && strncmp(line, "region\t", 7))
		maps |= !strncmp(line, "map\t", 4);
	fclose(f);
	expect(maps, "%s: a region before any map line", path);
	return true;
}

/*
 * The logs rotate as pfprofd's do (rotate_size, keep from the
 * configuration): with rotate_size 1 (a byte: every snapshot after the
 * first starts a file) and keep 2, four snapshots leave the current file,
 * .1 and .2, each beginning with its header and mappings; no .3. (2K
 * held two snapshots of a sleeper, whose mappings are a few lines.)
 */
void test_heatmap_record_rotates(void)
{
	char pid[16], path[96];
	pid_t sleeper;
	int status;

	if (!heatmap_test_begins("heatmap_record_rotates", "rotate_size = 1\nkeep = 2\n"))
		return;
	sleeper = spawn_sleeper();
	snprintf(pid, sizeof(pid), "%d", (int)sleeper);
	status = run_program_err((char *[]){ "./pfprofctl", "-c", MANY_CONF, "heatmap", "--record",
					     "--take-damon", "-s", "4", pid, NULL },
				 MANY_OUT, MANY_ERR);
	show_file(MANY_ERR, "  heatmap_record_rotates| ");
	expect(status == 0, "pfprofctl heatmap --record: exit %d", status);
	for (unsigned int n = 0; n <= 2; n++)
		expect(rotated_log_whole(sleeper, n), "heatmap-%d.log%s%.0u is missing", (int)sleeper,
		       n ? "." : "", n);
	snprintf(path, sizeof(path), MANY_DIR "/heatmap-%d.log.3", (int)sleeper);
	expect(access(path, F_OK), "%s is kept, beyond keep = 2", path);
	kill_and_reap(sleeper);
}
