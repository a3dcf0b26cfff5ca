// SPDX-License-Identifier: GPL-2.0
/*
 * The swap-outs of the traced processes' pages, from two hooks:
 *
 * - a probe on try_to_unmap_one(), which reclaim calls for each mapping
 *   of a page it is about to write out, in whichever task reclaims: a page
 *   of a traced process (its memory map's owner) is noted as pending, by
 *   folio, with the process and the virtual page; an anonymous page has
 *   its slot already (the swap cache), a shmem page gets it only when
 *   shmem writes it out;
 * - the tracepoint mm_vmscan_write_folio, once the page was written out
 *   (or stored by zswap, or found zero-filled): each process noted for the
 *   folio gets a swap-out with the folio's slot, one per target (a page of
 *   shared memory that several processes of one service map leaves it
 *   once).
 *
 * A shmem page that no traced process maps when reclaim writes it out has
 * no process: it is the swap-out of the followed cgroup with pages whose
 * memory holds it (a database's shared buffer that no backend had mapped
 * lately, charged to its service), if one does; else it has none.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/atomic.h>
#include <linux/hash.h>
#include <linux/kprobes.h>
#include <linux/log2.h>
#include <linux/memcontrol.h>
#include <linux/mm.h>
#include <linux/mm_types.h>
#include <linux/ptrace.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/string.h>
#include <linux/swap.h>
#include <linux/swapops.h>
#include <linux/tracepoint.h>

#include "compat.h"
#include "pages.h"

/*
 * Pages unmapped and not yet written out, at most, by folio: open
 * addressing over MP3_PENDING_PROBES places. A page several processes map
 * has a place for each.
 */
#define MP3_PENDING_SLOTS 4096
#define MP3_PENDING_PROBES 8
static_assert((MP3_PENDING_SLOTS & (MP3_PENDING_SLOTS - 1)) == 0);
/* A pending page older than this was not written out: its place is free. */
#define MP3_PENDING_NS NSEC_PER_SEC

/* A page unmapped from a traced process, until its write-out. */
struct mp3_swap_pending {
	const struct folio *folio;	/* compared only; NULL: a free place */
	unsigned long slot;		/* swp_entry_t's val; 0 for shmem (see above) */
	const struct pid *pid;		/* compared only */
	u32 target;			/* the process's, when unmapped */
	u32 mapping;			/* MP3_MAPPING_ANON or MP3_MAPPING_SHMEM */
	unsigned long address;
	u64 noted_at;
};

/* Allocated at the first arm, freed at unload. */
static struct mp3_swap_pending *mp3_pending;
/* Protects mp3_pending's places. */
static DEFINE_RAW_SPINLOCK(mp3_pending_lock);
/* Pending pages whose place another took before their write-out: their swap-outs are lost. */
static atomic64_t mp3_pending_lost;
/* Found at the first arm, under mp3_lock. */
static struct tracepoint *mp3_write_folio_tp;
static struct kprobe mp3_unmap_probe;

static unsigned int mp3_pending_hash(const struct folio *folio)
{
	return hash_ptr(folio, ilog2(MP3_PENDING_SLOTS));
}

/*
 * Whether @p, held since @p->noted_at, still waits for its write-out at
 * @now: a page not written out within MP3_PENDING_NS never will be. Signed:
 * noted a moment later on another CPU, whose fast clock may be a little
 * ahead, @p is not from the past.
 */
static bool mp3_pending_waits(const struct mp3_swap_pending *p, u64 now)
{
	return p->folio && (s64)(now - p->noted_at) <= (s64)MP3_PENDING_NS;
}

/*
 * Notes @noted as unmapped: in its own place if the same mapping of the
 * folio waits already (unmapped again after a write-out that did not
 * happen), else in a free place, else in the oldest's, whose swap-out is
 * then lost.
 */
static void mp3_pending_add(const struct mp3_swap_pending *noted)
{
	struct mp3_swap_pending *same = NULL, *free = NULL, *oldest = NULL;
	unsigned int first = mp3_pending_hash(noted->folio);
	unsigned long flags;

	raw_spin_lock_irqsave(&mp3_pending_lock, flags);
	for (unsigned int i = 0; i < MP3_PENDING_PROBES && !same; i++) {
		struct mp3_swap_pending *p = &mp3_pending[(first + i) & (MP3_PENDING_SLOTS - 1)];

		if (p->folio == noted->folio && p->pid == noted->pid &&
		    p->address == noted->address)
			same = p;
		else if (!mp3_pending_waits(p, noted->noted_at))
			free = free ?: p;
		else if (!oldest || p->noted_at < oldest->noted_at)
			oldest = p;
	}
	if (!same && !free)
		atomic64_inc(&mp3_pending_lost);
	*(same ?: free ?: oldest) = *noted;
	raw_spin_unlock_irqrestore(&mp3_pending_lock, flags);
}

/*
 * Under rcu_read_lock(): the process whose memory map @mm is, as memory
 * cgroups know it (mm->owner); NULL without them.
 */
static struct pid *mp3_mm_process(struct mm_struct *mm)
{
#ifdef CONFIG_MEMCG
	struct task_struct *owner = rcu_dereference(mm->owner);

	return owner ? task_tgid(owner) : NULL;
#else
	return NULL;
#endif
}

/*
 * Which kind of swap-backed page @folio is, and its slot if it has one
 * yet; false for a page that does not go to swap (page cache of files,
 * lazily freed anonymous pages) or an anonymous one not in the swap cache.
 */
static bool mp3_folio_swappable(struct folio *folio, u32 *mapping, unsigned long *slot)
{
	if (folio_test_anon(folio)) {
		if (!folio_test_swapcache(folio))
			return false;
		*mapping = MP3_MAPPING_ANON;
		*slot = mp3_folio_swap(folio).val;
		return true;
	}
	if (!folio_test_swapbacked(folio))
		return false;
	*mapping = MP3_MAPPING_SHMEM;
	*slot = 0;
	return true;
}

/*
 * try_to_unmap_one(folio, vma, address, arg): reclaim is about to unmap
 * @folio at @address in @vma (an anonymous page for its swap slot, a shmem
 * page to write it out).
 */
static int mp3_unmap_entered(struct kprobe *p, struct pt_regs *regs)
{
	struct folio *folio = (struct folio *)regs_get_kernel_argument(regs, 0);
	struct vm_area_struct *vma = (struct vm_area_struct *)regs_get_kernel_argument(regs, 1);
	unsigned long address = regs_get_kernel_argument(regs, 2);
	struct mp3_swap_pending noted = { .folio = folio, .address = address & PAGE_MASK };
	const struct mp3_page_trace *trace = NULL;

	if (!mp3_folio_swappable(folio, &noted.mapping, &noted.slot))
		return 0;
	rcu_read_lock();
	noted.pid = mp3_mm_process(vma->vm_mm);
	if (noted.pid)
		trace = mp3_trace_of(noted.pid);
	if (trace)
		noted.target = trace->tag.target;
	rcu_read_unlock();
	if (!trace)
		return 0;
	noted.noted_at = mp3_fault_clock();
	mp3_pending_add(&noted);
	return 0;
}

/*
 * The pending places of @folio, emptied: how many went into @found. An
 * anonymous page's must have been noted with @slot (another page may have
 * had the folio before, and not been written out).
 */
static unsigned int mp3_pending_take(const struct folio *folio, unsigned long slot,
				     struct mp3_swap_pending found[MP3_PENDING_PROBES])
{
	unsigned int first = mp3_pending_hash(folio), n = 0;
	unsigned long flags;

	raw_spin_lock_irqsave(&mp3_pending_lock, flags);
	for (unsigned int i = 0; i < MP3_PENDING_PROBES; i++) {
		struct mp3_swap_pending *p = &mp3_pending[(first + i) & (MP3_PENDING_SLOTS - 1)];

		if (p->folio != folio || (p->slot && p->slot != slot))
			continue;
		found[n++] = *p;
		p->folio = NULL;
	}
	raw_spin_unlock_irqrestore(&mp3_pending_lock, flags);
	return n;
}

/* Whether one of @found[0 .. @i - 1] had @found[@i]'s target, which is not none. */
static bool mp3_target_noted_before(const struct mp3_swap_pending *found, unsigned int i)
{
	for (unsigned int j = 0; found[i].target && j < i; j++)
		if (found[j].target == found[i].target)
			return true;
	return false;
}

/* @folio, written out to @slot with no traced process noted: its cgroup's, if followed. */
static void mp3_unmapped_written(struct folio *folio, swp_entry_t slot)
{
	struct mp3_record_tag tag;
	bool found;

	if (folio_test_anon(folio))
		return;
	rcu_read_lock();
	found = mp3_folio_cgroup_tag(folio, &tag);
	rcu_read_unlock();
	if (!found)
		return;
	mp3_swap_note_cgroup(&tag, &(struct mp3_swap_event){
		.type = MP3_RECORD_CGROUP_SWAP,
		.offset = swp_offset(slot),
		.device = swp_type(slot),
		.event = MP3_SWAP_OUT,
		.mapping = MP3_MAPPING_SHMEM,
		.time_ns = mp3_fault_clock(),
		.pages = folio_nr_pages(folio),
	});
}

/* The tracepoint mm_vmscan_write_folio: @folio was written out. */
static void mp3_probe_write_folio(void *data, struct folio *folio)
{
	struct mp3_swap_pending found[MP3_PENDING_PROBES];
	struct mp3_swap_event e;
	swp_entry_t slot;
	unsigned int n;

	if (!folio_test_swapcache(folio))
		return;
	slot = mp3_folio_swap(folio);
	n = mp3_pending_take(folio, slot.val, found);
	if (!n) {
		mp3_unmapped_written(folio, slot);
		return;
	}
	e = (struct mp3_swap_event){
		.type = MP3_RECORD_SWAP,
		.offset = swp_offset(slot),
		.device = swp_type(slot),
		.event = MP3_SWAP_OUT,
		.time_ns = mp3_fault_clock(),
		.pages = folio_nr_pages(folio),
	};
	for (unsigned int i = 0; i < n; i++) {
		if (mp3_target_noted_before(found, i))
			continue;
		e.address = found[i].address;
		e.mapping = found[i].mapping;
		mp3_swap_note(found[i].pid, &e);
	}
}

static void mp3_find_write_folio(struct tracepoint *tp, void *priv)
{
	if (!strcmp(tp->name, "mm_vmscan_write_folio"))
		mp3_write_folio_tp = tp;
}

/* Both hooks or neither; the pending places once, kept until unload. */
int __mp3_swapout_arm(void)
{
	int err;

	lockdep_assert_held(&mp3_lock);

	if (!mp3_pending) {
		mp3_pending = kvcalloc(MP3_PENDING_SLOTS, sizeof(*mp3_pending), GFP_KERNEL);
		if (!mp3_pending)
			return -ENOMEM;
	}
	if (!mp3_write_folio_tp)
		for_each_kernel_tracepoint(mp3_find_write_folio, NULL);
	if (!mp3_write_folio_tp) {
		pr_warn_ratelimited("no tracepoint mm_vmscan_write_folio: no page trace\n");
		return -ENOENT;
	}
	/* Registered as new: a probe registered before keeps nothing of it. */
	memset(&mp3_unmap_probe, 0, sizeof(mp3_unmap_probe));
	mp3_unmap_probe.symbol_name = "try_to_unmap_one";
	mp3_unmap_probe.pre_handler = mp3_unmap_entered;
	err = register_kprobe(&mp3_unmap_probe);
	if (err) {
		pr_warn_ratelimited("no probe on try_to_unmap_one: %d\n", err);
		return err;
	}
	err = tracepoint_probe_register(mp3_write_folio_tp, mp3_probe_write_folio, NULL);
	if (err)
		goto unmap;
	return 0;

unmap:
	unregister_kprobe(&mp3_unmap_probe);
	return err;
}

/* The caller waits for the hooks running (tracepoint_synchronize_unregister()). */
void __mp3_swapout_disarm(void)
{
	lockdep_assert_held(&mp3_lock);

	tracepoint_probe_unregister(mp3_write_folio_tp, mp3_probe_write_folio, NULL);
	unregister_kprobe(&mp3_unmap_probe);
}

u64 mp3_swapout_lost(void)
{
	return atomic64_read(&mp3_pending_lost);
}

void mp3_swapout_free(void)
{
	kvfree(mp3_pending);
	mp3_pending = NULL;
}
