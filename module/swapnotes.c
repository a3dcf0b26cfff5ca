// SPDX-License-Identifier: GPL-2.0
/*
 * Where the page trace's hooks (swapout.c, swapin.c, refaults.c) find
 * whether a process is traced, or a cgroup followed with pages, and note
 * their events: a hash of the traced processes by PID and a list of the
 * cgroups, read under RCU, and per-CPU buffers that each tick takes whole
 * (pages.c).
 */
#include <linux/cgroup.h>
#include <linux/hashtable.h>
#include <linux/memcontrol.h>
#include <linux/moduleparam.h>
#include <linux/percpu.h>
#include <linux/pid.h>
#include <linux/sched.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>
#include <linux/spinlock.h>

#include "pages.h"

unsigned int mp3_pages_active = 256;
module_param_named(pages_active, mp3_pages_active, uint, 0444);
MODULE_PARM_DESC(pages_active,
		 "Swap-in faults of each kind (anonymous, shmem), and pages read again, of processes with pages traced at once, at most (default 256)");

/* Events one CPU keeps between two ticks, at most; beyond, counted in swap_dropped. */
#define MP3_SWAP_EVENTS_PER_CPU 8192

/*
 * An event noted by a hook, for the process of @pid (compared only), or,
 * @pid NULL, for the followed cgroup whose records are @tag's.
 */
struct mp3_swap_noted {
	const struct pid *pid;
	struct mp3_record_tag tag;
	struct mp3_swap_event event;
};

/* A followed cgroup with pages. */
struct mp3_swap_cgroup {
	struct list_head node;		/* in mp3_swap_cgroups */
	struct mp3_group_view group;
	struct rcu_head rcu;
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

static DEFINE_HASHTABLE(mp3_traced_hash, 10);
/*
 * Protects mp3_traced_hash's changes (readers: RCU). Taken from the probes
 * that hash a forked process: never held across anything that sleeps;
 * nests inside mp3_hash_lock.
 */
static DEFINE_SPINLOCK(mp3_traced_lock);

/* The followed cgroups with pages: changed under mp3_lock, read under RCU. */
static LIST_HEAD(mp3_swap_cgroups);

/* Allocated at the first arm, freed at unload; under mp3_lock but for the hooks' use. */
static struct mp3_swap_cpu __percpu *mp3_swap_cpus;
/* Under mp3_lock, at a tick: the CPUs whose taken events are not all written yet. */
static unsigned int *mp3_swap_active;

void mp3_swap_trace_hash(struct mp3_page_trace *trace)
{
	spin_lock(&mp3_traced_lock);
	hash_add_rcu(mp3_traced_hash, &trace->node, (unsigned long)trace->pid);
	spin_unlock(&mp3_traced_lock);
}

void mp3_swap_trace_unhash(struct mp3_page_trace *trace)
{
	spin_lock(&mp3_traced_lock);
	hash_del_rcu(&trace->node);
	spin_unlock(&mp3_traced_lock);
}

struct mp3_page_trace *mp3_trace_of(const struct pid *pid)
{
	struct mp3_page_trace *trace;

	hash_for_each_possible_rcu(mp3_traced_hash, trace, node, (unsigned long)pid)
		if (trace->pid == pid)
			return trace;
	return NULL;
}

int __mp3_swap_cgroup_add(const struct mp3_group_view *g)
{
	struct mp3_swap_cgroup *c;

	lockdep_assert_held(&mp3_lock);

	c = kmalloc(sizeof(*c), GFP_KERNEL);
	if (!c)
		return -ENOMEM;
	c->group = *g;
	list_add_tail_rcu(&c->node, &mp3_swap_cgroups);
	return 0;
}

void __mp3_swap_cgroup_remove(const struct mp3_group_view *g)
{
	struct mp3_swap_cgroup *c;

	lockdep_assert_held(&mp3_lock);

	list_for_each_entry(c, &mp3_swap_cgroups, node)
		if (c->group.cgrp == g->cgrp && c->group.tag.target == g->tag.target) {
			list_del_rcu(&c->node);
			kfree_rcu(c, rcu);
			return;
		}
}

bool __mp3_swap_cgroups_charged(void)
{
	lockdep_assert_held(&mp3_lock);

	return !list_empty(&mp3_swap_cgroups);
}

/* Under mp3_lock: whether the followed cgroup whose records are @target's still has pages. */
static bool __mp3_swap_cgroup_listed(u32 target)
{
	struct mp3_swap_cgroup *c;

	list_for_each_entry(c, &mp3_swap_cgroups, node)
		if (c->group.tag.target == target)
			return true;
	return false;
}

#ifdef CONFIG_MEMCG
static bool mp3_swap_cgroup_tag(struct cgroup *cgrp, struct mp3_record_tag *tag)
{
	const struct mp3_swap_cgroup *c, *first = NULL;

	list_for_each_entry_rcu(c, &mp3_swap_cgroups, node)
		if (cgroup_is_descendant(cgrp, c->group.cgrp) &&
		    (!first || c->group.order < first->group.order))
			first = c;
	if (first)
		*tag = first->group.tag;
	return first;
}

bool mp3_folio_cgroup_tag(struct folio *folio, struct mp3_record_tag *tag)
{
	struct mem_cgroup *memcg;

	RCU_LOCKDEP_WARN(!rcu_read_lock_held(), "needs rcu_read_lock()");
	/* Nothing to look for: every page reclaim takes passes here. */
	if (list_empty(&mp3_swap_cgroups))
		return false;
	memcg = folio_memcg(folio);
	return memcg && mp3_swap_cgroup_tag(memcg->css.cgroup, tag);
}
#else
/* Without memory cgroups a page is no cgroup's (and "S" is refused: pages.c). */
bool mp3_folio_cgroup_tag(struct folio *folio, struct mp3_record_tag *tag)
{
	return false;
}
#endif

bool mp3_current_traced(void)
{
	bool traced;

	if (current->flags & PF_KTHREAD)
		return false;
	rcu_read_lock();
	traced = mp3_trace_of(task_tgid(current));
	rcu_read_unlock();
	return traced;
}

static void mp3_swap_note_noted(const struct mp3_swap_noted *noted)
{
	struct mp3_swap_cpu *c;

	preempt_disable();
	c = this_cpu_ptr(mp3_swap_cpus);
	raw_spin_lock(&c->lock);
	if (c->len < MP3_SWAP_EVENTS_PER_CPU)
		c->filling[c->len++] = *noted;
	else
		c->dropped++;
	raw_spin_unlock(&c->lock);
	preempt_enable();
}

void mp3_swap_note(const struct pid *pid, const struct mp3_swap_event *e)
{
	mp3_swap_note_noted(&(struct mp3_swap_noted){ .pid = pid, .event = *e });
}

void mp3_swap_note_cgroup(const struct mp3_record_tag *tag, const struct mp3_swap_event *e)
{
	mp3_swap_note_noted(&(struct mp3_swap_noted){ .tag = *tag, .event = *e });
}

void mp3_swap_notes_free(void)
{
	int cpu;

	if (!mp3_swap_cpus)
		return;
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

int __mp3_swap_notes_alloc(void)
{
	int cpu;

	lockdep_assert_held(&mp3_lock);

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
	return 0;

free:
	mp3_swap_notes_free();
	return -ENOMEM;
}

/*
 * Under rcu_read_lock(): an event as a record of its process, if still
 * traced, or of its followed cgroup (no process: tgid 0), if it still has
 * pages.
 */
static void __mp3_swap_write(const struct mp3_swap_noted *x, u64 *dropped)
{
	const struct mp3_page_trace *trace = x->pid ? mp3_trace_of(x->pid) : NULL;

	if (trace)
		__mp3_buffer_record_page(pid_nr(trace->pid), &trace->tag, &x->event);
	else if (!x->pid && __mp3_swap_cgroup_listed(x->tag.target))
		__mp3_buffer_record_page(0, &x->tag, &x->event);
	else
		(*dropped)++;
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
static void __mp3_swap_write_ordered(unsigned int active, u64 *dropped)
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
		__mp3_swap_write(&c->spare[c->next++], dropped);
		if (c->next == c->taken)
			mp3_swap_active[oldest] = mp3_swap_active[--active];
	}
	rcu_read_unlock();
}

void __mp3_swap_notes_write(u64 *dropped)
{
	unsigned int active = 0;
	int cpu;

	lockdep_assert_held(&mp3_lock);

	if (!mp3_swap_cpus)
		return;
	for_each_possible_cpu(cpu) {
		struct mp3_swap_cpu *c = per_cpu_ptr(mp3_swap_cpus, cpu);

		raw_spin_lock(&c->lock);
		swap(c->filling, c->spare);
		c->taken = c->len;
		c->len = 0;
		*dropped += c->dropped;
		c->dropped = 0;
		raw_spin_unlock(&c->lock);
		c->next = 0;
		if (c->taken)
			mp3_swap_active[active++] = cpu;
	}
	__mp3_swap_write_ordered(active, dropped);
}
