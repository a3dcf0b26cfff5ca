// SPDX-License-Identifier: GPL-2.0
/*
 * Where the faults of a process registered with "maps" are: its counters.
 * Each of its
 * threads gets two kernel perf counters, minor and major page faults, with
 * a period of 1: their overflow handler runs at every fault the task's
 * counters count (mm_account_fault(), when the fault has registers) and
 * notes the faulting address in a per-CPU buffer (faultbuffers.c). The counters are
 * inherited by the threads created later, not by child processes. Each
 * tick the sampler takes the buffers whole and places each fault in its
 * mapping (faultplace.c). Why counters and not a tracepoint or a
 * kretprobe: docs/design/faults.md.
 */

#include <linux/atomic.h>
#include <linux/bsearch.h>
#include <linux/hashtable.h>
#include <linux/list.h>
#include <linux/moduleparam.h>
#include <linux/perf_event.h>
#include <linux/pid.h>
#include <linux/pid_namespace.h>
#include <linux/rcupdate.h>
#include <linux/sched/mm.h>
#include <linux/sched/signal.h>
#include <linux/sched/task.h>
#include <linux/slab.h>
#include <linux/sort.h>
#include <linux/spinlock.h>

#include "faults.h"

/*
 * The counters of processes no longer followed, released after the tick's
 * placing (releasing sleeps, and a process leaves in the middle of an RCU
 * read-side section); under mp3_lock.
 */
static LIST_HEAD(mp3_faults_unfollowed);

/*
 * Protects the two hashes of owners below against each other's writers:
 * the sampler, under mp3_lock, and a process just forked publishing its
 * own (mp3_faults_publish_self()), which may not wait for mp3_lock. Read
 * under rcu_read_lock(). And a published owner's memory map and exec
 * generation, which a process's exec replaces (mp3_faults_exec()) while
 * the sampler places faults in them. Taken with softirqs off: a newborn
 * publishes its owner under its own lock (newborn.c), which an RCU
 * callback takes, so a softirq must not find this one held under it.
 */
static DEFINE_SPINLOCK(mp3_owners_lock);
/* The owners by id. */
static DEFINE_HASHTABLE(mp3_fault_owners, 8);
/* The owners of the processes followed now, by pid. */
static DEFINE_HASHTABLE(mp3_followed_owners, 8);
/* The owners holding a map an exec replaced; under mp3_owners_lock. */
static LIST_HEAD(mp3_owners_replaced);
/* The ticks' collections begun; written under mp3_lock, read by the exec probe. */
static u64 mp3_fault_collections;
/* The last owner id given: 2^64 of them never wrap, so an id is never reused. */
static atomic64_t mp3_fault_owner_last = ATOMIC64_INIT(0);

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
 * An owner for the process whose thread-group leader is @leader, of @tag,
 * holding its memory map; NULL without memory.
 */
static struct mp3_fault_owner *mp3_fault_owner_alloc(struct task_struct *leader,
						     const struct mp3_record_tag *tag)
{
	struct mp3_fault_owner *owner = kzalloc(sizeof(*owner), GFP_KERNEL);

	if (!owner)
		return NULL;
	owner->id = atomic64_inc_return(&mp3_fault_owner_last);
	owner->pid = get_pid(task_tgid(leader));
	owner->tag = *tag;
	INIT_LIST_HEAD(&owner->replaced);
	/* Read before the memory map, which an exec replaces first (struct mp3_fault). */
	owner->exec_id = READ_ONCE(leader->self_exec_id);
	owner->mm = get_task_mm(leader);
	return owner;
}

/* Its process is followed from now on: its faults are placed. */
static void mp3_fault_owner_publish(struct mp3_fault_owner *owner)
{
	spin_lock_bh(&mp3_owners_lock);
	hash_add_rcu(mp3_fault_owners, &owner->node, owner->id);
	hash_add_rcu(mp3_followed_owners, &owner->followed, (unsigned long)owner->pid);
	spin_unlock_bh(&mp3_owners_lock);
}

/* Off every list: its maps are its own to let go. */
static void mp3_fault_owner_free(struct mp3_fault_owner *owner)
{
	if (owner->mm)
		mmput_async(owner->mm);
	if (owner->replaced_mm)
		mmput_async(owner->replaced_mm);
	put_pid(owner->pid);
	/* A handler that began before its counter was released may still read id. */
	kfree_rcu(owner, rcu);
}

/* Once no counter holds it: no fault noted with its id is placed from now on. */
static void __mp3_fault_owner_put(struct mp3_fault_owner *owner)
{
	if (--owner->nr_threads)
		return;
	spin_lock_bh(&mp3_owners_lock);
	hash_del_rcu(&owner->node);
	if (!hlist_unhashed(&owner->followed))
		hash_del_rcu(&owner->followed);
	list_del_init(&owner->replaced);
	spin_unlock_bh(&mp3_owners_lock);
	mp3_fault_owner_free(owner);
}

const struct mp3_fault_owner *__mp3_fault_owner_find(u64 id)
{
	struct mp3_fault_owner *owner;

	hash_for_each_possible_rcu(mp3_fault_owners, owner, node, id)
		if (owner->id == id)
			return owner;
	return NULL;
}

static void mp3_fault_counters_release(struct mp3_fault_thread *thread)
{
	/* Also tears down the counters the thread's later threads inherited. */
	perf_event_release_kernel(thread->minor);
	/* None if perf refused it (__mp3_fault_thread_add()). */
	if (thread->major)
		perf_event_release_kernel(thread->major);
}

static void __mp3_fault_thread_release(struct mp3_fault_thread *thread)
{
	mp3_fault_counters_release(thread);
	__mp3_fault_owner_put(thread->owner);
	/* A handler that began before its counters were released may still read it. */
	kfree_rcu(thread, rcu);
}

/*
 * @task's pair of counters, for @owner: the minor one at least, or an
 * error; *@major_err says why the major one could not be made (0: it was).
 */
static struct mp3_fault_thread *mp3_fault_thread_make(struct task_struct *task,
						      struct mp3_fault_owner *owner,
						      int *major_err)
{
	struct mp3_fault_thread *thread = kzalloc(sizeof(*thread), GFP_KERNEL);
	struct perf_event *event;

	if (!thread)
		return ERR_PTR(-ENOMEM);
	/* Read by the handler as soon as the first counter is made. */
	thread->owner = owner;
	thread->task = task;
	thread->counted_to = ULONG_MAX;
	event = mp3_fault_counter(task, PERF_COUNT_SW_PAGE_FAULTS_MIN, thread);
	if (IS_ERR(event)) {
		kfree(thread);
		return ERR_CAST(event);
	}
	thread->minor = event;
	event = mp3_fault_counter(task, PERF_COUNT_SW_PAGE_FAULTS_MAJ, thread);
	*major_err = PTR_ERR_OR_ZERO(event);
	if (!*major_err)
		thread->major = event;
	return thread;
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
	struct mp3_fault_thread *thread;
	int major_err;

	thread = mp3_fault_thread_make(task, owner, &major_err);
	if (IS_ERR(thread))
		return PTR_ERR(thread);
	owner->nr_threads++;
	list_add_tail(&thread->node, threads);
	return major_err;
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
int __mp3_faults_follow(struct task_struct *leader, const struct mp3_record_tag *tag,
			struct list_head *threads)
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
		owner = mp3_fault_owner_alloc(leader, tag);
		if (!owner)
			return -ENOMEM;
		mp3_fault_owner_publish(owner);
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

/*
 * Counters for current, a process just forked that has not run yet (a
 * task work on its way to its first instruction): alone, it takes no
 * fault meanwhile, and it may sleep. Without mp3_lock, which a tick holds
 * for long: every fork would wait for it. Its faults until now are
 * counted already, and not noted. Published by mp3_faults_publish_self(),
 * or released by mp3_faults_release_self().
 */
struct mp3_fault_thread *mp3_faults_follow_self(const struct mp3_record_tag *tag)
{
	struct mp3_fault_thread *thread;
	struct mp3_fault_owner *owner;
	int major_err;

	/* The handler's: made when the first process was followed. */
	if (!smp_load_acquire(&mp3_fault_cpus))
		return ERR_PTR(-EAGAIN);
	owner = mp3_fault_owner_alloc(current, tag);
	if (!owner)
		return ERR_PTR(-ENOMEM);
	thread = mp3_fault_thread_make(current, owner, &major_err);
	if (IS_ERR(thread)) {
		mp3_fault_owner_free(owner);
		return thread;
	}
	owner->nr_threads = 1;
	if (major_err) {
		mp3_faults_release_self(thread);
		return ERR_PTR(major_err);
	}
	thread->counted_to = current->min_flt + current->maj_flt;
	return thread;
}

void mp3_faults_publish_self(struct mp3_fault_thread *thread)
{
	mp3_fault_owner_publish(thread->owner);
}

void mp3_faults_release_self(struct mp3_fault_thread *thread)
{
	mp3_fault_counters_release(thread);
	mp3_fault_owner_free(thread->owner);
	kfree_rcu(thread, rcu);
}

void __mp3_faults_adopt_self(struct mp3_fault_thread *thread, struct list_head *threads)
{
	lockdep_assert_held(&mp3_lock);

	list_add_tail(&thread->node, threads);
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
	spin_lock_bh(&mp3_owners_lock);
	if (!hlist_unhashed(&owner->followed))
		hash_del_rcu(&owner->followed);
	spin_unlock_bh(&mp3_owners_lock);
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

/* Under rcu_read_lock(): the owner of the process followed with @pid, or NULL. */
static struct mp3_fault_owner *mp3_followed_owner(const struct pid *pid)
{
	struct mp3_fault_owner *owner;

	hash_for_each_possible_rcu(mp3_followed_owners, owner, followed, (unsigned long)pid)
		if (owner->pid == pid)
			return owner;
	return NULL;
}

const struct mp3_fault_owner *__mp3_faults_followed(pid_t tgid, struct task_struct **leader)
{
	struct pid *pid = find_pid_ns(tgid, &init_pid_ns);
	const struct mp3_fault_owner *owner = pid ? mp3_followed_owner(pid) : NULL;

	if (owner)
		*leader = pid_task(pid, PIDTYPE_TGID);
	return owner;
}

const struct mp3_fault_owner *__mp3_faults_followed_by_id(u64 id)
{
	const struct mp3_fault_owner *owner = __mp3_fault_owner_find(id);

	/* A process published by its own task work meanwhile is added, never removed, here. */
	return owner && !hlist_unhashed_lockless(&owner->followed) ? owner : NULL;
}

/*
 * Now, not at the next visit: a helper that a server forks, that execs
 * and exits within a tick (a reload's "apache2 -t") would have all its
 * faults checked against the map it had before, and unresolved.
 */
void mp3_faults_exec(struct task_struct *task)
{
	struct mp3_fault_owner *owner = mp3_followed_owner(task_tgid(task));
	struct mm_struct *mm;
	u64 exec_id;

	if (!owner)
		return;
	exec_id = READ_ONCE(task->self_exec_id);
	mm = get_task_mm(task);
	if (!mm)
		return;
	spin_lock_bh(&mp3_owners_lock);
	/* Let go meanwhile (its counters released): the map is not for it to hold. */
	if (!hlist_unhashed(&owner->node)) {
		/* Two execs in one tick: the first's map goes, and its faults unresolved. */
		swap(owner->replaced_mm, owner->mm);
		swap(owner->mm, mm);
		owner->replaced_exec_id = owner->exec_id;
		owner->exec_id = exec_id;
		owner->replaced_at = READ_ONCE(mp3_fault_collections);
		if (list_empty(&owner->replaced))
			list_add_tail(&owner->replaced, &mp3_owners_replaced);
	}
	spin_unlock_bh(&mp3_owners_lock);
	/* The last reference's teardown sleeps: a worker's. */
	if (mm)
		mmput_async(mm);
}

struct mm_struct *mp3_fault_owner_replaced_mm(const struct mp3_fault_owner *owner,
					      const struct mm_struct *mm, u64 *exec_id)
{
	struct mm_struct *replaced = NULL;

	spin_lock_bh(&mp3_owners_lock);
	if (owner->replaced_mm && owner->replaced_mm == mm) {
		replaced = owner->replaced_mm;
		mmget(replaced);
		*exec_id = owner->replaced_exec_id;
	}
	spin_unlock_bh(&mp3_owners_lock);
	return replaced;
}

void __mp3_fault_owners_collection_begin(void)
{
	lockdep_assert_held(&mp3_lock);

	/*
	 * Before the buffers are taken: an exec whose process noted a fault
	 * after they were (in the next tick's) reads the new count, and its
	 * replaced map stays for the next collection.
	 */
	WRITE_ONCE(mp3_fault_collections, mp3_fault_collections + 1);
}

void __mp3_fault_owners_collection_end(void)
{
	struct mp3_fault_owner *owner, *next;

	lockdep_assert_held(&mp3_lock);

	spin_lock_bh(&mp3_owners_lock);
	list_for_each_entry_safe(owner, next, &mp3_owners_replaced, replaced) {
		if (owner->replaced_at == mp3_fault_collections)
			continue;
		/* Often the last reference: its teardown is a worker's. */
		if (owner->replaced_mm)
			mmput_async(owner->replaced_mm);
		owner->replaced_mm = NULL;
		list_del_init(&owner->replaced);
	}
	spin_unlock_bh(&mp3_owners_lock);
}

struct mm_struct *mp3_fault_owner_mm(const struct mp3_fault_owner *owner, u64 *exec_id)
{
	struct mm_struct *mm;

	spin_lock_bh(&mp3_owners_lock);
	mm = owner->mm;
	if (mm) {
		mmget(mm);
		*exec_id = owner->exec_id;
	}
	spin_unlock_bh(&mp3_owners_lock);
	return mm;
}
