// SPDX-License-Identifier: GPL-2.0
/*
 * A process forked into a target with "maps" makes its own fault counters
 * on its way to its first instruction: a task work, which the fork probe
 * queues on it. A worker forked to serve a request takes most of its
 * faults in its first tick; counters made by the next tick (maps.c) would
 * leave them unresolved. The child makes them itself: it is alone and in
 * the kernel, so it takes no fault meanwhile and its count read right
 * after is exact; it may sleep; it needs no IPI, and no mp3_lock, which a
 * tick holds for long. The tick adopts what it made
 * (__mp3_newborn_take()); if it made nothing (no memory, refused, killed
 * before it ran) the tick makes its counters as for any process. Why a
 * task work and not perf's inheritance: docs/design/fork-placement.md.
 */
#include <linux/atomic.h>
#include <linux/err.h>
#include <linux/lockdep.h>
#include <linux/rcupdate.h>
#include <linux/refcount.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/task_work.h>
#include <linux/wait_bit.h>

#include "counters.h"
#include "internal.h"

enum mp3_newborn_state {
	MP3_NEWBORN_QUEUED,	/* its work has not run */
	MP3_NEWBORN_MADE,	/* its counters wait for the tick */
	MP3_NEWBORN_ENDED,	/* made none, or taken, or it left: nothing more to do */
};

struct mp3_newborn {
	struct callback_head work;
	refcount_t refs;		/* its maps state's, and its work's until it ran */
	struct mp3_record_tag tag;
	struct mp3_registrant registrant;	/* by whose right it is followed */
	/*
	 * Protects the three below, between its work and mp3_lock's holders;
	 * taken with softirqs off: its process's state is released from an
	 * RCU callback.
	 */
	spinlock_t lock;
	enum mp3_newborn_state state;
	struct mp3_fault_thread *thread;
	struct mp3_counters counts;	/* its faults when its counters were made */
};

/* Works queued and not yet run: their code is the module's, so unload waits for them. */
static atomic_t mp3_newborns_queued = ATOMIC_INIT(0);

static void mp3_newborn_put(struct mp3_newborn *nb)
{
	if (!refcount_dec_and_test(&nb->refs))
		return;
	mp3_registrant_release(&nb->registrant);
	kfree(nb);
}

/*
 * Its counters, unless it may no longer be read, or it is exiting (it
 * takes no fault then), or a kernel thread (a child of kthreadd in a
 * followed cgroup, on its way to a user program: the tick follows it).
 */
static struct mp3_fault_thread *mp3_newborn_follow(struct mp3_newborn *nb)
{
	bool allowed;

	if (current->flags & (PF_EXITING | PF_KTHREAD) ||
	    READ_ONCE(nb->state) != MP3_NEWBORN_QUEUED)
		return ERR_PTR(-ESRCH);
	rcu_read_lock();
	allowed = mp3_registrant_may_read(&nb->registrant, current);
	rcu_read_unlock();
	return allowed ? mp3_faults_follow_self(&nb->tag) : ERR_PTR(-EPERM);
}

static void mp3_newborn_work(struct callback_head *work)
{
	struct mp3_newborn *nb = container_of(work, struct mp3_newborn, work);
	struct mp3_fault_thread *thread = mp3_newborn_follow(nb);

	spin_lock_bh(&nb->lock);
	if (nb->state == MP3_NEWBORN_QUEUED && !IS_ERR(thread)) {
		/* A new process's one thread: its counts are its process's. */
		nb->counts.minor_faults = current->min_flt;
		nb->counts.major_faults = current->maj_flt;
		mp3_faults_publish_self(thread);
		nb->thread = thread;
		nb->state = MP3_NEWBORN_MADE;
		thread = NULL;
	} else {
		nb->state = MP3_NEWBORN_ENDED;
	}
	spin_unlock_bh(&nb->lock);
	/* It left its target while they were being made. */
	if (!IS_ERR_OR_NULL(thread))
		mp3_faults_release_self(thread);
	mp3_newborn_put(nb);
	/*
	 * Last, in a read-side section: unload waits for the count to reach
	 * 0, then for a grace period, before this code goes.
	 */
	rcu_read_lock();
	if (atomic_dec_and_test(&mp3_newborns_queued))
		wake_up_var(&mp3_newborns_queued);
	rcu_read_unlock();
}

struct mp3_newborn *mp3_newborn_queue(struct task_struct *child, const struct mp3_measured *m,
				      gfp_t gfp)
{
	struct mp3_newborn *nb = kzalloc(sizeof(*nb), gfp);

	if (!nb)
		return NULL;
	init_task_work(&nb->work, mp3_newborn_work);
	refcount_set(&nb->refs, 2);
	nb->tag = m->tag;
	mp3_registrant_copy(&nb->registrant, m->registrant);
	spin_lock_init(&nb->lock);
	nb->state = MP3_NEWBORN_QUEUED;
	atomic_inc(&mp3_newborns_queued);
	/* Run when it first returns to user mode, or at its exit if it never does. */
	if (task_work_add(child, &nb->work, TWA_RESUME))
		goto unqueue;
	return nb;

unqueue:
	atomic_dec(&mp3_newborns_queued);
	mp3_registrant_release(&nb->registrant);
	kfree(nb);
	return NULL;
}

int __mp3_newborn_take(struct mp3_newborn *nb, struct list_head *threads,
		       struct mp3_counters *counts, bool leaving)
{
	int err = 0;

	lockdep_assert_held(&mp3_lock);

	spin_lock_bh(&nb->lock);
	if (nb->state == MP3_NEWBORN_QUEUED) {
		/* In the same section as the look: a work that ran since would leave counters. */
		if (leaving)
			nb->state = MP3_NEWBORN_ENDED;
		err = leaving ? -ENOENT : -EINPROGRESS;
	} else if (nb->state == MP3_NEWBORN_MADE) {
		__mp3_faults_adopt_self(nb->thread, threads);
		*counts = nb->counts;
		nb->thread = NULL;
		nb->state = MP3_NEWBORN_ENDED;
	} else {
		err = -ENOENT;
	}
	spin_unlock_bh(&nb->lock);
	return err;
}

void mp3_newborn_release(struct mp3_newborn *nb)
{
	spin_lock_bh(&nb->lock);
	/*
	 * A process that was hashed leaves first, which takes what its work
	 * made (releasing counters sleeps); one that never was never ran.
	 */
	WARN_ON_ONCE(nb->state == MP3_NEWBORN_MADE);
	nb->state = MP3_NEWBORN_ENDED;
	spin_unlock_bh(&nb->lock);
	mp3_newborn_put(nb);
}

void mp3_newborns_drain(void)
{
	wait_var_event(&mp3_newborns_queued, !atomic_read(&mp3_newborns_queued));
	synchronize_rcu();
}
