// SPDX-License-Identifier: GPL-2.0
/*
 * The "pages" measure (struct mp3_measure): which pages of the processes
 * that have it go to swap and come back (MP3_RECORD_SWAP). While any
 * process or group has it, three hooks are armed:
 *
 * - a probe on try_to_unmap_one(), which reclaim calls for each mapping
 *   of a page it is about to write out, in whichever task reclaims: an
 *   anonymous page of a traced process (its memory map's owner), already
 *   given its slot in the swap cache, is noted as pending by slot, with
 *   the process and the virtual page;
 * - the tracepoint mm_vmscan_write_folio, once the page was written out
 *   (or stored by zswap, or found zero-filled): each process noted for its
 *   slot gets a swap-out;
 * - a return probe on do_swap_page(), the swap-in fault: the faulting
 *   thread's process, the slot from the fault's page table entry, the
 *   virtual page, whether the fault counts as major (it read the page),
 *   and the time the thread spent in it, its retried attempts added up
 *   (retries.c).
 *
 * Events go into per-CPU buffers, which each tick takes whole into records
 * of the processes still traced. Kernel threads' swap-in faults
 * (khugepaged's) are not the process's and are left out.
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
#include <linux/tracepoint.h>

#include "compat.h"
#include "internal.h"

/* Events one CPU keeps between two ticks, at most; beyond, counted in swap_dropped. */
#define MP3_SWAP_EVENTS_PER_CPU 8192
/*
 * Pages unmapped and not yet written out, at most, by slot: open
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
};

/* A page unmapped from a traced process, until its write-out. */
struct mp3_swap_pending {
	unsigned long slot;		/* swp_entry_t's val; 0: a free place */
	const struct folio *folio;	/* compared only */
	const struct pid *pid;		/* compared only */
	unsigned long address;
	u64 noted_at;
};

/* What the return probe notes at the entry of do_swap_page(). */
struct mp3_swapin_start {
	u64 ns;
	unsigned long address;
	unsigned long slot;
	unsigned int flags;
};

/*
 * Swap-in faults in flight at once in traced processes, at most; beyond,
 * not traced (counted in swap_dropped).
 */
static unsigned int pages_active = 256;
module_param(pages_active, uint, 0444);
MODULE_PARM_DESC(pages_active,
		 "Swap-in faults of processes with pages traced at once, at most (default 256)");

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
static struct mp3_swap_pending *mp3_pending;
/* Protects mp3_pending's places. */
static DEFINE_RAW_SPINLOCK(mp3_pending_lock);

/* Under mp3_lock: whether the hooks are registered; what was dropped since load. */
static bool mp3_pages_armed;
/* Disarmed and taken since: the buffers stay empty until the hooks are armed again. */
static bool mp3_swap_drained;
static struct tracepoint *mp3_write_folio_tp;
static u64 mp3_swap_dropped;
static u32 mp3_swapin_nmissed_folded;
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

static unsigned int mp3_pending_hash(unsigned long slot)
{
	return hash_long(slot, ilog2(MP3_PENDING_SLOTS));
}

/*
 * Notes the page of @folio in slot @slot as unmapped from @pid's process at
 * @address; a place held longer than MP3_PENDING_NS is taken over (the page
 * was not written out), and with none free the oldest is.
 */
static void mp3_pending_add(unsigned long slot, const struct folio *folio, const struct pid *pid,
			    unsigned long address, u64 now)
{
	unsigned int first = mp3_pending_hash(slot);
	struct mp3_swap_pending *place = NULL;
	unsigned long flags;

	raw_spin_lock_irqsave(&mp3_pending_lock, flags);
	for (unsigned int i = 0; i < MP3_PENDING_PROBES; i++) {
		struct mp3_swap_pending *p = &mp3_pending[(first + i) & (MP3_PENDING_SLOTS - 1)];

		if (!p->slot || now - p->noted_at > MP3_PENDING_NS) {
			place = p;
			break;
		}
		if (!place || p->noted_at < place->noted_at)
			place = p;
	}
	if (place->slot && now - place->noted_at <= MP3_PENDING_NS)
		atomic64_inc(&mp3_pending_lost);
	*place = (struct mp3_swap_pending){ .slot = slot, .folio = folio, .pid = pid,
					    .address = address, .noted_at = now };
	raw_spin_unlock_irqrestore(&mp3_pending_lock, flags);
}

/*
 * try_to_unmap_one(folio, vma, address, arg): reclaim is about to replace
 * the mapping of @folio at @address in @vma with its swap slot.
 */
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

static int mp3_unmap_entered(struct kprobe *p, struct pt_regs *regs)
{
	struct folio *folio = (struct folio *)regs_get_kernel_argument(regs, 0);
	struct vm_area_struct *vma = (struct vm_area_struct *)regs_get_kernel_argument(regs, 1);
	unsigned long address = regs_get_kernel_argument(regs, 2);
	const struct pid *pid;

	if (!folio_test_anon(folio) || !folio_test_swapcache(folio))
		return 0;
	rcu_read_lock();
	pid = mp3_mm_process(vma->vm_mm);
	if (pid && !mp3_trace_of(pid))
		pid = NULL;
	rcu_read_unlock();
	if (pid)
		mp3_pending_add(mp3_folio_swap(folio).val, folio, pid, address & PAGE_MASK,
				mp3_fault_clock());
	return 0;
}

/* The pending places of @folio in @slot, emptied: how many went into @found. */
static unsigned int mp3_pending_take(unsigned long slot, const struct folio *folio,
				     struct mp3_swap_pending found[MP3_PENDING_PROBES])
{
	unsigned int first = mp3_pending_hash(slot), n = 0;
	unsigned long flags;

	raw_spin_lock_irqsave(&mp3_pending_lock, flags);
	for (unsigned int i = 0; i < MP3_PENDING_PROBES; i++) {
		struct mp3_swap_pending *p = &mp3_pending[(first + i) & (MP3_PENDING_SLOTS - 1)];

		if (p->slot != slot || p->folio != folio)
			continue;
		found[n++] = *p;
		p->slot = 0;
	}
	raw_spin_unlock_irqrestore(&mp3_pending_lock, flags);
	return n;
}

/* The tracepoint mm_vmscan_write_folio: @folio was written out. */
static void mp3_probe_write_folio(void *data, struct folio *folio)
{
	struct mp3_swap_pending found[MP3_PENDING_PROBES];
	struct mp3_swap_event e;
	swp_entry_t slot;
	unsigned int n;

	if (!folio_test_anon(folio) || !folio_test_swapcache(folio))
		return;
	slot = mp3_folio_swap(folio);
	n = mp3_pending_take(slot.val, folio, found);
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
		e.address = found[i].address;
		mp3_swap_note(found[i].pid, &e);
	}
}

static int mp3_swapin_entered(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	struct mp3_swapin_start *start = (struct mp3_swapin_start *)ri->data;
	/* do_swap_page(vmf) */
	struct vm_fault *vmf = (struct vm_fault *)regs_get_kernel_argument(regs, 0);
	swp_entry_t slot;
	bool traced;

	if (current->flags & PF_KTHREAD)
		return 1;	/* no return probe */
	rcu_read_lock();
	traced = mp3_trace_of(task_tgid(current));
	rcu_read_unlock();
	if (!traced || !mp3_pte_swap_entry(vmf->orig_pte, &slot))
		return 1;
	start->slot = slot.val;
	start->address = vmf->address & PAGE_MASK;
	start->flags = vmf->flags;
	start->ns = mp3_fault_clock();
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

static struct kprobe mp3_unmap_probe = {
	.pre_handler = mp3_unmap_entered,
};

static struct kretprobe mp3_swapin_probe = {
	.entry_handler = mp3_swapin_entered,
	.handler = mp3_swapin_returned,
	.data_size = sizeof(struct mp3_swapin_start),
};

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
	memset(&mp3_unmap_probe, 0, sizeof(mp3_unmap_probe));
	mp3_unmap_probe.symbol_name = "try_to_unmap_one";
	mp3_unmap_probe.pre_handler = mp3_unmap_entered;
	err = register_kprobe(&mp3_unmap_probe);
	if (err) {
		pr_warn_ratelimited("no probe on try_to_unmap_one: %d\n", err);
		return err;
	}
	/* Registered again, the probe starts as new: nmissed was folded. */
	memset(&mp3_swapin_probe.kp, 0, sizeof(mp3_swapin_probe.kp));
	mp3_swapin_probe.kp.symbol_name = "do_swap_page";
	mp3_swapin_probe.nmissed = 0;
	mp3_swapin_nmissed_folded = 0;
	mp3_swapin_probe.maxactive = pages_active;
	err = register_kretprobe(&mp3_swapin_probe);
	if (err) {
		pr_warn_ratelimited("no probe on do_swap_page: %d\n", err);
		goto unmap;
	}
	err = tracepoint_probe_register(mp3_write_folio_tp, mp3_probe_write_folio, NULL);
	if (err)
		goto swapin;
	mp3_pages_armed = true;
	mp3_swap_drained = false;
	return 0;

swapin:
	unregister_kretprobe(&mp3_swapin_probe);
unmap:
	unregister_kprobe(&mp3_unmap_probe);
	return err;
}

static void __mp3_pages_fold_missed(void)
{
	u32 nmissed = (u32)READ_ONCE(mp3_swapin_probe.nmissed);

	mp3_swap_dropped += (u32)(nmissed - mp3_swapin_nmissed_folded);
	mp3_swapin_nmissed_folded = nmissed;
}

/* Disarms the hooks; waits until none runs. */
static void __mp3_pages_disarm(void)
{
	tracepoint_probe_unregister(mp3_write_folio_tp, mp3_probe_write_folio, NULL);
	unregister_kretprobe(&mp3_swapin_probe);
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

/* The events of one CPU's taken buffer, as records of the processes still traced. */
static void __mp3_pages_write(const struct mp3_swap_noted *noted, unsigned int n)
{
	const struct mp3_page_trace *trace;

	rcu_read_lock();
	for (const struct mp3_swap_noted *x = noted; x < noted + n; x++) {
		trace = mp3_trace_of(x->pid);
		if (trace)
			__mp3_buffer_record_swap(pid_nr(trace->pid), &trace->tag, &x->event);
		else
			mp3_swap_dropped++;
	}
	rcu_read_unlock();
}

/* Each tick, after the visits: the events noted since the last. */
static void __mp3_pages_tick(void)
{
	unsigned int len;
	int cpu;

	lockdep_assert_held(&mp3_lock);

	/* Disarmed and emptied: no lock of every CPU taken at each tick for nothing. */
	if (!mp3_swap_cpus || mp3_swap_drained)
		return;
	for_each_possible_cpu(cpu) {
		struct mp3_swap_cpu *c = per_cpu_ptr(mp3_swap_cpus, cpu);

		raw_spin_lock(&c->lock);
		swap(c->filling, c->spare);
		len = c->len;
		c->len = 0;
		mp3_swap_dropped += c->dropped;
		c->dropped = 0;
		raw_spin_unlock(&c->lock);
		__mp3_pages_write(c->spare, len);
	}
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
