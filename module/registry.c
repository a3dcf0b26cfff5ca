// SPDX-License-Identifier: GPL-2.0
/*
 * The registered processes: their entries, a list in registration order
 * (under mp3_lock), the hash by pid that the probes look them up in under
 * RCU, the processes joined by the probes since the last sample
 * (mp3_forked), and the queues of those the next sample visits. Each entry
 * holds its process by a struct pid reference, so a process that exits
 * simply stops resolving to a task and a reused PID number never resolves
 * to the old entry.
 *
 * What a sample visits: by default (mp3_event_sampling) only the processes
 * that may have changed since the last one, so that its cost follows
 * activity rather than the number of registered processes. A process's
 * counters change only while one of its threads runs, and a thread runs
 * only after the scheduler has made it runnable: the wakeup probes queue
 * the process of a thread woken (mp3_task_wake()), and the sampler keeps
 * visiting a process for as long as one of its threads is runnable or on
 * a CPU (__mp3_task_keep()). Without the wakeup tracepoints, or with
 * sampler=visit, every sample visits every registered process, as version
 * 3 of the ring did. See docs/design/sampler.md.
 */
#include <linux/atomic.h>
#include <linux/err.h>
#include <linux/fs.h>
#include <linux/hashtable.h>
#include <linux/list.h>
#include <linux/llist.h>
#include <linux/pid.h>
#include <linux/pid_namespace.h>
#include <linux/proc_fs.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>
#include <linux/sched/task.h>
#include <linux/slab.h>
#include <linux/spinlock.h>

#include "internal.h"
#include "tasks.h"

LIST_HEAD(mp3_tasks);
DEFINE_SPINLOCK(mp3_hash_lock);
DEFINE_HASHTABLE(mp3_task_hash, 16);
/* Processes the probes joined since the last sample, under mp3_hash_lock. */
static LIST_HEAD(mp3_forked);
/* A process with measures joined since the last adoption: they need following. */
static bool mp3_measures_joined;
bool mp3_measures_waiting;

bool mp3_event_sampling;
LLIST_HEAD(mp3_kept);
LLIST_HEAD(mp3_woken);

/* Processes not followed since load: not readable by the opener, no memory. */
static atomic64_t mp3_skipped = ATOMIC64_INIT(0);
static atomic64_t mp3_missed = ATOMIC64_INIT(0);

void mp3_tasks_count_skipped(void)
{
	atomic64_inc(&mp3_skipped);
}

void __mp3_task_revoke(struct mp3_task *entry)
{
	lockdep_assert_held(&mp3_hash_lock);
	if (!entry->revoked && !entry->gone)
		mp3_tasks_count_skipped();
	entry->revoked = true;
}

void mp3_tasks_count_missed(void)
{
	atomic64_inc(&mp3_missed);
}

u64 mp3_tasks_skipped(void)
{
	return atomic64_read(&mp3_skipped);
}

u64 mp3_tasks_missed(void)
{
	return atomic64_read(&mp3_missed);
}

/*
 * The PID namespace of the /proc mount @file was opened through: PIDs
 * written to or read from it are numbered there, as in /proc/<pid> of that
 * mount, whatever namespace the writer or reader is in. The file pins the
 * mount's super block, which pins the namespace.
 */
struct pid_namespace *mp3_file_pid_ns(const struct file *file)
{
	return proc_pid_ns(file_inode(file)->i_sb);
}

/* Under mp3_hash_lock: lookups find @entry, and so do its measures' probes. */
static void __mp3_task_hash(struct mp3_task *entry)
{
	struct mp3_measured m = mp3_task_measured(entry);

	hash_add_rcu(mp3_task_hash, &entry->hash, (unsigned long)entry->pid);
	mp3_measures_hashed(entry->state, &m, entry->measures);
}

/* Makes @entry visible to lookups, unless @pid has one; returns whether it did. */
bool mp3_tasks_hash(struct mp3_task *entry)
{
	bool added;

	spin_lock(&mp3_hash_lock);
	added = !mp3_tasks_lookup(entry->pid);
	if (added)
		__mp3_task_hash(entry);
	spin_unlock(&mp3_hash_lock);
	return added;
}

static void mp3_task_free_rcu(struct rcu_head *head)
{
	mp3_task_destroy(container_of(head, struct mp3_task, rcu));
}

void mp3_task_free(struct mp3_task *entry)
{
	call_rcu(&entry->rcu, mp3_task_free_rcu);
}

/*
 * @entry's process may have changed: the next sample visits it. The probes
 * call this after the scheduler has made a thread of it runnable (on_rq
 * set): the full barrier pairs with the sampler's between clearing the bit
 * and reading on_rq (__mp3_tasks_visit_list()), so that either this sees
 * the bit clear and queues the entry, or the sampler sees the thread
 * runnable and keeps it. Lock-free; does not sleep.
 */
void mp3_task_wake(struct mp3_task *entry)
{
	if (!mp3_event_sampling)
		return;
	/* Pairs with smp_mb__after_atomic() in __mp3_tasks_visit_list(). */
	smp_mb();
	if (!test_bit(MP3_TASK_PENDING, &entry->pending) &&
	    !test_and_set_bit(MP3_TASK_PENDING, &entry->pending))
		llist_add(&entry->queued, &mp3_woken);
}

/* The next sample visits @entry too, unless a probe has queued it meanwhile. */
void __mp3_task_keep(struct mp3_task *entry)
{
	lockdep_assert_held(&mp3_lock);

	if (mp3_event_sampling && !test_and_set_bit(MP3_TASK_PENDING, &entry->pending))
		__llist_add(&entry->queued, &mp3_kept);
}

/*
 * Unlinks a hashed entry, says in the records that its process left, and
 * frees the entry once no probe can be looking at it. One queued, or being
 * queued by a probe that set its bit, is freed when the sampler takes it
 * off its list; its bit stays set, so no probe queues it again.
 */
void __mp3_tasks_remove(struct mp3_task *entry)
{
	lockdep_assert_held(&mp3_lock);

	spin_lock(&mp3_hash_lock);
	/* On mp3_tasks, or still on mp3_forked if a probe joined it since the last adoption. */
	list_del(&entry->node);
	hash_del_rcu(&entry->hash);
	mp3_measures_unhashed(entry->state, entry->measures);
	spin_unlock(&mp3_hash_lock);
	if (entry->measures) {
		struct mp3_measured m = mp3_task_measured(entry);

		__mp3_measures_leave(entry->state, &m);
	}
	if (mp3_event_sampling)
		__mp3_buffer_record_left(entry->tgid, &entry->tag);
	if (test_and_set_bit(MP3_TASK_PENDING, &entry->pending)) {
		entry->dead = true;
		return;
	}
	mp3_task_free(entry);
}

/*
 * Whether a probe hashed a process since the last adoption: one that looked
 * up its tree's last member before the sampler removed it.
 */
bool mp3_tasks_forked(void)
{
	bool forked;

	spin_lock(&mp3_hash_lock);
	forked = !list_empty(&mp3_forked);
	spin_unlock(&mp3_hash_lock);
	return forked;
}

/* Under both locks: the processes forked in trees since the last call join the list. */
void __mp3_tasks_adopt_forked_locked(void)
{
	lockdep_assert_held(&mp3_lock);
	lockdep_assert_held(&mp3_hash_lock);

	list_splice_tail_init(&mp3_forked, &mp3_tasks);
	mp3_measures_waiting |= mp3_measures_joined;
	mp3_measures_joined = false;
}

void __mp3_tasks_adopt_forked(void)
{
	spin_lock(&mp3_hash_lock);
	__mp3_tasks_adopt_forked_locked();
	spin_unlock(&mp3_hash_lock);
}

/* @entry's process, held, and what its records say of it; its registrant is set. */
static void mp3_task_identify(struct mp3_task *entry, struct pid *pid, u32 target)
{
	entry->pid = pid;
	entry->tgid = pid_nr(pid);
	entry->tag = mp3_registrant_tag(&entry->registrant, target);
}

/* The live thread-group leader numbered @nr in @ns. */
struct task_struct *mp3_get_leader(struct pid_namespace *ns, pid_t nr, struct pid **pidp)
{
	struct task_struct *leader;
	struct pid *pid;

	rcu_read_lock();
	pid = get_pid(find_pid_ns(nr, ns));
	rcu_read_unlock();
	if (!pid)
		return NULL;
	leader = get_pid_task(pid, PIDTYPE_TGID);
	if (!leader) {
		put_pid(pid);
		return NULL;
	}
	*pidp = pid;
	return leader;
}

struct mp3_task *mp3_task_create(const struct file *file, pid_t nr, u32 target,
				 unsigned int measures)
{
	struct mp3_measured m;
	struct mp3_task *entry;
	struct task_struct *leader;
	struct pid *pid;
	int err;

	leader = mp3_get_leader(mp3_file_pid_ns(file), nr, &pid);
	if (!leader)
		return ERR_PTR(-ESRCH);
	if (!mp3_may_read(file, leader)) {
		err = -EPERM;
		goto put_pid;
	}
	entry = kzalloc(sizeof(*entry), GFP_KERNEL);
	if (!entry) {
		err = -ENOMEM;
		goto put_pid;
	}
	entry->tree = target != 0;
	mp3_registrant_init(&entry->registrant, file);
	mp3_task_identify(entry, pid, target);
	/* Its counts are read once it is followed (__mp3_tasks_add()): no last yet. */
	m = mp3_task_measured(entry);
	m.measures = measures;
	m.last = NULL;
	entry->measures = mp3_measures_attach(entry->state, &m, measures, GFP_KERNEL);
	entry->unfollowed = entry->measures;
	if (entry->measures != measures) {
		err = -ENOMEM;
		goto destroy;
	}
	put_task_struct(leader);
	return entry;

destroy:
	put_task_struct(leader);
	mp3_task_destroy(entry);
	return ERR_PTR(err);
put_pid:
	put_task_struct(leader);
	put_pid(pid);
	return ERR_PTR(err);
}

void mp3_task_destroy(struct mp3_task *entry)
{
	if (entry->exiting)
		put_task_struct(entry->exiting);
	mp3_measures_release(entry->state, entry->measures);
	mp3_registrant_release(&entry->registrant);
	put_pid(entry->pid);
	kfree(entry);
}

/*
 * A new entry for @task as @joining says, counting from @from; hashed, and
 * queued on @list under mp3_hash_lock. None if it is registered already,
 * if @parent (the tree member that forked it) is gone, if the group it
 * joins ended, or if it has no memory (counted). Judged under the same lock
 * as the removal of a target marks its members gone
 * (__mp3_tasks_remove_target()): no process joins a target once "X" of it
 * has returned. Does not sleep: what its measures need that sleeps (maps'
 * counters) is done before the next sample.
 */
static void mp3_tasks_join_onto(struct list_head *list, struct task_struct *task,
				const struct mp3_joining *joining,
				const struct mp3_counters *from, const struct mp3_task *parent)
{
	struct mp3_task *entry = kzalloc(sizeof(*entry), GFP_ATOMIC | __GFP_NOWARN);
	struct mp3_measured m;

	if (!entry) {
		mp3_tasks_count_missed();
		return;
	}
	entry->tree = joining->tree;
	mp3_registrant_copy(&entry->registrant, joining->registrant);
	mp3_task_identify(entry, get_pid(task_tgid(task)), joining->target);
	entry->last = *from;
	/* Without memory for one, it joins without it. */
	m = mp3_task_measured(entry);
	m.measures = joining->measures;
	m.newborn = joining->newborn ? task : NULL;
	entry->measures = mp3_measures_attach(entry->state, &m, joining->measures,
					      GFP_ATOMIC | __GFP_NOWARN);
	entry->unfollowed = entry->measures;
	spin_lock(&mp3_hash_lock);
	if ((parent && parent->gone) || (joining->ended && READ_ONCE(*joining->ended)) ||
	    mp3_tasks_lookup(entry->pid)) {
		spin_unlock(&mp3_hash_lock);
		mp3_task_destroy(entry);
		return;
	}
	__mp3_task_hash(entry);
	list_add_tail(&entry->node, list);
	mp3_measures_joined |= entry->measures != 0;
	spin_unlock(&mp3_hash_lock);
	/* Its name and first counts go out with the next sample. */
	mp3_task_wake(entry);
}

void mp3_tasks_join(struct task_struct *task, const struct mp3_joining *joining,
		    const struct mp3_counters *from, const struct mp3_task *parent)
{
	/* The sampler adopts it: the probes do not take mp3_lock. */
	mp3_tasks_join_onto(&mp3_forked, task, joining, from, parent);
}

void __mp3_tasks_join_now(struct task_struct *task, const struct mp3_joining *joining,
			  const struct mp3_counters *from)
{
	lockdep_assert_held(&mp3_lock);

	mp3_tasks_join_onto(&mp3_tasks, task, joining, from, NULL);
}
