// SPDX-License-Identifier: GPL-2.0
/*
 * Which pages go to swap and back ("R <pid> pages", MP3_RECORD_SWAP),
 * anonymous and shmem: against the kernel's own counters, slot by slot.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "harness.h"
#include "pfprof.h"
#include "tests.h"

/* A process paging a region out and back, registered with pages. */
struct pages_case {
	const char *test;
	const char *registration;	/* a format of its PID */
	const char *more;		/* then written too, if not NULL */
	uint32_t target;		/* what its records carry */
	void (*child)(int go, int back);	/* swapping_child() or swapping_shared_child() */
	uint32_t mapping;		/* what its records say of the region's memory */
	/*
	 * Whether a fault may read pages ahead: shmem does from any swap
	 * device on 6.1 and 6.12 (swap_cluster_readahead(), 2^page-cluster
	 * pages), so that of eight faults one reads and seven find their page
	 * in the swap cache (7.3 reads its own page from zram); then all its
	 * swap-ins are the pages the kernel read back. Anonymous memory
	 * reads none ahead from zram (a synchronous device): each swap-in
	 * reads its own page.
	 */
	bool reads_ahead;
};

/* What the swap records of one process say. */
struct swap_sums {
	pid_t tgid;
	uint32_t target, mapping;	/* what each record must carry */
	uint64_t other_target, other_mapping;
	uintptr_t region, region_end;
	uint64_t out_pages, in_events, in_pages, read_events, read_pages, outside;
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
	s->other_mapping += r->mapping != s->mapping;
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
	s->in_pages += r->swap_time.pages;
	if (r->swap.event & MP3_SWAP_READ) {
		s->read_events++;
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
 * A region paged out (MADV_PAGEOUT) and touched again by @c's process:
 * its swap-outs are the pages the
 * kernel wrote out meanwhile (pswpout, zswpout, swpout_zero), its swap-ins
 * that read (all of them where faults read ahead) are the pages it read
 * back (pswpin, zswpin, swpin_zero), within 1 % (the guest runs nothing
 * else that swaps) and what the module dropped; each swap-in that read
 * stalled the thread; each page comes back from the slot it went to (or
 * its swap-out was dropped); every event is in the region. Where the
 * guest can have no swap the hooks are armed and disarmed only; on a
 * kernel without memory cgroups (the debug kernel: neither), "pages" is
 * refused (EOPNOTSUPP). Each says so.
 */
static void expect_pages_traced(const struct pages_case *c)
{
	const char *test = c->test, *more = c->more;
	uint64_t out_before, in_before, written, read_back, from, to, dropped;
	struct swap_sums s = { .target = c->target, .mapping = c->mapping };
	struct mp3ring ring;
	uintptr_t addr, err;
	int go, back, fd;
	char why[160], cmd[32];
	pid_t child;

	map_ring(&ring, &fd);
	child = spawn_piped(c->child, &go, &back);
	snprintf(cmd, sizeof(cmd), c->registration, (int)child);
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
	dropped = ring.hdr->swap_dropped;
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
	dropped = page_events_dropped_since(&ring, dropped);
	printf("  %s: %" PRIu64 " pages written out (the kernel: %" PRIu64 "), %" PRIu64
	       " swap-ins, %" PRIu64 " read (the kernel: %" PRIu64 "), %" PRIu64 " of them with"
	       " a stall, %" PRIu64 " us in all; slots: %" PRIu64 " the same, %" PRIu64
	       " changed, %" PRIu64 " not seen out; %" PRIu64 " events outside the region, %llu"
	       " dropped\n", test, s.out_pages, written, s.in_events, s.read_pages, read_back, s.stalled,
	       s.stall_ns / 1000, s.slot_kept, s.slot_changed, s.in_unseen, s.outside,
	       (unsigned long long)dropped);
	expect(written >= REGION_PAGES * 99 / 100, "only %" PRIu64 " of %d pages written out",
	       written, REGION_PAGES);
	expect(page_events_agree(s.out_pages, written, dropped), "swap-outs %" PRIu64 " and %" PRIu64
	       " dropped, the kernel wrote out %" PRIu64, s.out_pages, dropped, written);
	if (c->reads_ahead)
		expect(page_events_agree(s.in_pages, read_back, dropped) && s.read_pages &&
		       s.read_pages <= s.in_pages,
		       "swap-ins %" PRIu64 ", %" PRIu64 " of them read, %" PRIu64 " dropped; the "
		       "kernel read back %" PRIu64, s.in_pages, s.read_pages, dropped, read_back);
	else
		expect(page_events_agree(s.read_pages, read_back, dropped),
		       "swap-ins that read %" PRIu64 " and %" PRIu64 " dropped, the kernel read back %"
		       PRIu64, s.read_pages, dropped, read_back);
	expect(!s.slot_changed && s.in_unseen <= dropped && s.slot_kept + s.in_unseen == s.in_events,
	       "of %" PRIu64 " swap-ins, %" PRIu64 " came back from another slot, %" PRIu64
	       " from none seen going out (%" PRIu64 " dropped)", s.in_events, s.slot_changed,
	       s.in_unseen, dropped);
	expect(!s.outside, "%" PRIu64 " events outside the region", s.outside);
	expect(s.stalled == s.read_events, "%" PRIu64 " of %" PRIu64 " swap-ins that read without"
	       " a stall", s.read_events - s.stalled, s.read_events);
	expect(!s.other_target, "%" PRIu64 " records without the target %u", s.other_target,
	       c->target);
	expect(!s.other_mapping, "%" PRIu64 " records not of mapping %u", s.other_mapping,
	       c->mapping);
	free(s.slots);
end:
	kill_and_reap(child);
	close(go);
	close(back);
	close(fd);
}

void test_pages_swap(void)
{
	expect_pages_traced(&(struct pages_case){ "pages_swap", "R %d pages", NULL, 0,
						  swapping_child, MP3_MAPPING_ANON, false });
}

/* The same for a tree given "S": the root's records carry the tree's number. */
void test_pages_swap_target(void)
{
	expect_pages_traced(&(struct pages_case){ "pages_swap_target", "T %d 4245", "S 4245", 4245,
						  swapping_child, MP3_MAPPING_ANON, false });
}

/*
 * The same for shared anonymous memory (shmem): written out by shmem,
 * which gives the page its slot only then, and read back by shmem_fault().
 */
void test_pages_swap_shmem(void)
{
	expect_pages_traced(&(struct pages_case){ "pages_swap_shmem", "R %d pages", NULL, 0,
						  swapping_shared_child, MP3_MAPPING_SHMEM, true });
}

#define SHARED_CGROUP CGROUP_ROOT "/pfprof-shared"
#define SHARED_TARGET 4246

/*
 * spawn_piped()'s fn: a shared anonymous region, touched at "g"; then a
 * forked child touches it too, says its PID and waits to be killed; once
 * it is, its parent says 0 and waits too.
 */
static void sharing_tree_child(int go, int back)
{
	char *p = region_touched_when_told(go, MAP_SHARED);
	pid_t pid = fork();

	if (pid < 0)
		_exit(4);
	if (!pid) {
		touch_region(p, REGION_PAGES);
		child_done(back, (uintptr_t)getpid());
	}
	if (waitpid(pid, NULL, 0) != pid)
		_exit(5);
	child_done(back, 0);
}

/* Swap-outs of the tree's records. */
struct tree_outs {
	uint32_t target;
	uint64_t out_pages, other;
	uint64_t *slots;	/* slot_of() of each swap-out seen, the first size */
	size_t n, size;
};

static void add_tree_out(void *ctx, const struct mp3_proc_record *r)
{
	struct tree_outs *t = ctx;

	if (r->type != MP3_RECORD_SWAP || (r->swap.event & ~MP3_SWAP_READ) != MP3_SWAP_OUT)
		return;
	if (r->target != t->target) {
		t->other++;
		return;
	}
	t->out_pages += r->swap_time.pages;
	if (t->n < t->size)
		t->slots[t->n++] = slot_of(r);
}

static int compare_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return (x > y) - (x < y);
}

/* How many of the tree's swap-outs went to a slot another had gone to. */
static uint64_t slots_twice(struct tree_outs *t)
{
	uint64_t twice = 0;

	qsort(t->slots, t->n, sizeof(*t->slots), compare_u64);
	for (size_t i = 1; i < t->n; i++)
		twice += t->slots[i] == t->slots[i - 1];
	return twice;
}

/*
 * A shared anonymous region that a tree's two processes both map, reclaimed
 * from their cgroup by memory.reclaim (real reclaim: the rmap walk unmaps
 * each page from both): each page written out is one swap-out for the
 * tree, not one per process that mapped it, so the tree's swap-outs are
 * the pages the kernel wrote out, within 1 %, and no slot goes out twice.
 */
void test_pages_swap_shmem_shared(void)
{
	size_t bytes = REGION_PAGES * (size_t)sysconf(_SC_PAGESIZE);
	struct tree_outs t = { .target = SHARED_TARGET, .size = 2 * REGION_PAGES };
	uint64_t from, to, before, written, twice, dropped;
	struct mp3ring ring;
	char cmd[32];
	int go, back, fd;
	uintptr_t forked;
	pid_t child;

	map_ring(&ring, &fd);
	if (!child_in_cgroup_can_swap("pages_swap_shmem_shared", SHARED_CGROUP)) {
		close(fd);
		return;
	}
	child = spawn_piped(sharing_tree_child, &go, &back);
	move_to_cgroup(SHARED_CGROUP, child);
	snprintf(cmd, sizeof(cmd), "T %d %d", (int)child, SHARED_TARGET);
	expect_ok(status_write(cmd), cmd);
	snprintf(cmd, sizeof(cmd), "S %d", SHARED_TARGET);
	expect_ok(status_write(cmd), cmd);
	from = mp3ring_head(&ring);
	dropped = ring.hdr->swap_dropped;
	expect(write(go, "g", 1) == 1 && read(back, &forked, sizeof(forked)) == sizeof(forked),
	       "the tree did not touch its region");
	before = swapped_out();
	reclaim_cgroup(SHARED_CGROUP, bytes);
	written = swapped_out() - before;
	to = wait_head(&ring, mp3ring_head(&ring) + 2, 2000);
	t.slots = calloc(t.size, sizeof(*t.slots));
	expect(t.slots, "no memory");
	for_each_record_between(&ring, from, to, add_tree_out, &t);
	twice = slots_twice(&t);
	dropped = page_events_dropped_since(&ring, dropped);
	printf("  pages_swap_shmem_shared: the kernel wrote out %" PRIu64 " pages of the tree's "
	       "cgroup; the tree's swap-outs %" PRIu64 ", %" PRIu64 " of a slot already seen, %"
	       PRIu64 " of another target; %" PRIu64 " dropped\n", written, t.out_pages, twice,
	       t.other, dropped);
	expect(written >= REGION_PAGES / 2, "only %" PRIu64 " pages written out of %d asked",
	       written, REGION_PAGES);
	expect(page_events_agree(t.out_pages, written, dropped),
	       "the tree's swap-outs %" PRIu64 " and %" PRIu64 " dropped, the kernel wrote out %"
	       PRIu64, t.out_pages, dropped, written);
	expect(!twice && !t.other, "%" PRIu64 " swap-outs of a slot seen already, %" PRIu64
	       " of another target", twice, t.other);
	free(t.slots);
	/* The forked one is the child's to reap: it says when it has. */
	expect(!kill((pid_t)forked, SIGKILL) &&
	       read(back, &forked, sizeof(forked)) == sizeof(forked) && !forked,
	       "the tree's forked process was not reaped");
	kill_and_reap(child);
	close(go);
	close(back);
	close(fd);
	expect(!rmdir(SHARED_CGROUP), "rmdir %s: %s", SHARED_CGROUP, strerror(errno));
}

#define UNMAPPED_CGROUP CGROUP_ROOT "/pfprof-unmapped"
#define UNMAPPED_TARGET 4247

/* The cgroup's swap-outs of no process, and the swap-ins of the pages they sent out. */
struct unmapped_sums {
	uint32_t target;
	uintptr_t region, region_end;	/* the memfd mapped again */
	uint64_t out_pages, out_other, in_events, in_from_out, in_other, in_outside;
	uint64_t *slots;	/* slot_of() of each cgroup swap-out seen, the first size */
	size_t n, size;
	bool sorted;
};

static void add_unmapped_record(void *ctx, const struct mp3_proc_record *r)
{
	struct unmapped_sums *u = ctx;
	uint64_t slot = slot_of(r);

	if (r->type == MP3_RECORD_CGROUP_SWAP) {
		if (r->target != u->target || r->tgid || r->swap.event != MP3_SWAP_OUT ||
		    r->mapping != MP3_MAPPING_SHMEM || r->swap.address) {
			u->out_other++;
			return;
		}
		u->out_pages += r->swap_time.pages;
		if (u->n < u->size)
			u->slots[u->n++] = slot;
		return;
	}
	if (r->type != MP3_RECORD_SWAP || !(r->swap.event & MP3_SWAP_IN))
		return;
	/* The child's own stack or heap can go out with the memfd: its process's swap-outs. */
	if (r->swap.address < u->region || r->swap.address >= u->region_end) {
		u->in_outside++;
		return;
	}
	if (!u->sorted) {
		qsort(u->slots, u->n, sizeof(*u->slots), compare_u64);
		u->sorted = true;
	}
	u->in_events++;
	if (r->target != u->target)
		u->in_other++;
	else if (bsearch(&slot, u->slots, u->n, sizeof(*u->slots), compare_u64))
		u->in_from_out++;
}

/*
 * The child's memfd written and unmapped in UNMAPPED_CGROUP, followed
 * with "C" and then @pages ("S <target>", with or without "charged");
 * reclaimed with memory.reclaim, then mapped and read again: into @u,
 * what the ring says meanwhile; *@written: the pages the kernel wrote out,
 * *@dropped: page events dropped meanwhile. false: not run, said.
 */
static bool memfd_out_and_back(const char *test, const char *pages, struct unmapped_sums *u,
			       uint64_t *written, uint64_t *dropped)
{
	size_t bytes = REGION_PAGES * (size_t)sysconf(_SC_PAGESIZE);
	uint64_t from, to, before;
	struct mp3ring ring;
	uintptr_t said;
	int go, back, fd;
	pid_t child;

	map_ring(&ring, &fd);
	if (!child_in_cgroup_can_swap(test, UNMAPPED_CGROUP)) {
		close(fd);
		return false;
	}
	child = spawn_piped(unmapped_memfd_child, &go, &back);
	move_to_cgroup(UNMAPPED_CGROUP, child);
	expect_ok(status_printf(-1, "C %llu %d", cgroup_id(UNMAPPED_CGROUP), UNMAPPED_TARGET),
		  "C of the cgroup");
	expect_ok(status_printf(-1, pages, UNMAPPED_TARGET), "S of its target");
	from = mp3ring_head(&ring);
	*dropped = ring.hdr->swap_dropped;
	expect(write(go, "g", 1) == 1 && read(back, &said, sizeof(said)) == sizeof(said),
	       "the child did not write and unmap its memfd");
	before = swapped_out();
	reclaim_cgroup(UNMAPPED_CGROUP, bytes);
	*written = swapped_out() - before;
	expect(write(go, "t", 1) == 1 && read(back, &said, sizeof(said)) == sizeof(said),
	       "the child did not read its memfd again");
	to = wait_head(&ring, mp3ring_head(&ring) + 2, 2000);
	u->region = said;
	u->region_end = said + bytes;
	u->slots = calloc(u->size, sizeof(*u->slots));
	expect(u->slots, "no memory");
	for_each_record_between(&ring, from, to, add_unmapped_record, u);
	*dropped = page_events_dropped_since(&ring, *dropped);
	printf("  %s: the kernel wrote out %" PRIu64 " pages of the cgroup (its memfd and the"
	       " child's own); the cgroup's swap-outs of no process %" PRIu64 " (%" PRIu64
	       " not as they should be); %" PRIu64 " swap-ins of the memfd, %" PRIu64 " from"
	       " their slots, %" PRIu64 " of another target; %" PRIu64 " of other pages; %"
	       PRIu64 " dropped\n", test, *written, u->out_pages, u->out_other, u->in_events,
	       u->in_from_out, u->in_other, u->in_outside, *dropped);
	expect(*written >= REGION_PAGES / 2, "only %" PRIu64 " pages written out of %d asked",
	       *written, REGION_PAGES);
	expect(!u->in_other, "%" PRIu64 " swap-ins not the target's", u->in_other);
	free(u->slots);
	kill_and_reap(child);
	close(go);
	close(back);
	close(fd);
	return true;
}

/*
 * A followed cgroup's shmem pages that none of its processes maps (a memfd
 * written and unmapped), reclaimed with memory.reclaim, its target given
 * "S <target> charged": each page written out is a swap-out of the
 * cgroup's target of no process (MP3_RECORD_CGROUP_SWAP), as many as the
 * kernel wrote out within 1 %; mapped and read again, each page comes back
 * from the slot one of them went to. Without memory cgroups or swap: not
 * run, said.
 */
static void count_cgroup_swap(void *ctx, const struct mp3_proc_record *r)
{
	*(uint64_t *)ctx += r->type == MP3_RECORD_CGROUP_SWAP;
}

/*
 * After "X" of the cgroup's target: a memfd of the cgroup written out while
 * the hooks stay armed (a sleeper traced) is no target's: how many records
 * of no process the ring has of it.
 */
static uint64_t cgroup_swap_after_removal(void)
{
	size_t bytes = REGION_PAGES * (size_t)sysconf(_SC_PAGESIZE);
	pid_t sleeper = spawn_sleeper(), child;
	uint64_t from, records = 0;
	struct mp3ring ring;
	uintptr_t said;
	int go, back, fd;

	map_ring(&ring, &fd);
	expect_ok(status_printf(-1, "R %d pages", (int)sleeper), "R sleeper pages");
	child = spawn_piped(unmapped_memfd_child, &go, &back);
	move_to_cgroup(UNMAPPED_CGROUP, child);
	from = mp3ring_head(&ring);
	expect(write(go, "g", 1) == 1 && read(back, &said, sizeof(said)) == sizeof(said),
	       "the child did not write and unmap its memfd");
	reclaim_cgroup(UNMAPPED_CGROUP, bytes);
	for_each_record_between(&ring, from, wait_head(&ring, mp3ring_head(&ring) + 2, 2000),
				count_cgroup_swap, &records);
	kill_and_reap(child);
	kill_and_reap(sleeper);
	close(go);
	close(back);
	close(fd);
	return records;
}

void test_pages_swap_cgroup_unmapped(void)
{
	struct unmapped_sums u = { .target = UNMAPPED_TARGET, .size = 2 * REGION_PAGES };
	uint64_t written, dropped, after;

	if (!memfd_out_and_back("pages_swap_cgroup_unmapped", "S %d charged", &u, &written,
				&dropped))
		return;
	expect(page_events_agree(u.out_pages, written, dropped), "the cgroup's swap-outs %" PRIu64
	       " and %" PRIu64 " dropped, the kernel wrote out %" PRIu64, u.out_pages, dropped,
	       written);
	expect(!u.out_other, "%" PRIu64 " cgroup swap-outs not the target's as they should be",
	       u.out_other);
	expect(u.in_events && u.in_from_out + dropped >= u.in_events, "of %" PRIu64 " swap-ins, %"
	       PRIu64 " from a slot the cgroup's swap-outs went to (%" PRIu64 " dropped)",
	       u.in_events, u.in_from_out, dropped);
	/* "M" after "S charged" once cleared "charged": "X" then left the cgroup listed. */
	expect_ok(status_printf(-1, "M %d", UNMAPPED_TARGET), "M of its target");
	expect_ok(status_printf(-1, "X %d", UNMAPPED_TARGET), "X of its target");
	after = cgroup_swap_after_removal();
	printf("  pages_swap_cgroup_unmapped: after M and X of its target, %" PRIu64 " records of"
	       " no process\n", after);
	expect(!after, "%" PRIu64 " records of no process after X of the cgroup's target", after);
	expect(!rmdir(UNMAPPED_CGROUP), "rmdir %s: %s", UNMAPPED_CGROUP, strerror(errno));
}

/*
 * The same given "S <target>" alone, as a reader older than version 13
 * asks (it would take a record of no process for a process 0's): no
 * record of no process, of any target, though the kernel wrote the memfd
 * out. "charged" is then refused (EBUSY), and on a tree's target (EINVAL).
 */
void test_pages_unmapped_unasked(void)
{
	struct unmapped_sums u = { .target = UNMAPPED_TARGET, .size = 2 * REGION_PAGES };
	uint64_t written, dropped;
	pid_t sleeper;

	if (!memfd_out_and_back("pages_unmapped_unasked", "S %d", &u, &written, &dropped))
		return;
	expect(!u.out_pages && !u.out_other, "%" PRIu64 " pages in cgroup swap-outs of the"
	       " target and %" PRIu64 " records of others, none asked for", u.out_pages,
	       u.out_other);
	expect(!u.in_from_out, "%" PRIu64 " swap-ins from slots of cgroup swap-outs",
	       u.in_from_out);
	expect_errno(status_printf(-1, "S %d charged", UNMAPPED_TARGET), EBUSY,
		     "S unmapped of a target with pages without them");
	expect_ok(status_printf(-1, "X %d", UNMAPPED_TARGET), "X of the cgroup's target");
	sleeper = spawn_sleeper();
	expect_ok(status_printf(-1, "T %d %d", (int)sleeper, UNMAPPED_TARGET), "T of a sleeper");
	expect_errno(status_printf(-1, "S %d charged", UNMAPPED_TARGET), EINVAL,
		     "S unmapped of a tree's target");
	kill_and_reap(sleeper);
	expect(!rmdir(UNMAPPED_CGROUP), "rmdir %s: %s", UNMAPPED_CGROUP, strerror(errno));
}
