// SPDX-License-Identifier: GPL-2.0
/*
 * DAMON driven by pfprofctl's driver: random and sliding accesses seen
 * as hot, and a target's exit.
 */
#include <errno.h>
#include <inttypes.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "damonload.h"
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
#define SLIDE_SLACK_MS 1000

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

/* One snapshot's hot band within the sliding region: where, how much of it, its centre. */
struct hot_band {
	uint64_t lowest, highest, bytes;
	double centre;
};

/*
 * The regions of [start, end) with at least half the most accesses any of
 * its regions had (offsets from start); false if none there was accessed.
 */
static bool hot_band(const struct damon_region *regions, size_t count, uint64_t start,
		     uint64_t end, struct hot_band *band)
{
	uint32_t most = 0;
	double weighted = 0;

	for (size_t i = 0; i < count; i++)
		if (regions[i].start < end && regions[i].end > start && regions[i].nr_accesses > most)
			most = regions[i].nr_accesses;
	*band = (struct hot_band){ .lowest = end - start };
	for (size_t i = 0; most && i < count; i++) {
		const struct damon_region *r = &regions[i];
		uint64_t from = r->start > start ? r->start : start, to = r->end < end ? r->end : end;

		if (from >= to || 2 * r->nr_accesses < most)
			continue;
		band->bytes += to - from;
		weighted += (double)(to - from) * ((double)(from + to) / 2 - (double)start);
		if (from - start < band->lowest)
			band->lowest = from - start;
		if (to - start > band->highest)
			band->highest = to - start;
	}
	band->centre = band->bytes ? weighted / (double)band->bytes : 0;
	return most > 0;
}

/*
 * The window's place at ms milliseconds after it was told to start, as
 * sliding_toucher() computes it. Its clock starts a little later, and a
 * snapshot reports the aggregation (400 ms) that ended after it was asked
 * for, or the one before: a place seen SLIDE_SLACK_MS before the question
 * may still be in the answer.
 */
static unsigned int slide_place(int64_t ms)
{
	int64_t place = ms < 0 ? 0 : ms / SLIDE_HOLD_MS;

	return place >= SLIDE_PLACES ? SLIDE_PLACES - 1 : (unsigned int)place;
}

/*
 * A window sliding through 256 MiB: in each snapshot but the first the hot
 * band is at most 3 times the window (DAMON's adaptive regions need a few
 * aggregations to split around a new window: the first snapshot, a second
 * after DAMON started, once had a band of 102.7 MiB from the region's start,
 * 3.2 windows, in a ten-run table), in each it overlaps the places the
 * window had from the aggregation before the snapshot was asked for to
 * its answer; its centre moves at least 3 windows from the first
 * snapshot to the last. A band's centre may step back: a region not yet
 * split reaches past the window into pages never touched, and pulls the
 * centre with it until DAMON splits it.
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
	uint64_t started;
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
	started = now_ns();
	for (int i = 0; i < SLIDE_SNAPSHOTS; i++) {
		int64_t asked_ms, answered_ms;
		unsigned int earliest, latest;
		struct hot_band band;

		sleep_ms(1000);
		asked_ms = (int64_t)((now_ns() - started) / 1000000);
		expect_ok(damon_snapshot(DAMON_ADMIN, 0, &regions, &count), "a snapshot");
		answered_ms = (int64_t)((now_ns() - started) / 1000000);
		if (!hot_band(regions, count, start, start + SLIDE_PLACES * window, &band)) {
			printf("  damon_sliding_window: snapshot %d: nothing accessed\n", i);
			free(regions);
			continue;
		}
		free(regions);
		earliest = slide_place(asked_ms - SLIDE_SLACK_MS);
		latest = slide_place(answered_ms);
		printf("  damon_sliding_window: snapshot %d (%.1f-%.1f s): %zu regions, hot band "
		       "%.1f MiB in [%.1f, %.1f), its centre at %.1f MiB; the window at place %u-%u\n",
		       i, asked_ms / 1000.0, answered_ms / 1000.0, count,
		       (double)band.bytes / (1 << 20), (double)band.lowest / (1 << 20),
		       (double)band.highest / (1 << 20), band.centre / (1 << 20), earliest, latest);
		/* The first comes 2.5 aggregations after the start: not split yet. */
		expect(i == 0 || band.bytes <= 3 * window, "snapshot %d: a hot band of %.1f windows",
		       i, (double)band.bytes / (double)window);
		expect(band.lowest < (latest + 1) * window && band.highest > earliest * window,
		       "snapshot %d: the hot band [%.1f, %.1f) MiB is away from the window's "
		       "places %u-%u", i, (double)band.lowest / (1 << 20),
		       (double)band.highest / (1 << 20), earliest, latest);
		if (first < 0)
			first = band.centre;
		last = band.centre;
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
