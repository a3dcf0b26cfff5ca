// SPDX-License-Identifier: GPL-2.0
/*
 * Which pages go to swap and back ("R <pid> pages", MP3_RECORD_SWAP):
 * against the kernel's own counters, slot by slot.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "harness.h"
#include "pfprof.h"
#include "tests.h"

/* What the swap records of one process say. */
struct swap_sums {
	pid_t tgid;
	uint32_t target;		/* what each record must carry */
	uint64_t other_target;
	uintptr_t region, region_end;
	uint64_t out_pages, in_events, read_pages, outside;
	uint64_t stalled, stall_ns;	/* swap-ins that read, with a stall; its sum */
	/* The slot of each page of the region at its swap-out: device << 48 | offset, 0: none. */
	uint64_t *slots;
	uint64_t slot_kept, slot_changed, in_unseen;
};

static uint64_t slot_of(const struct mp3_proc_record *r)
{
	return (uint64_t)r->swap.device << 48 | r->swap.offset;
}

static void add_swap_record(void *ctx, const struct mp3_proc_record *r)
{
	struct swap_sums *s = ctx;
	long page = sysconf(_SC_PAGESIZE);
	uint64_t *slot;

	if (r->tgid != (uint32_t)s->tgid || r->type != MP3_RECORD_SWAP)
		return;
	s->other_target += r->target != s->target;
	if (r->swap.address < s->region || r->swap.address >= s->region_end) {
		s->outside++;
		return;
	}
	slot = &s->slots[(r->swap.address - s->region) / page];
	if ((r->swap.event & ~MP3_SWAP_READ) == MP3_SWAP_OUT) {
		s->out_pages += r->swap_time.pages;
		*slot = slot_of(r);
		return;
	}
	s->in_events++;
	if (r->swap.event & MP3_SWAP_READ) {
		s->read_pages += r->swap_time.pages;
		s->stalled += r->swap_time.stall_ns > 0;
		s->stall_ns += r->swap_time.stall_ns;
	}
	if (!*slot)
		s->in_unseen++;
	else if (*slot == slot_of(r))
		s->slot_kept++;
	else
		s->slot_changed++;
}

/*
 * A region paged out (MADV_PAGEOUT) and touched again by a process
 * registered with pages (@registration, a format of its PID, then @more if
 * not NULL; its records carry @target): its swap-outs are the pages the
 * kernel wrote out meanwhile (pswpout, zswpout, swpout_zero), its swap-ins
 * that read are the pages it read back (pswpin, zswpin, swpin_zero),
 * within 1 % (the guest runs nothing else that swaps); each page comes
 * back from the slot it went to; every event is in the region. Where the
 * guest can have no swap the hooks are armed and disarmed only; on a
 * kernel without memory cgroups (the debug kernel: neither), "pages" is
 * refused (EOPNOTSUPP). Each says so.
 */
static void expect_pages_traced(const char *test, const char *registration, const char *more,
				uint32_t target)
{
	uint64_t out_before, in_before, written, read_back, from, to;
	struct swap_sums s = { .target = target };
	struct mp3ring ring;
	uintptr_t addr, err;
	int go, back, fd;
	char why[160], cmd[32];
	pid_t child;

	map_ring(&ring, &fd);
	child = spawn_piped(swapping_child, &go, &back);
	snprintf(cmd, sizeof(cmd), registration, (int)child);
	/* A swap-out's process is its memory map's owner, which memory cgroups keep. */
	mount_cgroup2(CGROUP_ROOT);
	if (!file_contains(CGROUP_ROOT "/cgroup.controllers", "memory")) {
		if (more)
			expect_ok(status_write(cmd), cmd);
		err = (uintptr_t)-status_write(more ? more : cmd);
		expect(err == EOPNOTSUPP, "%s without memory cgroups: %s, want EOPNOTSUPP",
		       more ? more : cmd, strerror((int)err));
		printf("  %s: not run: no memory cgroups (%s refused, as it must be)\n", test,
		       more ? more : cmd);
		goto end;
	}
	/* The hooks armed, and disarmed when it goes, swap or not. */
	expect_ok(status_write(cmd), cmd);
	if (more)
		expect_ok(status_write(more), more);
	from = mp3ring_head(&ring);
	if (!swap_device_ready(why, sizeof(why))) {
		expect(!file_contains("load-modules", "zram"), "no swap although the payload has "
		       "zram: %s", why);
		printf("  %s: the hooks armed; the rest not run: %s\n", test, why);
		goto end;
	}
	expect(write(go, "g", 1) == 1 && read(back, &addr, sizeof(addr)) == sizeof(addr),
	       "the child did not touch its region");
	out_before = swapped_out();
	expect(write(go, "o", 1) == 1 && read(back, &err, sizeof(err)) == sizeof(err),
	       "the child did not page its region out");
	expect(!err, "madvise(MADV_PAGEOUT): %s", strerror((int)err));
	written = swapped_out() - out_before;
	in_before = swapped_in();
	expect(write(go, "t", 1) == 1 && read(back, &addr, sizeof(addr)) == sizeof(addr),
	       "the child did not touch its region again");
	read_back = swapped_in() - in_before;
	/* Events go out at the tick after them. */
	to = wait_head(&ring, mp3ring_head(&ring) + 2, 2000);
	s.tgid = child;
	s.region = addr;
	s.region_end = addr + REGION_PAGES * (uintptr_t)sysconf(_SC_PAGESIZE);
	s.slots = calloc(REGION_PAGES, sizeof(*s.slots));
	expect(s.slots, "no memory");
	for_each_record_between(&ring, from, to, add_swap_record, &s);
	printf("  %s: %" PRIu64 " pages written out (the kernel: %" PRIu64 "), %" PRIu64
	       " swap-ins, %" PRIu64 " read (the kernel: %" PRIu64 "), %" PRIu64 " of them with"
	       " a stall, %" PRIu64 " us in all; slots: %" PRIu64 " the same, %" PRIu64
	       " changed, %" PRIu64 " not seen out; %" PRIu64 " events outside the region, %llu"
	       " dropped\n", test, s.out_pages, written, s.in_events, s.read_pages, read_back, s.stalled,
	       s.stall_ns / 1000, s.slot_kept, s.slot_changed, s.in_unseen, s.outside,
	       (unsigned long long)ring.hdr->swap_dropped);
	expect(written >= REGION_PAGES * 99 / 100, "only %" PRIu64 " of %d pages written out",
	       written, REGION_PAGES);
	expect(within_pct((double)s.out_pages, (double)written, 1),
	       "swap-outs %" PRIu64 ", the kernel wrote out %" PRIu64, s.out_pages, written);
	expect(within_pct((double)s.read_pages, (double)read_back, 1),
	       "swap-ins that read %" PRIu64 ", the kernel read back %" PRIu64, s.read_pages,
	       read_back);
	expect(!s.slot_changed && !s.in_unseen && s.slot_kept == s.in_events,
	       "of %" PRIu64 " swap-ins, %" PRIu64 " came back from another slot, %" PRIu64
	       " from none seen going out", s.in_events, s.slot_changed, s.in_unseen);
	expect(!s.outside && !ring.hdr->swap_dropped, "%" PRIu64 " events outside the region, %llu"
	       " dropped", s.outside, (unsigned long long)ring.hdr->swap_dropped);
	expect(s.stalled == s.in_events, "%" PRIu64 " of %" PRIu64 " swap-ins without a stall",
	       s.in_events - s.stalled, s.in_events);
	expect(!s.other_target, "%" PRIu64 " records without the target %u", s.other_target,
	       target);
	free(s.slots);
end:
	kill_and_reap(child);
	close(go);
	close(back);
	close(fd);
}

void test_pages_swap(void)
{
	expect_pages_traced("pages_swap", "R %d pages", NULL, 0);
}

/* The same for a tree given "S": the root's records carry the tree's number. */
void test_pages_swap_target(void)
{
	expect_pages_traced("pages_swap_target", "T %d 4245", "S 4245", 4245);
}
