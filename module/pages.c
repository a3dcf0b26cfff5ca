// SPDX-License-Identifier: GPL-2.0
/*
 * The "pages" measure (struct mp3_measure): which pages of the processes
 * that have it go to swap and come back (MP3_RECORD_SWAP), anonymous and
 * shared memory (shmem: tmpfs, memfd, SysV, shared anonymous mappings).
 * While any process or group has it, four hooks are armed:
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
 *   once);
 * - return probes on the two swap-in faults, do_swap_page() (anonymous:
 *   the slot is in the page table entry) and shmem_fault() (the slot is
 *   the value shmem keeps in its page cache for a page in swap): the
 *   faulting thread's process, the virtual page, whether the fault counts
 *   as major (it read the page), and the time the thread spent in it, its
 *   retried attempts added up (retries.c).
 *
 * Events go into per-CPU buffers, which each tick takes whole into records
 * of the processes still traced. Kernel threads' swap-in faults
 * (khugepaged's) are not the process's and are left out. A shmem page that
 * no traced process maps when reclaim writes it out has no process, and no
 * swap-out.
 */
#include <linux/atomic.h>
#include <linux/hash.h>
#include <linux/hashtable.h>
#include <linux/kprobes.h>
#include <linux/log2.h>
#include <linux/mm.h>
#include <linux/mm_types.h>
#include <linux/moduleparam.h>
#include <linux/percpu.h>
#include <linux/pid.h>
#include <linux/ptrace.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/string.h>
#include <linux/swap.h>
#include <linux/swapops.h>
#include <linux/tracepoint.h>
#include <linux/xarray.h>

#include "compat.h"
#include "internal.h"

/* Events one CPU keeps between two ticks, at most; beyond, counted in swap_dropped. */
#define MP3_SWAP_EVENTS_PER_CPU 8192
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

/* A process with pages: hashed by its struct pid. */
struct mp3_page_trace {
	/* In mp3_traced_hash while hashed, under mp3_traced_lock; read under RCU. */
	struct hlist_node node;
	struct pid *pid;		/* its process's, held by its entry */
	struct mp3_record_tag tag;	/* its records' */
	struct mp3_retries retries;
};

/* An event noted by a hook, for the process of @pid (compared only). */
struct mp3_swap_noted {
	const struct pid *pid;
	struct mp3_swap_event event;
};

/*
 * One CPU's events. The hooks fill @filling under @lock; the tick swaps it
 * with @spare and reads that alone (mp3_lock). No interrupt handler notes
 * events, and the tick takes the lock from process context: no irqsave.
 */
struct mp3_swap_cpu {
	raw_spinlock_t lock;	/* protects len, dropped and filling */
	unsigned int len;
	u64 dropped;
	struct mp3_swap_noted *filling;
	struct mp3_swap_noted *spare;
	unsigned int taken, next;	/* of spare's events, written up to next (mp3_lock) */
};

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

/* What a swap-in return probe notes at the fault's entry. */
struct mp3_swapin_start {
	u64 ns;
	unsigned long address;
	unsigned long slot;
	unsigned int flags;
	u32 mapping;
};

/*
 * Swap-in faults in flight at once in traced processes, at most; beyond,
 * not traced (counted in swap_dropped).
 */
static unsigned int pages_active = 256;
module_param(pages_active, uint, 0444);
MODULE_PARM_DESC(pages_active,
		 "Swap-in faults of each kind (anonymous, shmem) of processes with pages traced at once, at most (default 256)");

/* Processes hashed with a trace, and groups with pages: the hooks stay armed. */
static atomic_t mp3_traced;
static DEFINE_HASHTABLE(mp3_traced_hash, 10);
/*
 * Protects mp3_traced_hash's changes (readers: RCU). Taken from the probes
 * that hash a forked process: never held across anything that sleeps;
 * nests inside mp3_hash_lock.
 */
static DEFINE_SPINLOCK(mp3_traced_lock);

/* Allocated at the first arm, freed at unload; under mp3_lock but for the hooks' use. */
static struct mp3_swap_cpu __percpu *mp3_swap_cpus;
/* Under mp3_lock, at a tick: the CPUs whose taken events are not all written yet. */
static unsigned int *mp3_swap_active;
static struct mp3_swap_pending *mp3_pending;
/* Protects mp3_pending's places. */
static DEFINE_RAW_SPINLOCK(mp3_pending_lock);

/* Under mp3_lock: whether the hooks are registered; what was dropped since load. */
static bool mp3_pages_armed;
/* Disarmed and taken since: the buffers stay empty until the hooks are armed again. */
static bool mp3_swap_drained;
static struct tracepoint *mp3_write_folio_tp;
static u64 mp3_swap_dropped;
/* Pending pages whose place another took before their write-out: their swap-outs are lost. */
static atomic64_t mp3_pending_lost;

/* Under rcu_read_lock(): the trace of @pid's process, NULL if it has none. */
static struct mp3_page_trace *mp3_trace_of(const struct pid *pid)
{
	struct mp3_page_trace *trace;

	hash_for_each_possible_rcu(mp3_traced_hash, trace, node, (unsigned long)pid)
		if (trace->pid == pid)
			return trace;
	return NULL;
}

/* An event of @pid's process into this CPU's buffer, or counted as dropped. */
static void mp3_swap_note(const struct pid *pid, const struct mp3_swap_event *e)
{
	struct mp3_swap_cpu *c;

	preempt_disable();
	c = this_cpu_ptr(mp3_swap_cpus);
	raw_spin_lock(&c->lock);
	if (c->len < MP3_SWAP_EVENTS_PER_CPU)
		c->filling[c->len++] = (struct mp3_swap_noted){ .pid = pid, .event = *e };
	else
		c->dropped++;
	raw_spin_unlock(&c->lock);
	preempt_enable();
}

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
	if (!n)
		return;
	e = (struct mp3_swap_event){
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

/* Whether the current thread's process is traced, and not a kernel thread. */
static bool mp3_current_traced(void)
{
	bool traced;

	if (current->flags & PF_KTHREAD)
		return false;
	rcu_read_lock();
	traced = mp3_trace_of(task_tgid(current));
	rcu_read_unlock();
	return traced;
}

static void mp3_swapin_begin(struct mp3_swapin_start *start, const struct vm_fault *vmf,
			     swp_entry_t slot, u32 mapping)
{
	*start = (struct mp3_swapin_start){
		.slot = slot.val,
		.address = vmf->address & PAGE_MASK,
		.flags = vmf->flags,
		.mapping = mapping,
		.ns = mp3_fault_clock(),
	};
}

/* do_swap_page(vmf): the fault's page table entry holds the slot. 0: the return probe runs. */
static int mp3_anon_swapin_entered(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	struct vm_fault *vmf = (struct vm_fault *)regs_get_kernel_argument(regs, 0);
	swp_entry_t slot;

	if (!mp3_current_traced() || !mp3_pte_swap_entry(vmf->orig_pte, &slot))
		return 1;
	mp3_swapin_begin((struct mp3_swapin_start *)ri->data, vmf, slot, MP3_MAPPING_ANON);
	return 0;
}

/*
 * shmem_fault(vmf): a swap-in if shmem's page cache holds, at the page's
 * index, the value of the slot it went to instead of a folio (as
 * shmem_get_folio_gfp() finds it, under RCU).
 */
static int mp3_shmem_swapin_entered(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	struct vm_fault *vmf = (struct vm_fault *)regs_get_kernel_argument(regs, 0);
	void *entry;

	if (!mp3_current_traced())
		return 1;
	entry = xa_load(&file_inode(vmf->vma->vm_file)->i_mapping->i_pages, vmf->pgoff);
	if (!xa_is_value(entry))
		return 1;
	mp3_swapin_begin((struct mp3_swapin_start *)ri->data, vmf, radix_to_swp_entry(entry),
			 MP3_MAPPING_SHMEM);
	return 0;
}

/*
 * A swap-in fault of @trace's process returned @ret at @now. Major as the
 * kernel counts it (mm_account_fault()): read from swap, or retried.
 */
static void mp3_swapin_done(struct mp3_page_trace *trace, const struct pid *pid,
			    const struct mp3_swapin_start *start, vm_fault_t ret, u64 now)
{
	u64 ns = now > start->ns ? now - start->ns : 0;
	swp_entry_t slot = { .val = start->slot };
	bool read = (ret & VM_FAULT_MAJOR) || (start->flags & FAULT_FLAG_TRIED);
	struct mp3_swap_event e;

	if (ret & VM_FAULT_RETRY) {
		mp3_retries_hold(&trace->retries, start->address, ns, now);
		return;
	}
	ns += mp3_retries_take(&trace->retries, start->address);
	if (ret & VM_FAULT_ERROR)
		return;
	e = (struct mp3_swap_event){
		.address = start->address,
		.offset = swp_offset(slot),
		.device = swp_type(slot),
		.event = MP3_SWAP_IN | (read ? MP3_SWAP_READ : 0),
		.mapping = start->mapping,
		.time_ns = now,
		.stall_ns = ns,
		.pages = 1,
	};
	mp3_swap_note(pid, &e);
}

static int mp3_swapin_returned(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	const struct mp3_swapin_start *start = (const struct mp3_swapin_start *)ri->data;
	u64 now = mp3_fault_clock();
	struct mp3_page_trace *trace;
	const struct pid *pid;

	/* Looked up again: the process may have been unregistered while the fault slept. */
	rcu_read_lock();
	pid = task_tgid(current);
	trace = mp3_trace_of(pid);
	if (trace)
		mp3_swapin_done(trace, pid, start, (__force vm_fault_t)regs_return_value(regs),
				now);
	rcu_read_unlock();
	return 0;
}

static struct kprobe mp3_unmap_probe;

/* The swap-in faults' probes, registered and unregistered together. */
static struct kretprobe mp3_swapin_probes[] = {
	{ .entry_handler = mp3_anon_swapin_entered, .handler = mp3_swapin_returned,
	  .data_size = sizeof(struct mp3_swapin_start) },
	{ .entry_handler = mp3_shmem_swapin_entered, .handler = mp3_swapin_returned,
	  .data_size = sizeof(struct mp3_swapin_start) },
};

static const char *const mp3_swapin_symbols[] = { "do_swap_page", "shmem_fault" };
static_assert(ARRAY_SIZE(mp3_swapin_symbols) == ARRAY_SIZE(mp3_swapin_probes));
/* Under mp3_lock: each probe's nmissed already counted in mp3_swap_dropped. */
static u32 mp3_swapin_nmissed_folded[ARRAY_SIZE(mp3_swapin_probes)];

/*
 * Reclaim's pages and every swap-in fault pass the hooks: for
 * administrators only. A swap-out's process is its memory map's owner,
 * which only a kernel with memory cgroups knows.
 */
static int mp3_pages_allowed(const struct file *file)
{
	if (!IS_ENABLED(CONFIG_MEMCG))
		return -EOPNOTSUPP;
	return mp3_file_privileged(file) ? 0 : -EPERM;
}

static void *mp3_pages_attach(const struct mp3_measured *m, gfp_t gfp)
{
	struct mp3_page_trace *trace = kzalloc(sizeof(*trace), gfp);

	if (trace)
		mp3_retries_init(&trace->retries);
	return trace;
}

/* Once unhashed, and no hook can be looking at it: after a grace period. */
static void mp3_pages_release(void *state)
{
	kfree(state);
}

static void mp3_pages_get(void)
{
	atomic_inc(&mp3_traced);
}

static void mp3_pages_put(void)
{
	atomic_dec(&mp3_traced);
}

/* @m's process is traced from now on, until unhashed. Under mp3_hash_lock, from the probes too. */
static void mp3_pages_hashed(void *state, const struct mp3_measured *m)
{
	struct mp3_page_trace *trace = state;

	trace->pid = m->pid;
	trace->tag = m->tag;
	spin_lock(&mp3_traced_lock);
	hash_add_rcu(mp3_traced_hash, &trace->node, (unsigned long)trace->pid);
	spin_unlock(&mp3_traced_lock);
	mp3_pages_get();
}

static void mp3_pages_unhashed(void *state)
{
	struct mp3_page_trace *trace = state;

	spin_lock(&mp3_traced_lock);
	hash_del_rcu(&trace->node);
	spin_unlock(&mp3_traced_lock);
	mp3_pages_put();
}

static void mp3_find_write_folio(struct tracepoint *tp, void *priv)
{
	if (!strcmp(tp->name, "mm_vmscan_write_folio"))
		mp3_write_folio_tp = tp;
}

static void mp3_swap_cpus_free(void)
{
	int cpu;

	for_each_possible_cpu(cpu) {
		struct mp3_swap_cpu *c = per_cpu_ptr(mp3_swap_cpus, cpu);

		kvfree(c->filling);
		kvfree(c->spare);
	}
	free_percpu(mp3_swap_cpus);
	mp3_swap_cpus = NULL;
	kfree(mp3_swap_active);
	mp3_swap_active = NULL;
}

/* The buffers, once: kept until unload, so that no hook ever finds them gone. */
static int __mp3_pages_alloc(void)
{
	int cpu;

	if (mp3_swap_cpus)
		return 0;
	mp3_swap_cpus = alloc_percpu(struct mp3_swap_cpu);
	if (!mp3_swap_cpus)
		return -ENOMEM;
	mp3_swap_active = kcalloc(nr_cpu_ids, sizeof(*mp3_swap_active), GFP_KERNEL);
	if (!mp3_swap_active)
		goto free;
	for_each_possible_cpu(cpu) {
		struct mp3_swap_cpu *c = per_cpu_ptr(mp3_swap_cpus, cpu);

		raw_spin_lock_init(&c->lock);
		c->filling = kvcalloc(MP3_SWAP_EVENTS_PER_CPU, sizeof(*c->filling), GFP_KERNEL);
		c->spare = kvcalloc(MP3_SWAP_EVENTS_PER_CPU, sizeof(*c->spare), GFP_KERNEL);
		if (!c->filling || !c->spare)
			goto free;
	}
	mp3_pending = kvcalloc(MP3_PENDING_SLOTS, sizeof(*mp3_pending), GFP_KERNEL);
	if (!mp3_pending)
		goto free;
	return 0;

free:
	mp3_swap_cpus_free();
	return -ENOMEM;
}

/* @kp on @symbol, registered as new (a probe registered before keeps nothing of it). */
static int mp3_kprobe_register(struct kprobe *kp, const char *symbol, kprobe_pre_handler_t pre)
{
	int err;

	memset(kp, 0, sizeof(*kp));
	kp->symbol_name = symbol;
	kp->pre_handler = pre;
	err = register_kprobe(kp);
	if (err)
		pr_warn_ratelimited("no probe on %s: %d\n", symbol, err);
	return err;
}

/*
 * The swap-in probes, all or none, each registered as new: its nmissed
 * from before was folded into mp3_swap_dropped.
 */
static int __mp3_swapin_probes_register(void)
{
	unsigned int i;
	int err;

	for (i = 0; i < ARRAY_SIZE(mp3_swapin_probes); i++) {
		struct kretprobe *rp = &mp3_swapin_probes[i];

		memset(&rp->kp, 0, sizeof(rp->kp));
		rp->kp.symbol_name = mp3_swapin_symbols[i];
		rp->nmissed = 0;
		rp->maxactive = pages_active;
		mp3_swapin_nmissed_folded[i] = 0;
		err = register_kretprobe(rp);
		if (err) {
			pr_warn_ratelimited("no probe on %s: %d\n", mp3_swapin_symbols[i], err);
			goto unregister;
		}
	}
	return 0;

unregister:
	while (i--)
		unregister_kretprobe(&mp3_swapin_probes[i]);
	return err;
}

static void mp3_swapin_probes_unregister(void)
{
	for (unsigned int i = 0; i < ARRAY_SIZE(mp3_swapin_probes); i++)
		unregister_kretprobe(&mp3_swapin_probes[i]);
}

/* The hooks, all or none: a kernel without one says which (ENOENT and the log). */
static int __mp3_pages_arm(void)
{
	int err;

	lockdep_assert_held(&mp3_lock);

	if (mp3_pages_armed)
		return 0;
	err = __mp3_pages_alloc();
	if (err)
		return err;
	if (!mp3_write_folio_tp)
		for_each_kernel_tracepoint(mp3_find_write_folio, NULL);
	if (!mp3_write_folio_tp) {
		pr_warn_ratelimited("no tracepoint mm_vmscan_write_folio: no page trace\n");
		return -ENOENT;
	}
	err = mp3_kprobe_register(&mp3_unmap_probe, "try_to_unmap_one", mp3_unmap_entered);
	if (err)
		return err;
	err = __mp3_swapin_probes_register();
	if (err)
		goto unmap;
	err = tracepoint_probe_register(mp3_write_folio_tp, mp3_probe_write_folio, NULL);
	if (err)
		goto swapin;
	mp3_pages_armed = true;
	mp3_swap_drained = false;
	return 0;

swapin:
	mp3_swapin_probes_unregister();
unmap:
	unregister_kprobe(&mp3_unmap_probe);
	return err;
}

static void __mp3_pages_fold_missed(void)
{
	for (unsigned int i = 0; i < ARRAY_SIZE(mp3_swapin_probes); i++) {
		u32 nmissed = (u32)READ_ONCE(mp3_swapin_probes[i].nmissed);

		mp3_swap_dropped += (u32)(nmissed - mp3_swapin_nmissed_folded[i]);
		mp3_swapin_nmissed_folded[i] = nmissed;
	}
}

/* Disarms the hooks; waits until none runs. */
static void __mp3_pages_disarm(void)
{
	tracepoint_probe_unregister(mp3_write_folio_tp, mp3_probe_write_folio, NULL);
	mp3_swapin_probes_unregister();
	unregister_kprobe(&mp3_unmap_probe);
	tracepoint_synchronize_unregister();
	__mp3_pages_fold_missed();
	mp3_pages_armed = false;
}

/*
 * Disarms the hooks once nothing is traced, and arms them again if
 * something is while they are not: a process forked from a traced one
 * joins without mp3_lock, and may have taken its reference while a disarm
 * was waiting.
 */
static void __mp3_pages_reconcile(void)
{
	bool traced = atomic_read(&mp3_traced);

	lockdep_assert_held(&mp3_lock);

	if (mp3_pages_armed && !traced)
		__mp3_pages_disarm();
	else if (!mp3_pages_armed && traced)
		__mp3_pages_arm();
}

/* Under rcu_read_lock(): an event as a record of its process, if still traced. */
static void __mp3_pages_write(const struct mp3_swap_noted *x)
{
	const struct mp3_page_trace *trace = mp3_trace_of(x->pid);

	if (trace)
		__mp3_buffer_record_swap(pid_nr(trace->pid), &trace->tag, &x->event);
	else
		mp3_swap_dropped++;
}

/* The next event to write of the @i-th active CPU. */
static const struct mp3_swap_noted *__mp3_swap_next(unsigned int i)
{
	const struct mp3_swap_cpu *c = per_cpu_ptr(mp3_swap_cpus, mp3_swap_active[i]);

	return &c->spare[c->next];
}

/*
 * The @active CPUs' taken events as records, the oldest first across CPUs
 * (each CPU's are in order already): a page's swap-out on one CPU comes
 * before its swap-in on another in the same tick, as readers replaying
 * slots need. Events of a tick are few per CPU, and few CPUs have any.
 */
static void __mp3_pages_write_ordered(unsigned int active)
{
	rcu_read_lock();
	while (active) {
		unsigned int oldest = 0;
		struct mp3_swap_cpu *c;

		for (unsigned int i = 1; i < active; i++)
			if (__mp3_swap_next(i)->event.time_ns <
			    __mp3_swap_next(oldest)->event.time_ns)
				oldest = i;
		c = per_cpu_ptr(mp3_swap_cpus, mp3_swap_active[oldest]);
		__mp3_pages_write(&c->spare[c->next++]);
		if (c->next == c->taken)
			mp3_swap_active[oldest] = mp3_swap_active[--active];
	}
	rcu_read_unlock();
}

/* Each tick, after the visits: the events noted since the last. */
static void __mp3_pages_tick(void)
{
	unsigned int active = 0;
	int cpu;

	lockdep_assert_held(&mp3_lock);

	/* Disarmed and emptied: no lock of every CPU taken at each tick for nothing. */
	if (!mp3_swap_cpus || mp3_swap_drained)
		return;
	for_each_possible_cpu(cpu) {
		struct mp3_swap_cpu *c = per_cpu_ptr(mp3_swap_cpus, cpu);

		raw_spin_lock(&c->lock);
		swap(c->filling, c->spare);
		c->taken = c->len;
		c->len = 0;
		mp3_swap_dropped += c->dropped;
		c->dropped = 0;
		raw_spin_unlock(&c->lock);
		c->next = 0;
		if (c->taken)
			mp3_swap_active[active++] = cpu;
	}
	__mp3_pages_write_ordered(active);
	/* A disarm waited for every hook: nothing is noted after this pass. */
	mp3_swap_drained = !mp3_pages_armed;
}

static void __mp3_pages_losses(struct mp3_losses *losses)
{
	lockdep_assert_held(&mp3_lock);

	if (mp3_pages_armed)
		__mp3_pages_fold_missed();
	losses->swap_dropped = mp3_swap_dropped + atomic64_read(&mp3_pending_lost);
}

static void __mp3_pages_stop(void)
{
	lockdep_assert_held(&mp3_lock);

	if (mp3_pages_armed)
		__mp3_pages_disarm();
	if (mp3_swap_cpus)
		mp3_swap_cpus_free();
	kvfree(mp3_pending);
	mp3_pending = NULL;
}

const struct mp3_measure mp3_pages_measure = {
	.allowed = mp3_pages_allowed,
	.__arm = __mp3_pages_arm,
	.attach = mp3_pages_attach,
	.hashed = mp3_pages_hashed,
	.unhashed = mp3_pages_unhashed,
	.release = mp3_pages_release,
	.group_get = mp3_pages_get,
	.group_put = mp3_pages_put,
	.__tick = __mp3_pages_tick,
	.__reap = __mp3_pages_reconcile,
	.__losses = __mp3_pages_losses,
	.__stop = __mp3_pages_stop,
};
