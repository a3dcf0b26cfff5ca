// SPDX-License-Identifier: GPL-2.0
/*
 * lib/refaults: refault distances from replayed swap events. A process
 * looping over W pages in M pages of memory under LRU has every page
 * evicted W - M pages before it is needed again: the replay must say so,
 * and that W - M more pages would have kept them all.
 */
#include <stdlib.h>
#include <string.h>

#include "refaults.h"
#include "unit.h"

#define SECOND 1000000000ULL

static struct log_page event(uint32_t pid, uint32_t target, uint32_t event, uint64_t offset,
			     uint64_t wall_ns)
{
	return (struct log_page){ .pid = pid, .target = target, .event = event, .device = 1,
				  .pages = 1, .offset = offset, .wall_ns = wall_ns,
				  .stall_ns = event == MP3_SWAP_OUT ? LOGFORMAT_TIME_UNKNOWN : 1000,
				  .comm = "loop" };
}

static void add_ok(struct refault_replay *r, const struct log_page *pg)
{
	expect(!refaults_add(r, pg), "replaying an event");
}

/*
 * An exact LRU of m pages over a loop of w pages, rounds times: each miss
 * evicts the least recently used page to the slot of its number and reads
 * the missing one back from its slot. Returns the replay's single owner.
 */
static struct refault_owner *replay_loop(struct refault_replay *r, size_t w, size_t m,
					 int rounds)
{
	size_t *lru = calloc(m, sizeof(*lru)), used = 0;	/* lru[0] the oldest */
	bool *swapped = calloc(w, sizeof(*swapped));
	uint64_t now = SECOND;

	expect(lru && swapped, "no memory");
	for (int round = 0; round < rounds; round++) {
		for (size_t page = 0; page < w; page++, now += 1000) {
			struct log_page pg;

			if (used == m) {
				pg = event(7, 0, MP3_SWAP_OUT, 1 + lru[0], now);
				add_ok(r, &pg);
				swapped[lru[0]] = true;
				memmove(lru, lru + 1, (m - 1) * sizeof(*lru));
				used--;
			}
			if (swapped[page]) {
				pg = event(7, 0, MP3_SWAP_IN | MP3_SWAP_READ, 1 + page, now);
				add_ok(r, &pg);
				swapped[page] = false;
			}
			lru[used++] = page;
		}
	}
	free(lru);
	free(swapped);
	expect(r->nr_owners == 1, "%zu owners", r->nr_owners);
	return &r->owners[0];
}

/* The loop: every page read back had w - m evictions since its own, and w - m pages end it. */
static void test_loop(void)
{
	const size_t w = 5000, m = 3000;
	struct refault_replay r;
	struct refault_owner *o;

	refaults_init(&r, 0, UINT64_MAX);
	o = replay_loop(&r, w, m, 4);
	expect(o->read_pages == 3 * w, "%llu pages read back", (unsigned long long)o->read_pages);
	expect(o->nr_refaults == 3 * w && !o->unmatched, "%zu refaults, %llu unmatched",
	       o->nr_refaults, (unsigned long long)o->unmatched);
	for (size_t i = 0; i < o->nr_refaults; i++)
		expect(o->refaults[i].distance == w - m, "refault %zu at %llu", i,
		       (unsigned long long)o->refaults[i].distance);
	expect(refaults_extra(o, 0.5) == w - m && refaults_extra(o, 0.9) == w - m &&
	       refaults_extra(o, 0.99) == w - m, "extra %llu pages",
	       (unsigned long long)refaults_extra(o, 0.9));
	/* Each page was away while w - 1 others were touched, 1 us apart. */
	expect(refaults_median_away(o) == (w - m) * 1000, "away %llu ns",
	       (unsigned long long)refaults_median_away(o));
	expect(r.nr_slots == w - m, "%zu slots out at the end, want %zu", r.nr_slots, w - m);
	refaults_free(&r);
}

/* Another owner's evictions between a page's two events are not on its clock. */
static void test_owners(void)
{
	struct refault_replay r;
	struct log_page pg;

	refaults_init(&r, 0, UINT64_MAX);
	pg = event(10, 0, MP3_SWAP_OUT, 100, SECOND);
	add_ok(&r, &pg);
	for (uint64_t i = 0; i < 50; i++) {
		pg = event(11, 0, MP3_SWAP_OUT, 200 + i, SECOND + i);		/* another PID */
		add_ok(&r, &pg);
		pg = event(12, 3, MP3_SWAP_OUT, 300 + i, SECOND + i);		/* a target */
		add_ok(&r, &pg);
		pg = event(13, 3, MP3_SWAP_OUT, 400 + i, SECOND + i);		/* the same target */
		add_ok(&r, &pg);
	}
	pg = event(10, 0, MP3_SWAP_OUT, 101, 2 * SECOND);
	add_ok(&r, &pg);
	pg = event(10, 0, MP3_SWAP_IN | MP3_SWAP_READ, 100, 3 * SECOND);
	add_ok(&r, &pg);
	pg = event(13, 3, MP3_SWAP_IN | MP3_SWAP_READ, 300, 3 * SECOND);	/* 12's page */
	add_ok(&r, &pg);
	expect(r.nr_owners == 3, "%zu owners", r.nr_owners);
	expect(r.owners[0].pid == 10 && r.owners[0].nr_refaults == 1 &&
	       r.owners[0].refaults[0].distance == 1 &&
	       r.owners[0].refaults[0].away_ns == 2 * SECOND, "PID 10's refault");
	expect(r.owners[2].target == 3 && !r.owners[2].pid && r.owners[2].out_pages == 100 &&
	       r.owners[2].nr_refaults == 1 && r.owners[2].refaults[0].distance == 99,
	       "target 3's refault");
	refaults_free(&r);
}

/*
 * Faulted back from the swap cache, a page is no refault and leaves its
 * slot; read back without its swap-out, it is unmatched, and not one of
 * the pages sent out that came back; a large folio's pages come back from
 * their own slots.
 */
static void test_cache_unmatched_folio(void)
{
	struct refault_replay r;
	struct log_page pg;

	refaults_init(&r, 0, UINT64_MAX);
	pg = event(5, 0, MP3_SWAP_OUT, 10, SECOND);
	add_ok(&r, &pg);
	pg = event(5, 0, MP3_SWAP_IN, 10, SECOND);
	add_ok(&r, &pg);
	pg = event(5, 0, MP3_SWAP_IN | MP3_SWAP_READ, 10, SECOND);
	add_ok(&r, &pg);
	pg = event(5, 0, MP3_SWAP_IN | MP3_SWAP_READ, 99, SECOND);
	add_ok(&r, &pg);
	pg = event(5, 0, MP3_SWAP_OUT, 512, SECOND);
	pg.pages = 4;
	add_ok(&r, &pg);
	pg = event(5, 0, MP3_SWAP_IN | MP3_SWAP_READ, 514, 2 * SECOND);
	add_ok(&r, &pg);
	expect(r.owners[0].in_pages == 1 && r.owners[0].read_pages == 3 &&
	       r.owners[0].unmatched == 2 && r.owners[0].nr_refaults == 1 &&
	       r.owners[0].refaults[0].distance == 0 && r.owners[0].out_pages == 5,
	       "in %llu read %llu unmatched %llu refaults %zu",
	       (unsigned long long)r.owners[0].in_pages, (unsigned long long)r.owners[0].read_pages,
	       (unsigned long long)r.owners[0].unmatched, r.owners[0].nr_refaults);
	expect(r.owners[0].stall_ns == 4000, "stall %llu ns",
	       (unsigned long long)r.owners[0].stall_ns);
	/* Back: the cached page and the folio's page; not the two without a swap-out. */
	expect(r.owners[0].back_pages == 2, "%llu pages back of those sent out",
	       (unsigned long long)r.owners[0].back_pages);
	expect(r.nr_slots == 3, "%zu slots left, the folio's 3 pages still out", r.nr_slots);
	refaults_free(&r);
}

/* Events before the window move the clocks only: a refault in it still has its distance. */
static void test_window(void)
{
	struct refault_replay r;
	struct log_page pg;

	refaults_init(&r, 10 * SECOND, 20 * SECOND);
	pg = event(5, 0, MP3_SWAP_OUT, 1, SECOND);
	add_ok(&r, &pg);
	pg = event(5, 0, MP3_SWAP_OUT, 2, 2 * SECOND);
	add_ok(&r, &pg);
	pg = event(5, 0, MP3_SWAP_IN | MP3_SWAP_READ, 2, 3 * SECOND);
	add_ok(&r, &pg);
	pg = event(5, 0, MP3_SWAP_OUT, 3, 11 * SECOND);
	add_ok(&r, &pg);
	pg = event(5, 0, MP3_SWAP_IN | MP3_SWAP_READ, 1, 12 * SECOND);
	add_ok(&r, &pg);
	pg = event(5, 0, MP3_SWAP_IN | MP3_SWAP_READ, 3, 21 * SECOND);
	add_ok(&r, &pg);
	expect(r.owners[0].out_pages == 1 && r.owners[0].read_pages == 1 &&
	       r.owners[0].nr_refaults == 1 && r.owners[0].refaults[0].distance == 2 &&
	       r.owners[0].refaults[0].away_ns == 11 * SECOND, "the window's refault");
	refaults_free(&r);
}

/*
 * A file's page read again without its eviction in the log is counted in
 * the window, without a distance; it moves no clock and takes no slot: a
 * swap slot of the same number sent out before it still comes back at its
 * distance.
 */
static void test_file_refaults(void)
{
	struct refault_replay r;
	struct log_page pg, file = event(5, 0, LOGFORMAT_FILE_REFAULT, 1, 11 * SECOND);

	file.device = 0;
	file.inode = 12;
	file.pages = 4;
	file.mapping = MP3_MAPPING_FILE;
	file.stall_ns = LOGFORMAT_TIME_UNKNOWN;
	refaults_init(&r, 10 * SECOND, 20 * SECOND);
	pg = event(5, 0, MP3_SWAP_OUT, 1, 10 * SECOND);
	add_ok(&r, &pg);
	add_ok(&r, &file);
	file.wall_ns = 2 * SECOND;	/* before the window */
	add_ok(&r, &file);
	pg = event(5, 0, MP3_SWAP_IN | MP3_SWAP_READ, 1, 12 * SECOND);
	add_ok(&r, &pg);
	expect(r.owners[0].file_refault_pages == 4 && r.owners[0].file_unmatched == 4,
	       "%llu pages of files read again in the window, %llu without a distance",
	       (unsigned long long)r.owners[0].file_refault_pages,
	       (unsigned long long)r.owners[0].file_unmatched);
	expect(r.owners[0].nr_refaults == 1 && r.owners[0].refaults[0].distance == 0 &&
	       !r.owners[0].unmatched && r.owners[0].out_pages == 1 && r.owners[0].read_pages == 1,
	       "the swap slot's return changed by the file's page (%zu refaults, distance %llu)",
	       r.owners[0].nr_refaults,
	       (unsigned long long)(r.owners[0].nr_refaults ? r.owners[0].refaults[0].distance : 0));
	refaults_free(&r);
}

static void count_out(const struct refault_slot *s, void *ctx)
{
	(void)s;
	++*(size_t *)ctx;
}

/* A cgroup's event of page @index of file 8:1 inode 12: evicted (pid 0) or read again. */
static struct log_page file_event(uint32_t event, uint64_t index, uint64_t wall_ns)
{
	return (struct log_page){ .pid = event == LOGFORMAT_FILE_EVICT ? 0 : 5, .target = 9,
				  .event = event, .pages = 1, .offset = index,
				  .wall_ns = wall_ns, .stall_ns = LOGFORMAT_TIME_UNKNOWN,
				  .mapping = MP3_MAPPING_FILE, .file_dev = 0x801, .inode = 12,
				  .comm = "reader" };
}

/*
 * A cgroup reading a file of w pages in a page cache of m, under LRU, its
 * evictions in the log: each page read again had w - m evictions since its
 * own, the time of w - m reads away, and w - m more pages keep them all. A
 * swap-out of the cgroup between a page's eviction and its return is one
 * more on its clock. Evicted file pages are not in swap.
 */
static void test_file_evictions(void)
{
	const uint64_t w = 300, m = 200;
	struct refault_replay r;
	struct refault_owner *o;
	struct log_page pg;
	size_t in_swap = 0;
	uint64_t now = SECOND;

	refaults_init(&r, 0, UINT64_MAX);
	for (uint64_t read = 0; read < 3 * w; read++, now += 1000) {
		if (read >= m) {
			pg = file_event(LOGFORMAT_FILE_EVICT, (read - m) % w, now);
			add_ok(&r, &pg);
		}
		if (read >= w) {
			pg = file_event(LOGFORMAT_FILE_REFAULT, read % w, now);
			add_ok(&r, &pg);
		}
	}
	o = &r.owners[0];
	expect(r.nr_owners == 1 && o->target == 9, "%zu owners", r.nr_owners);
	expect(o->file_refault_pages == 2 * w && !o->file_unmatched && o->nr_refaults == 2 * w &&
	       o->file_evicted_pages == 3 * w - m && !o->out_pages, "%llu read again, %llu "
	       "unmatched, %zu refaults, %llu evicted", (unsigned long long)o->file_refault_pages,
	       (unsigned long long)o->file_unmatched, o->nr_refaults,
	       (unsigned long long)o->file_evicted_pages);
	for (size_t i = 0; i < o->nr_refaults; i++)
		expect(o->refaults[i].distance == w - m && o->refaults[i].away_ns == (w - m) * 1000,
		       "refault %zu at %llu, away %llu ns", i,
		       (unsigned long long)o->refaults[i].distance,
		       (unsigned long long)o->refaults[i].away_ns);
	expect(refaults_extra(o, 0.9) == w - m, "extra %llu pages",
	       (unsigned long long)refaults_extra(o, 0.9));
	pg = file_event(LOGFORMAT_FILE_EVICT, 0, now);
	add_ok(&r, &pg);
	pg = event(5, 9, MP3_SWAP_OUT, 77, now);
	add_ok(&r, &pg);
	pg = file_event(LOGFORMAT_FILE_REFAULT, 0, now + 1000);
	add_ok(&r, &pg);
	expect(o->refaults[o->nr_refaults - 1].distance == 1, "a swap-out between: distance %llu",
	       (unsigned long long)o->refaults[o->nr_refaults - 1].distance);
	refaults_for_each_out(&r, count_out, &in_swap);
	expect(in_swap == 1, "%zu pages in swap, want the one swap-out", in_swap);
	refaults_free(&r);
}

/*
 * Evicted file pages take half of slots_max at most, so that swap-outs
 * keep their room; on the machine's clock a file's page has no distance.
 */
static void test_file_room(void)
{
	struct refault_replay r, machine;
	struct log_page pg;

	refaults_init(&r, 0, UINT64_MAX);
	r.slots_max = 4;
	for (uint64_t index = 0; index < 5; index++) {
		pg = file_event(LOGFORMAT_FILE_EVICT, index, SECOND + index);
		add_ok(&r, &pg);
	}
	pg = event(5, 9, MP3_SWAP_OUT, 77, 2 * SECOND);
	add_ok(&r, &pg);
	pg = event(5, 9, MP3_SWAP_OUT, 78, 2 * SECOND);
	add_ok(&r, &pg);
	expect(r.nr_slots == 4 && r.nr_file_slots == 2 && r.untracked == 3,
	       "%zu slots, %zu of files, %llu untracked", r.nr_slots, r.nr_file_slots,
	       (unsigned long long)r.untracked);
	pg = file_event(LOGFORMAT_FILE_REFAULT, 0, 3 * SECOND);
	add_ok(&r, &pg);
	expect(r.nr_file_slots == 1 && r.owners[0].nr_refaults == 1, "%zu file slots, %zu refaults"
	       " after a page came back", r.nr_file_slots, r.owners[0].nr_refaults);
	refaults_free(&r);

	refaults_init(&machine, 0, UINT64_MAX);
	machine.machine_clock = true;
	pg = file_event(LOGFORMAT_FILE_EVICT, 0, SECOND);
	pg.sys_pswpout = 10;
	add_ok(&machine, &pg);
	pg = file_event(LOGFORMAT_FILE_REFAULT, 0, 2 * SECOND);
	pg.sys_pswpout = 10;
	add_ok(&machine, &pg);
	expect(!machine.owners[0].nr_refaults && machine.owners[0].file_unmatched == 1,
	       "on the machine's clock: %zu refaults, %llu unmatched",
	       machine.owners[0].nr_refaults,
	       (unsigned long long)machine.owners[0].file_unmatched);
	refaults_free(&machine);
}

/* The slot table against a plain array: slots come and go in every order. */
static void test_slot_table(void)
{
	enum { SLOTS = 20000 };
	bool *out = calloc(SLOTS, sizeof(*out));
	struct refault_replay r;
	uint64_t seed = 1;
	size_t outside = 0, still_out = 0;

	expect(out != NULL, "no memory");
	refaults_init(&r, 0, UINT64_MAX);
	for (int i = 0; i < 200000; i++) {
		uint64_t slot = 1 + (seed >> 33) % SLOTS;
		struct log_page pg = event(1, 0, out[slot - 1] ? MP3_SWAP_IN | MP3_SWAP_READ :
					   MP3_SWAP_OUT, slot, SECOND);

		seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
		add_ok(&r, &pg);
		outside += out[slot - 1];
		out[slot - 1] = !out[slot - 1];
	}
	expect(r.owners[0].nr_refaults == outside && !r.owners[0].unmatched,
	       "%zu refaults for %zu pages back, %llu unmatched", r.owners[0].nr_refaults, outside,
	       (unsigned long long)r.owners[0].unmatched);
	for (size_t i = 0; i < SLOTS; i++)
		still_out += out[i];
	expect(still_out == r.nr_slots, "%zu slots out, the table has %zu", still_out, r.nr_slots);
	free(out);
	refaults_free(&r);
}

/* The curve's points are the quantiles refaults_extra() gives, one sort for all. */
static void test_curve(void)
{
	enum { POINTS = 200 };
	struct refault_owner o = { 0 };
	uint64_t curve[POINTS], seed = 7;

	o.refaults = calloc(5000, sizeof(*o.refaults));
	expect(o.refaults != NULL, "no memory");
	for (size_t i = 0; i < 5000; i++) {
		seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
		o.refaults[i] = (struct refault){ .distance = (seed >> 40) % 100000,
						  .pages = 1 + (uint32_t)(seed >> 61) };
	}
	o.nr_refaults = o.refaults_cap = 5000;
	refaults_curve(&o, POINTS, curve);
	for (size_t p = 0; p < POINTS; p++) {
		uint64_t want = refaults_extra(&o, (double)(p + 1) / POINTS);

		expect(curve[p] == want, "point %zu: %llu, refaults_extra says %llu", p,
		       (unsigned long long)curve[p], (unsigned long long)want);
		expect(!p || curve[p] >= curve[p - 1], "the curve goes down at point %zu", p);
	}
	free(o.refaults);
}

struct sunk {
	uint64_t pages, distance_sum;
	uint32_t owner_target;
};

static void sink(void *ctx, const struct refault_owner *o, const struct refault *rf)
{
	struct sunk *k = ctx;

	k->pages += rf->pages;
	k->distance_sum += rf->distance * rf->pages;
	k->owner_target = o->target;
}

/* With a sink, the loop's refaults go to it, each at its distance, and none is kept. */
static void test_sink(void)
{
	const size_t w = 500, m = 300;
	struct sunk k = { 0 };
	struct refault_replay r;
	struct refault_owner *o;

	refaults_init(&r, 0, UINT64_MAX);
	r.sink = sink;
	r.sink_ctx = &k;
	o = replay_loop(&r, w, m, 4);
	expect(!o->nr_refaults && !o->refaults, "%zu refaults kept", o->nr_refaults);
	expect(k.pages == 3 * w && k.distance_sum == 3 * w * (w - m),
	       "%llu pages sunk, distances summed %llu", (unsigned long long)k.pages,
	       (unsigned long long)k.distance_sum);
	refaults_free(&r);
}

/*
 * Past slots_max pages out, a page sent out is counted untracked and has no
 * distance when back; a slot taken again and one freed make room as before.
 */
static void test_slots_max(void)
{
	struct refault_replay r;
	struct log_page pg;

	refaults_init(&r, 0, UINT64_MAX);
	r.slots_max = 2;
	for (uint64_t slot = 1; slot <= 3; slot++) {
		pg = event(5, 0, MP3_SWAP_OUT, slot, SECOND);
		add_ok(&r, &pg);
	}
	expect(r.nr_slots == 2 && r.untracked == 1, "%zu slots, %llu untracked", r.nr_slots,
	       (unsigned long long)r.untracked);
	pg = event(5, 0, MP3_SWAP_OUT, 2, 2 * SECOND);
	add_ok(&r, &pg);
	pg = event(5, 0, MP3_SWAP_IN | MP3_SWAP_READ, 3, 3 * SECOND);
	add_ok(&r, &pg);
	pg = event(5, 0, MP3_SWAP_IN | MP3_SWAP_READ, 1, 3 * SECOND);
	add_ok(&r, &pg);
	pg = event(5, 0, MP3_SWAP_OUT, 4, 4 * SECOND);
	add_ok(&r, &pg);
	expect(r.untracked == 1 && r.nr_slots == 2, "%zu slots, %llu untracked after 1 came back",
	       r.nr_slots, (unsigned long long)r.untracked);
	expect(r.owners[0].unmatched == 1 && r.owners[0].nr_refaults == 1 &&
	       r.owners[0].refaults[0].distance == 3, "unmatched %llu, refaults %zu",
	       (unsigned long long)r.owners[0].unmatched, r.owners[0].nr_refaults);
	refaults_free(&r);
}

/* A swap event of pid at which the machine had written machine pages to swap. */
static struct log_page machine_event(uint32_t pid, uint32_t what, uint64_t offset,
				     uint64_t machine)
{
	struct log_page pg = event(pid, 0, what, offset, SECOND + machine);

	pg.sys_pswpout = machine;
	return pg;
}

/*
 * Two processes paged by the machine, in turn, the machine writing 3 pages
 * at each of their swap-outs: on its own clock a page comes back after 1
 * of its owner's evictions, on the machine's after the 9 pages the machine
 * wrote since; a line without the machine's clock (format 1) matches
 * nothing then.
 */
static void test_machine_clock(void)
{
	uint64_t machine = 1000;
	struct refault_replay own, whole;
	struct log_page pg;

	refaults_init(&own, 0, UINT64_MAX);
	refaults_init(&whole, 0, UINT64_MAX);
	whole.machine_clock = true;
	for (uint32_t pid = 20; pid <= 21; pid++) {
		pg = machine_event(pid, MP3_SWAP_OUT, pid * 10, machine += 3);
		add_ok(&own, &pg);
		add_ok(&whole, &pg);
	}
	for (uint32_t pid = 20; pid <= 21; pid++) {
		pg = machine_event(pid, MP3_SWAP_OUT, pid * 10 + 1, machine += 3);
		add_ok(&own, &pg);
		add_ok(&whole, &pg);
	}
	for (uint32_t pid = 20; pid <= 21; pid++) {
		pg = machine_event(pid, MP3_SWAP_IN | MP3_SWAP_READ, pid * 10, machine);
		if (pid == 21)
			pg.sys_pswpout = LOGFORMAT_COUNT_UNKNOWN;
		add_ok(&own, &pg);
		add_ok(&whole, &pg);
	}
	expect(own.nr_owners == 2 && own.owners[0].nr_refaults == 1 &&
	       own.owners[0].refaults[0].distance == 1 && own.owners[1].nr_refaults == 1 &&
	       own.owners[1].refaults[0].distance == 1, "on the owners' clocks");
	expect(whole.owners[0].nr_refaults == 1 && whole.owners[0].refaults[0].distance == 9 &&
	       !whole.owners[1].nr_refaults && whole.owners[1].unmatched == 1,
	       "on the machine's: PID 20 at %llu, PID 21 %zu refaults, %llu unmatched",
	       (unsigned long long)(whole.owners[0].nr_refaults ?
				    whole.owners[0].refaults[0].distance : 0),
	       whole.owners[1].nr_refaults, (unsigned long long)whole.owners[1].unmatched);
	refaults_free(&own);
	refaults_free(&whole);
}

UNIT_TESTS(UNIT_TEST(curve), UNIT_TEST(loop), UNIT_TEST(owners), UNIT_TEST(cache_unmatched_folio),
	   UNIT_TEST(window), UNIT_TEST(slot_table), UNIT_TEST(sink), UNIT_TEST(slots_max),
	   UNIT_TEST(machine_clock), UNIT_TEST(file_refaults), UNIT_TEST(file_evictions),
	   UNIT_TEST(file_room));
