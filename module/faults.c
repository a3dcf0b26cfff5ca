// SPDX-License-Identifier: GPL-2.0
/*
 * Where the faults of a process registered with "maps" are. Each of its
 * threads gets two kernel perf counters, minor and major page faults, with
 * a period of 1: their overflow handler runs at every fault the task's
 * counters count (mm_account_fault(), when the fault has registers) and
 * notes the faulting address in a per-CPU buffer. The counters are
 * inherited by the threads created later, not by child processes. Each
 * tick the sampler takes the buffers whole and places each fault in its
 * mapping under the process's mmap lock, tried without waiting: a tick
 * never stalls behind a writer, and the faults of a process whose lock a
 * writer holds wait for a later tick. Why counters and not a tracepoint or
 * a kretprobe: docs/faults.md.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/fs.h>
#include <linux/hashtable.h>
#include <linux/list.h>
#include <linux/magic.h>
#include <linux/mm.h>
#include <linux/moduleparam.h>
#include <linux/perf_event.h>
#include <linux/percpu.h>
#include <linux/pid.h>
#include <linux/rcupdate.h>
#include <linux/sched/mm.h>
#include <linux/sched/signal.h>
#include <linux/sched/task.h>
#include <linux/bsearch.h>
#include <linux/slab.h>
#include <linux/sort.h>
#include <linux/spinlock.h>
#include <linux/vmalloc.h>

#include "compat.h"
#include "internal.h"

/* Faults one CPU holds between two ticks: 163 840 a second at 20 Hz. */
#define MP3_FAULTS_PER_CPU 8192
/* Mappings a run of faults counts in before it writes them out. */
#define MP3_RUN_MAPPINGS 8
/* Faults waiting for a process's mmap lock, at most; beyond, not placed. */
#define MP3_FAULTS_DEFERRED 8192
/*
 * Ticks a fault waits for its process's mmap lock (a second at the default
 * period of 50 ms): then not placed.
 */
#define MP3_DEFER_TICKS 20
/* Processes with maps leaving in one tick whose last faults are placed, at most. */
#define MP3_DEPARTED_MAX 4096

/*
 * Which memory map a fault was taken in, so that it is placed in that one
 * only (not in the one an exec installed since, nor in a process that has
 * its PID since): its process's owner (below), the task's exec generation
 * and the memory map's address. The address alone is no identity (a map
 * freed and another allocated there); neither is the exec generation
 * (execs are counted per task, and inherited), nor the PID. Together with
 * the owner they are: within one process and one exec generation there is
 * one memory map, but for a moment in exec (the new map installed, the
 * generation not yet counted) where the two maps are both allocated, so
 * differ by address.
 */
struct mp3_fault {
	unsigned long addr;	/* 0: the event gave none */
	u64 owner;		/* mp3_fault_owner.id of the counter that saw it */
	u64 exec_id;		/* the task's self_exec_id */
	const struct mm_struct *mm;	/* compared, never dereferenced */
	pid_t tgid;		/* in the initial PID namespace */
	bool major;
	u8 ticks;		/* ticks it waited for the mmap lock */
};

/*
 * The process one entry's counters were made for, the context of its
 * counters' overflow handler (perf gives it to the counters the threads
 * inherit too). Its id is never reused, and its PID is held, so that
 * nobody else has it: a fault noted with this id is this process's, and
 * the process found by a number at the tick is this one if it has this
 * PID. Lives as long as counters hold it, then a grace period (a handler
 * may still be reading id); on mp3_fault_owners meanwhile, and on
 * mp3_followed_owners from its creation until its process is unfollowed,
 * both under mp3_lock.
 */
struct mp3_fault_owner {
	u64 id;
	struct pid *pid;
	u32 target;			/* its process's, constant */
	unsigned int nr_threads;	/* mp3_fault_threads holding it */
	struct hlist_node node;
	struct hlist_node followed;
	struct rcu_head rcu;
};

struct mp3_fault_cpu {
	/*
	 * Protects the fields below: the handler appends to filling, the
	 * sampler swaps the two buffers, then reads spare without it (no
	 * handler writes there until the next swap, under mp3_lock).
	 */
	raw_spinlock_t lock;
	struct mp3_fault *filling;
	struct mp3_fault *spare;
	unsigned int len;
	u64 dropped;
	/* The last fault noted: a thread's inherited counter sees it again. */
	const struct task_struct *last_task;
	unsigned long last_fault;
};

/*
 * One thread's pair of counters, on its entry's list, under mp3_lock; the
 * context of their overflow handler (and of the counters its later threads
 * inherit), freed a grace period after them.
 */
struct mp3_fault_thread {
	struct list_head node;
	struct perf_event *minor;
	struct perf_event *major;
	struct mp3_fault_owner *owner;	/* the same for every thread of the list */
	const struct task_struct *task;	/* the thread they were made for; compared only */
	/*
	 * Its faults up to this number (min_flt + maj_flt) are counted in its
	 * process's counts already, and not noted: all of them until
	 * __mp3_faults_count_from_now() reads the number, right after the
	 * counts are read. Else a fault counted in task->min_flt just before
	 * the counts were read, whose event came once the counter was there
	 * (another CPU creates it), would be counted twice.
	 */
	unsigned long counted_to;
	struct rcu_head rcu;
};

/*
 * What one process (tgid and target) put into the records of this tick,
 * over all its runs: a process's faults may come in several runs (one a
 * CPU, and another wherever they alternate with another process's), and
 * its records are bounded per tick. Its faults not placed, and those of
 * the mappings past the bound, go into one unresolved record at the end
 * of the tick. Under mp3_lock, emptied at the end of each tick.
 */
struct mp3_fault_tally {
	pid_t tgid;			/* 0: a free slot */
	u32 target;
	unsigned int records;		/* its mappings' records so far in this tick */
	struct mp3_mapping_faults rest;	/* unresolved */
};

/*
 * The faults of one process that come in a row in the buffers, counted per
 * mapping and written out as records when the row ends, or when it has
 * counted in MP3_RUN_MAPPINGS mappings and meets another. The sampler's,
 * under mp3_lock and rcu_read_lock().
 */
struct mp3_fault_run {
	pid_t tgid;			/* 0: none yet */
	bool followed;			/* registered with maps */
	u32 target;
	struct mp3_fault_tally *tally;	/* NULL: no room, its faults are dropped */
	/* The process found by its number, and its memory map then: what a fault must match. */
	struct pid *pid;
	u64 exec_id;
	u64 owner;			/* an owner id found to have that pid; 0: none yet */
	u64 refused;			/* the last one found not to */
	struct mm_struct *mm;		/* read-locked; NULL: its faults are not placed */
	bool busy;			/* a writer held the mmap lock: faults wait */
	unsigned int nr;		/* mappings counted in */
	unsigned int last;		/* the one the last fault was in */
	const struct vm_area_struct *vmas[MP3_RUN_MAPPINGS];
	struct mp3_mapping_faults counts[MP3_RUN_MAPPINGS];
};

/*
 * Allocated with the first "maps" registration, freed at unload; the
 * counters of processes no longer followed, released at the end of the
 * tick (releasing sleeps, and a process leaves in the middle of an RCU
 * read-side section). Both under mp3_lock, as is
 * mp3_faults_dropped_total's writer.
 */
static struct mp3_fault_cpu __percpu *mp3_fault_cpus;
static LIST_HEAD(mp3_faults_unfollowed);
static u64 mp3_faults_dropped_total;
/* Faults summed into an unresolved record, their process's records at the bound. */
static u64 mp3_faults_summed_total;

/* The owners by id, and the last id given; under mp3_lock. */
static DEFINE_HASHTABLE(mp3_fault_owners, 8);
/* The owners of the processes followed now, by pid; under mp3_lock. */
static DEFINE_HASHTABLE(mp3_followed_owners, 8);
static u64 mp3_fault_owner_last;

/*
 * A process's mapping records in one tick, at most: MP3_FAULT_RECORDS_MAX
 * less its unresolved record (the tally's) and the one registry.c may write
 * for the faults it took before its counters, in the tick that creates
 * them (__mp3_task_record_unplaced()).
 */
#define MP3_TALLY_RECORDS (MP3_FAULT_RECORDS_MAX - 2)
/* Processes with faults in one tick, at most; the faults of the others are dropped. */
#define MP3_TALLY_MAX 4096
#define MP3_TALLY_SLOTS (2 * MP3_TALLY_MAX)
static_assert(MP3_TALLY_RECORDS >= 1);
static_assert((MP3_TALLY_SLOTS & (MP3_TALLY_SLOTS - 1)) == 0);

/*
 * Open addressing by (tgid, target), half full at most; the slots used in
 * this tick are listed in mp3_tally_used, to be written and emptied.
 * Allocated with the buffers, under mp3_lock.
 */
static struct mp3_fault_tally *mp3_tally;
static unsigned int *mp3_tally_used;
static unsigned int mp3_nr_tally;

/*
 * The faults that wait for their process's mmap lock, in the order they
 * came: the sampler takes them (swapping the two arrays) before the CPUs'
 * buffers at each tick and puts back those whose lock is still held.
 * Allocated and freed with the CPUs' buffers; all under mp3_lock.
 */
static struct mp3_fault *mp3_faults_waiting;
static struct mp3_fault *mp3_faults_waiting_spare;
static unsigned int mp3_nr_waiting;

/*
 * The processes with counters that left in this tick's visits (exited, or
 * left their target): their entries are gone, and the faults they took
 * since the last tick are placed all the same. Sorted by tgid before the
 * faults are; emptied after. Allocated with the buffers, under mp3_lock.
 */
struct mp3_departed {
	pid_t tgid;
	u32 target;
	bool place;	/* false: all its faults are unresolved */
};

static struct mp3_departed *mp3_departed;
static unsigned int mp3_nr_departed;

static void mp3_fault_note(struct perf_event *event, struct perf_sample_data *data,
			   struct pt_regs *regs)
{
	/* Freed a grace period after its counters: this handler runs in an RCU section. */
	const struct mp3_fault_thread *thread = event->overflow_handler_context;
	const struct mp3_fault_owner *owner = thread->owner;
	struct mp3_fault_cpu *cpu = this_cpu_ptr(mp3_fault_cpus);
	/* mm_account_fault() counted the fault in the task before the event. */
	unsigned long fault = current->min_flt + current->maj_flt;

	if (current == thread->task && fault <= READ_ONCE(thread->counted_to))
		return;

	/*
	 * No interrupt handler takes a fault that reaches here, and the
	 * sampler holds the lock only from process context: no irqsave.
	 */
	raw_spin_lock(&cpu->lock);
	if (cpu->last_task == current && cpu->last_fault == fault)
		goto out;
	cpu->last_task = current;
	cpu->last_fault = fault;
	if (cpu->len == MP3_FAULTS_PER_CPU) {
		cpu->dropped++;
		goto out;
	}
	cpu->filling[cpu->len++] = (struct mp3_fault) {
		.addr = data->sample_flags & PERF_SAMPLE_ADDR ? data->addr : 0,
		.owner = owner->id,
		/* Written by current only: no tearing to fear from its own read. */
		.exec_id = current->self_exec_id,
		.mm = current->mm,
		.tgid = current->tgid,
		.major = event->attr.config == PERF_COUNT_SW_PAGE_FAULTS_MAJ,
	};
out:
	raw_spin_unlock(&cpu->lock);
}

static void mp3_faults_free_buffers(void)
{
	int cpu;

	kvfree(mp3_faults_waiting);
	kvfree(mp3_faults_waiting_spare);
	kvfree(mp3_departed);
	kvfree(mp3_tally);
	kvfree(mp3_tally_used);
	mp3_faults_waiting = NULL;
	mp3_faults_waiting_spare = NULL;
	mp3_departed = NULL;
	mp3_tally = NULL;
	mp3_tally_used = NULL;
	mp3_nr_waiting = 0;
	mp3_nr_departed = 0;
	mp3_nr_tally = 0;
	if (!mp3_fault_cpus)
		return;
	for_each_possible_cpu(cpu) {
		kvfree(per_cpu_ptr(mp3_fault_cpus, cpu)->filling);
		kvfree(per_cpu_ptr(mp3_fault_cpus, cpu)->spare);
	}
	free_percpu(mp3_fault_cpus);
	mp3_fault_cpus = NULL;
}

/* The buffers, at the first registration that asks for them. */
static int __mp3_faults_alloc_buffers(void)
{
	struct mp3_fault_cpu *c;
	int cpu;

	lockdep_assert_held(&mp3_lock);

	if (mp3_fault_cpus)
		return 0;
	mp3_fault_cpus = alloc_percpu(struct mp3_fault_cpu);
	mp3_faults_waiting = kvcalloc(MP3_FAULTS_DEFERRED, sizeof(*mp3_faults_waiting),
				      GFP_KERNEL);
	mp3_faults_waiting_spare = kvcalloc(MP3_FAULTS_DEFERRED,
					    sizeof(*mp3_faults_waiting_spare), GFP_KERNEL);
	mp3_departed = kvcalloc(MP3_DEPARTED_MAX, sizeof(*mp3_departed), GFP_KERNEL);
	mp3_tally = kvcalloc(MP3_TALLY_SLOTS, sizeof(*mp3_tally), GFP_KERNEL);
	mp3_tally_used = kvcalloc(MP3_TALLY_MAX, sizeof(*mp3_tally_used), GFP_KERNEL);
	if (!mp3_fault_cpus || !mp3_faults_waiting || !mp3_faults_waiting_spare || !mp3_departed ||
	    !mp3_tally || !mp3_tally_used) {
		mp3_faults_free_buffers();
		return -ENOMEM;
	}
	for_each_possible_cpu(cpu) {
		c = per_cpu_ptr(mp3_fault_cpus, cpu);
		raw_spin_lock_init(&c->lock);
		c->filling = kvcalloc(MP3_FAULTS_PER_CPU, sizeof(*c->filling), GFP_KERNEL);
		c->spare = kvcalloc(MP3_FAULTS_PER_CPU, sizeof(*c->spare), GFP_KERNEL);
		if (!c->filling || !c->spare) {
			mp3_faults_free_buffers();
			return -ENOMEM;
		}
	}
	return 0;
}

static struct perf_event *mp3_fault_counter(struct task_struct *task, u64 config,
					    struct mp3_fault_thread *thread)
{
	struct perf_event_attr attr = {
		.type = PERF_TYPE_SOFTWARE,
		.size = sizeof(attr),
		.config = config,
		.sample_period = 1,
		/* Threads created later get their own, processes forked do not. */
		.inherit = 1,
		.inherit_thread = 1,
	};

	return perf_event_create_kernel_counter(&attr, -1, task, mp3_fault_note, thread);
}

/*
 * An owner for the process whose thread-group leader is @leader, of
 * @target, followed from now on; NULL without memory.
 */
static struct mp3_fault_owner *__mp3_fault_owner_create(struct task_struct *leader, u32 target)
{
	struct mp3_fault_owner *owner = kzalloc(sizeof(*owner), GFP_KERNEL);

	if (!owner)
		return NULL;
	/* 2^64 registrations: never wraps, so never reused. */
	owner->id = ++mp3_fault_owner_last;
	owner->pid = get_pid(task_tgid(leader));
	owner->target = target;
	hash_add(mp3_fault_owners, &owner->node, owner->id);
	hash_add(mp3_followed_owners, &owner->followed, (unsigned long)owner->pid);
	return owner;
}

/* Once no counter holds it: no fault noted with its id is placed from now on. */
static void __mp3_fault_owner_put(struct mp3_fault_owner *owner)
{
	if (--owner->nr_threads)
		return;
	hash_del(&owner->node);
	if (!hlist_unhashed(&owner->followed))
		hash_del(&owner->followed);
	put_pid(owner->pid);
	/* A handler that began before its counter was released may still read id. */
	kfree_rcu(owner, rcu);
}

static const struct mp3_fault_owner *__mp3_fault_owner_find(u64 id)
{
	struct mp3_fault_owner *owner;

	hash_for_each_possible(mp3_fault_owners, owner, node, id)
		if (owner->id == id)
			return owner;
	return NULL;
}

static void __mp3_fault_thread_release(struct mp3_fault_thread *thread)
{
	/* Also tears down the counters the thread's later threads inherited. */
	perf_event_release_kernel(thread->minor);
	/* None if perf refused it (mp3_fault_thread_add()). */
	if (thread->major)
		perf_event_release_kernel(thread->major);
	__mp3_fault_owner_put(thread->owner);
	/* A handler that began before its counters were released may still read it. */
	kfree_rcu(thread, rcu);
}

/*
 * The counters of @task. If the second cannot be made, the first stays:
 * released, the faults it noted would be placed, and counted again in the
 * unresolved record of the faults its process took without counters. The
 * thread's major faults then go uncounted; perf refuses the second counter
 * mostly to a thread that has exited (ESRCH), which faults no more.
 */
static int __mp3_fault_thread_add(struct task_struct *task, struct list_head *threads,
				  struct mp3_fault_owner *owner)
{
	struct mp3_fault_thread *thread = kzalloc(sizeof(*thread), GFP_KERNEL);
	struct perf_event *event;

	if (!thread)
		return -ENOMEM;
	/* Read by the handler as soon as the first counter is made. */
	thread->owner = owner;
	thread->task = task;
	thread->counted_to = ULONG_MAX;
	event = mp3_fault_counter(task, PERF_COUNT_SW_PAGE_FAULTS_MIN, thread);
	if (IS_ERR(event)) {
		kfree(thread);
		return PTR_ERR(event);
	}
	thread->minor = event;
	owner->nr_threads++;
	list_add_tail(&thread->node, threads);
	event = mp3_fault_counter(task, PERF_COUNT_SW_PAGE_FAULTS_MAJ, thread);
	if (IS_ERR(event))
		return PTR_ERR(event);
	thread->major = event;
	return 0;
}

/*
 * Threads given counters in one call, at most: a process with more, or
 * that creates them faster than counters are made, is refused (EAGAIN,
 * mp3.h); for "M" the rest come at the next ticks. A parameter so that the
 * guest tests can reach it with a few threads.
 */
static unsigned int maps_threads_max = 8192;
module_param(maps_threads_max, uint, 0444);
MODULE_PARM_DESC(maps_threads_max,
		 "Threads of one process given fault counters at once, at most (default 8192)");

/* Walks of a process's threads in one call, at most: see __mp3_faults_follow(). */
#define MP3_FOLLOW_WALKS 16

static int mp3_task_ptr_cmp(const void *a, const void *b)
{
	const struct task_struct *x = *(const struct task_struct * const *)a;
	const struct task_struct *y = *(const struct task_struct * const *)b;

	return x < y ? -1 : x > y;
}

/*
 * The tasks of @threads, sorted, in *@sorted (kvfree() it); their number.
 * The counters hold their tasks: the pointers are not reused meanwhile.
 */
static int mp3_fault_threads_sorted(const struct list_head *threads,
				    const struct task_struct ***sorted, unsigned int *nr)
{
	const struct mp3_fault_thread *thread;
	unsigned int n = 0;

	list_for_each_entry(thread, threads, node)
		n++;
	*sorted = kvmalloc_array(max(n, 1U), sizeof(**sorted), GFP_KERNEL);
	if (!*sorted)
		return -ENOMEM;
	n = 0;
	list_for_each_entry(thread, threads, node)
		(*sorted)[n++] = thread->minor->hw.target;
	sort(*sorted, n, sizeof(**sorted), mp3_task_ptr_cmp, NULL);
	*nr = n;
	return 0;
}

/*
 * Up to @max threads of @leader's process without counters on @threads,
 * held, into @found; their number. Exiting threads are passed over: perf
 * refuses them counters once they exit (ESRCH), and they take no fault
 * after exit_mm(). One walk, a binary search per thread.
 */
static int mp3_fault_unfollowed(struct task_struct *leader, const struct list_head *threads,
				struct task_struct **found, unsigned int max)
{
	const struct task_struct **sorted;
	struct task_struct *t;
	unsigned int nr, n = 0;
	int err;

	err = mp3_fault_threads_sorted(threads, &sorted, &nr);
	if (err)
		return err;
	rcu_read_lock();
	for_each_thread(leader, t) {
		if (n == max)
			break;
		if (t->flags & PF_EXITING ||
		    bsearch(&t, sorted, nr, sizeof(*sorted), mp3_task_ptr_cmp))
			continue;
		found[n++] = get_task_struct(t);
	}
	rcu_read_unlock();
	kvfree(sorted);
	return n;
}

/*
 * Counters for the @n threads in @found, each let go. Stops at the first
 * error but ESRCH (the thread began exiting since: passed over), or when
 * the writer is being killed (EINTR); others run between two threads.
 */
static int __mp3_fault_threads_add(struct task_struct **found, unsigned int n,
				   struct list_head *threads, struct mp3_fault_owner *owner)
{
	int err = 0;

	for (unsigned int i = 0; i < n; i++) {
		if (!err && fatal_signal_pending(current))
			err = -EINTR;
		if (!err) {
			err = __mp3_fault_thread_add(found[i], threads, owner);
			if (err == -ESRCH)
				err = 0;
			cond_resched();
		}
		put_task_struct(found[i]);
	}
	return err;
}

/*
 * Walks until a walk finds every thread with counters: one created during
 * a walk by a thread that had them inherited them (and gets ours too: the
 * handler takes the fault that both see once), one created by a thread
 * that had none yet is found by the next. Each walk is O(n log n) in the
 * threads; at most MP3_FOLLOW_WALKS of them, and maps_threads_max threads
 * given counters in all: a process that creates threads faster than they
 * get counters would keep this going, under mp3_lock, for ever.
 */
int __mp3_faults_follow(struct task_struct *leader, u32 target, struct list_head *threads)
{
	struct mp3_fault_owner *owner;
	struct task_struct **found;
	unsigned int walks, tried = 0, room;
	int n, err;

	lockdep_assert_held(&mp3_lock);

	err = __mp3_faults_alloc_buffers();
	if (err)
		return err;
	if (list_empty(threads)) {
		owner = __mp3_fault_owner_create(leader, target);
		if (!owner)
			return -ENOMEM;
	} else {
		owner = list_first_entry(threads, struct mp3_fault_thread, node)->owner;
	}
	/* Held across the walks: freed below if no thread took it. */
	owner->nr_threads++;
	for (walks = 0;; walks++) {
		/* One more than allowed: finding it is enough to refuse. */
		room = min_t(u64, READ_ONCE(leader->signal->nr_threads) + 16U,
			     (u64)maps_threads_max - tried + 1);
		found = kvmalloc_array(room, sizeof(*found), GFP_KERNEL);
		if (!found) {
			err = -ENOMEM;
			goto put_owner;
		}
		n = mp3_fault_unfollowed(leader, threads, found, room);
		/* None left (or no memory for the walk): done. */
		if (n <= 0) {
			err = n;
			goto free_found;
		}
		if (walks == MP3_FOLLOW_WALKS || tried + n > maps_threads_max) {
			/* None of these is given counters: the refusal costs none. */
			err = -EAGAIN;
			goto put_found;
		}
		tried += n;
		/* Lets each of them go. */
		err = __mp3_fault_threads_add(found, n, threads, owner);
		kvfree(found);
		if (err)
			goto put_owner;
	}

put_found:
	while (n--)
		put_task_struct(found[n]);
free_found:
	kvfree(found);
put_owner:
	__mp3_fault_owner_put(owner);
	return err;
}

void __mp3_faults_count_from_now(struct list_head *threads)
{
	struct mp3_fault_thread *thread;

	lockdep_assert_held(&mp3_lock);

	list_for_each_entry(thread, threads, node)
		if (thread->counted_to == ULONG_MAX)
			WRITE_ONCE(thread->counted_to, READ_ONCE(thread->task->min_flt) +
				   READ_ONCE(thread->task->maj_flt));
}

void __mp3_faults_unfollow(struct list_head *threads)
{
	struct mp3_fault_owner *owner;

	lockdep_assert_held(&mp3_lock);

	if (list_empty(threads))
		return;
	/* Its faults noted until now are placed if it departed (__mp3_faults_departed()). */
	owner = list_first_entry(threads, struct mp3_fault_thread, node)->owner;
	if (!hlist_unhashed(&owner->followed))
		hash_del(&owner->followed);
	list_splice_tail_init(threads, &mp3_faults_unfollowed);
}

void __mp3_faults_release(void)
{
	struct mp3_fault_thread *thread, *next;

	lockdep_assert_held(&mp3_lock);
	might_sleep();

	list_for_each_entry_safe(thread, next, &mp3_faults_unfollowed, node) {
		list_del(&thread->node);
		__mp3_fault_thread_release(thread);
	}
}

/* What @cpu's buffer holds: swapped out, so that the handler fills the other. */
static unsigned int __mp3_faults_take(struct mp3_fault_cpu *c)
{
	unsigned int len;

	raw_spin_lock_irq(&c->lock);
	swap(c->filling, c->spare);
	len = c->len;
	c->len = 0;
	mp3_faults_dropped_total += c->dropped;
	c->dropped = 0;
	raw_spin_unlock_irq(&c->lock);
	return len;
}

u64 mp3_faults_dropped(void)
{
	return READ_ONCE(mp3_faults_dropped_total);
}

u64 mp3_faults_summed(void)
{
	return READ_ONCE(mp3_faults_summed_total);
}

/* As /proc/<pid>/maps names it (show_map_vma()). */
static u32 mp3_mapping_kind(const struct vm_area_struct *vma)
{
	const struct mm_struct *mm = vma->vm_mm;

	if (vma->vm_file)
		return file_inode(vma->vm_file)->i_sb->s_magic == TMPFS_MAGIC ?
		       MP3_MAPPING_SHMEM : MP3_MAPPING_FILE;
	if (vma->vm_start <= mm->brk && vma->vm_end >= mm->start_brk)
		return MP3_MAPPING_HEAP;
	if (vma->vm_start <= mm->start_stack && vma->vm_end >= mm->start_stack)
		return MP3_MAPPING_STACK;
	return MP3_MAPPING_ANON;
}

static bool mp3_vma_holds(const struct vm_area_struct *vma, unsigned long addr)
{
	return vma->vm_start <= addr && addr < vma->vm_end;
}

static void __mp3_fault_sum(struct mp3_mapping_faults *into, const struct mp3_mapping_faults *m)
{
	into->minor = min_t(u64, (u64)into->minor + m->minor, U32_MAX);
	into->major = min_t(u64, (u64)into->major + m->major, U32_MAX);
}

/* Within the bound, a record of @m; past it, @m is summed into the unresolved one. */
static void __mp3_fault_tally_write(struct mp3_fault_tally *tally,
				    const struct mp3_mapping_faults *m)
{
	if (tally->records < MP3_TALLY_RECORDS) {
		tally->records++;
		__mp3_buffer_record_faults(tally->tgid, tally->target, m);
		return;
	}
	WRITE_ONCE(mp3_faults_summed_total, mp3_faults_summed_total + m->minor + m->major);
	__mp3_fault_sum(&tally->rest, m);
}

static u32 mp3_tally_hash(pid_t tgid, u32 target)
{
	return hash_32((u32)tgid ^ hash_32(target, 32), ilog2(MP3_TALLY_SLOTS));
}

/* The tally of (@tgid, @target) in this tick, begun if new; NULL if MP3_TALLY_MAX are. */
static struct mp3_fault_tally *__mp3_fault_tally(pid_t tgid, u32 target)
{
	u32 i = mp3_tally_hash(tgid, target);
	struct mp3_fault_tally *t;

	/* Never more than half full: the walk ends at a free slot. */
	for (;; i = (i + 1) & (MP3_TALLY_SLOTS - 1)) {
		t = &mp3_tally[i];
		if (!t->tgid)
			break;
		if (t->tgid == tgid && t->target == target)
			return t;
	}
	if (mp3_nr_tally == MP3_TALLY_MAX)
		return NULL;
	mp3_tally_used[mp3_nr_tally++] = i;
	*t = (struct mp3_fault_tally) {
		.tgid = tgid,
		.target = target,
		.rest.kind = MP3_MAPPING_UNRESOLVED,
	};
	return t;
}

/* At the end of the tick: each process's unresolved record; the tallies emptied. */
static void __mp3_fault_tally_end(void)
{
	struct mp3_fault_tally *t;

	for (unsigned int i = 0; i < mp3_nr_tally; i++) {
		t = &mp3_tally[mp3_tally_used[i]];
		if (t->rest.minor || t->rest.major)
			__mp3_buffer_record_faults(t->tgid, t->target, &t->rest);
		t->tgid = 0;
	}
	mp3_nr_tally = 0;
}

static void __mp3_fault_run_write(struct mp3_fault_run *run)
{
	for (unsigned int i = 0; i < run->nr; i++)
		__mp3_fault_tally_write(run->tally, &run->counts[i]);
	run->nr = 0;
}

/*
 * The counts of the mapping of run->mm that holds @addr, starting them if
 * it is new to the run; NULL if none does.
 */
static struct mp3_mapping_faults *
__mp3_fault_run_mapping(struct mp3_fault_run *run, unsigned long addr)
{
	struct vm_area_struct *vma;
	unsigned int i;

	if (!addr)
		return NULL;
	if (run->nr && mp3_vma_holds(run->vmas[run->last], addr))
		return &run->counts[run->last];
	for (i = 0; i < run->nr; i++)
		if (mp3_vma_holds(run->vmas[i], addr))
			goto found;
	vma = find_vma(run->mm, addr);
	if (!vma || vma->vm_start > addr)
		return NULL;
	if (run->nr == MP3_RUN_MAPPINGS)
		__mp3_fault_run_write(run);
	i = run->nr++;
	run->vmas[i] = vma;
	run->counts[i] = (struct mp3_mapping_faults) {
		.start = vma->vm_start,
		.inode = vma->vm_file ? file_inode(vma->vm_file)->i_ino : 0,
		.kind = mp3_mapping_kind(vma),
	};
found:
	run->last = i;
	return &run->counts[i];
}

/* Keeps @f for the next tick; false if it waited long enough, or no room is left. */
static bool __mp3_fault_wait(const struct mp3_fault *f)
{
	if (f->ticks + 1 >= MP3_DEFER_TICKS || mp3_nr_waiting == MP3_FAULTS_DEFERRED)
		return false;
	mp3_faults_waiting[mp3_nr_waiting] = *f;
	mp3_faults_waiting[mp3_nr_waiting++].ticks++;
	return true;
}

/*
 * Whether @f was taken in run->mm: by the process the run found (an owner
 * that holds its PID, which nobody else can have meanwhile), in the exec
 * generation and memory map it has now.
 */
static bool __mp3_fault_run_owns(struct mp3_fault_run *run, const struct mp3_fault *f)
{
	const struct mp3_fault_owner *owner;

	if (f->exec_id != run->exec_id || f->mm != run->mm)
		return false;
	if (f->owner == run->owner)
		return true;
	if (f->owner == run->refused)
		return false;
	/* Gone: its counters were released, and its process left since. */
	owner = __mp3_fault_owner_find(f->owner);
	if (!owner || owner->pid != run->pid) {
		run->refused = f->owner;
		return false;
	}
	run->owner = f->owner;
	return true;
}

static void __mp3_fault_run_count(struct mp3_fault_run *run, const struct mp3_fault *f)
{
	struct mp3_mapping_faults *m = NULL;

	if (run->busy && __mp3_fault_wait(f))
		return;
	if (!run->tally) {
		mp3_faults_dropped_total++;
		return;
	}
	if (run->mm && __mp3_fault_run_owns(run, f))
		m = __mp3_fault_run_mapping(run, f->addr);
	if (!m)
		m = &run->tally->rest;
	if (f->major)
		m->major++;
	else
		m->minor++;
}

/* Writes out the run's counts; its address space is let go asynchronously. */
static void __mp3_fault_run_end(struct mp3_fault_run *run)
{
	if (!run->followed)
		return;
	if (run->tally)
		__mp3_fault_run_write(run);
	if (run->mm) {
		mmap_read_unlock(run->mm);
		mmput_async(run->mm);
	}
}

void __mp3_faults_departed(pid_t tgid, u32 target, bool place)
{
	lockdep_assert_held(&mp3_lock);

	if (mp3_departed && mp3_nr_departed < MP3_DEPARTED_MAX)
		mp3_departed[mp3_nr_departed++] = (struct mp3_departed) { tgid, target, place };
}

static int mp3_departed_cmp(const void *a, const void *b)
{
	const struct mp3_departed *x = a, *y = b;

	return x->tgid < y->tgid ? -1 : x->tgid > y->tgid;
}

/*
 * Under rcu_read_lock(): whether @tgid left in this tick, and then its
 * target, and the process numbered @tgid now if its faults may be placed.
 */
static bool __mp3_faults_was_departed(pid_t tgid, u32 *target, struct task_struct **leader)
{
	const struct mp3_departed key = { .tgid = tgid }, *d;

	d = bsearch(&key, mp3_departed, mp3_nr_departed, sizeof(*d), mp3_departed_cmp);
	if (!d)
		return false;
	*target = d->target;
	/*
	 * Alive if it left its target only; an exited one has no memory map,
	 * and its number may be another process's now (its faults' owner
	 * tells).
	 */
	*leader = d->place ? pid_task(find_pid_ns(tgid, &init_pid_ns), PIDTYPE_TGID) : NULL;
	return true;
}

/*
 * Under rcu_read_lock(): whether the process numbered @tgid now is
 * followed, and then its target and its leader (NULL once reaped).
 */
static bool __mp3_faults_is_followed(pid_t tgid, u32 *target, struct task_struct **leader)
{
	struct pid *pid = find_pid_ns(tgid, &init_pid_ns);
	const struct mp3_fault_owner *owner;

	if (!pid)
		return false;
	hash_for_each_possible(mp3_followed_owners, owner, followed, (unsigned long)pid) {
		if (owner->pid == pid) {
			*target = owner->target;
			*leader = pid_task(pid, PIDTYPE_TGID);
			return true;
		}
	}
	return false;
}

/* A run of @tgid's faults: followed if its counters are, or it just left. */
static void __mp3_fault_run_begin(struct mp3_fault_run *run, pid_t tgid)
{
	struct task_struct *leader;

	*run = (struct mp3_fault_run) { .tgid = tgid };
	run->followed = __mp3_faults_is_followed(tgid, &run->target, &leader) ||
			__mp3_faults_was_departed(tgid, &run->target, &leader);
	if (!run->followed)
		return;
	run->tally = __mp3_fault_tally(tgid, run->target);
	if (!run->tally || !leader)
		return;
	/* Compared with the owners' held PIDs only. */
	run->pid = task_tgid(leader);
	/*
	 * Read before the memory map, which an exec replaces first: an exec
	 * in between gives the new map with the old generation, which only
	 * faults taken in the new map carry (see struct mp3_fault).
	 */
	run->exec_id = READ_ONCE(leader->self_exec_id);
	run->mm = get_task_mm(leader);
	if (run->mm && !mmap_read_trylock(run->mm)) {
		mmput_async(run->mm);
		run->mm = NULL;
		run->busy = true;
	}
}

/* Counts each of @n faults in its run, a new run at each change of process. */
static void __mp3_faults_place(struct mp3_fault_run *run, const struct mp3_fault *faults,
			       unsigned int n)
{
	for (const struct mp3_fault *f = faults; f < faults + n; f++) {
		if (f->tgid != run->tgid) {
			__mp3_fault_run_end(run);
			__mp3_fault_run_begin(run, f->tgid);
		}
		if (run->followed)
			__mp3_fault_run_count(run, f);
	}
}

/*
 * Each tick, after the visits: the faults that waited for their process's
 * mmap lock, then those noted since the last tick, as records of the
 * processes followed or that left in the visits.
 */
void __mp3_faults_collect(void)
{
	struct mp3_fault_run run = {};
	struct mp3_fault_cpu *c;
	unsigned int waited, len;
	int cpu;

	lockdep_assert_held(&mp3_lock);

	if (mp3_fault_cpus) {
		sort(mp3_departed, mp3_nr_departed, sizeof(*mp3_departed), mp3_departed_cmp, NULL);
		rcu_read_lock();
		swap(mp3_faults_waiting, mp3_faults_waiting_spare);
		waited = mp3_nr_waiting;
		mp3_nr_waiting = 0;
		__mp3_faults_place(&run, mp3_faults_waiting_spare, waited);
		for_each_possible_cpu(cpu) {
			c = per_cpu_ptr(mp3_fault_cpus, cpu);
			/* Taken first: it swaps c->spare in. */
			len = __mp3_faults_take(c);
			__mp3_faults_place(&run, c->spare, len);
		}
		__mp3_fault_run_end(&run);
		rcu_read_unlock();
		__mp3_fault_tally_end();
		mp3_nr_departed = 0;
	}
}

void mp3_faults_destroy(void)
{
	if (!mp3_fault_cpus)
		return;
	/*
	 * A handler interrupted by the release of its counter may still be
	 * writing: it runs with preemption disabled, an RCU read-side
	 * section, so once a grace period is over none runs the module's
	 * code or touches its buffers.
	 */
	synchronize_rcu();
	mp3_faults_free_buffers();
}
