// SPDX-License-Identifier: GPL-2.0
/*
 * Registered processes: a list in registration order, locked by its callers
 * (core.c), and a hash by pid that the tracepoint probes (follow.c) look
 * them up in under RCU. Each is held by a struct pid reference, so a
 * process that exits simply stops resolving to a task and a reused PID
 * number never resolves to the old entry. Counters are only ever read: the
 * task's own fields are what /proc/<pid>/stat, getrusage() and time(1)
 * report.
 *
 * Trees ("T <pid> <target>"): a process forked by a member of a tree joins
 * it at its fork (mp3_tasks_fork(), in the probe, without sleeping: the
 * entry waits on mp3_forked until the sampler takes it over), and a member
 * that exits leaves its final counters for the next sample
 * (mp3_tasks_exit()), whether or not its parent reaps it before.
 *
 * What a sample visits: by default (mp3_event_sampling) only the processes
 * that may have changed since the last one, so that its cost follows
 * activity rather than the number of registered processes. A process's
 * counters change only while one of its threads runs, and a thread runs
 * only after the scheduler has made it runnable: the wakeup probes queue
 * the process of a thread woken (mp3_task_wake()), and the sampler keeps
 * visiting a process for as long as one of its threads is runnable or on
 * a CPU (__mp3_task_keep()). A process none of whose threads ran since the
 * last sample is not visited and gets no record: nothing changed. Without
 * the wakeup tracepoints, or with sampler=visit, every sample visits every
 * registered process, as version 3 of the ring did. See docs/sampler.md.
 */
#include <linux/atomic.h>
#include <linux/capability.h>
#include <linux/cgroup.h>
#include <linux/err.h>
#include <linux/cred.h>
#include <linux/fs.h>
#include <linux/hashtable.h>
#include <linux/list.h>
#include <linux/mm.h>
#include <linux/llist.h>
#include <linux/pid.h>
#include <linux/pid_namespace.h>
#include <linux/proc_fs.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>
#include <linux/sched/signal.h>
#include <linux/sched/task.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/spinlock.h>

#include "compat.h"
#include "internal.h"

struct mp3_counters {
	u64 minor_faults;
	u64 major_faults;
	u64 cpu_ns;
};

/*
 * In mp3_task.pending: the entry is, or is about to be, on mp3_woken or on
 * mp3_kept, or is being visited; or it is removed, and no probe may queue
 * it again.
 */
#define MP3_TASK_PENDING	0

struct mp3_task {
	/* In mp3_tasks under mp3_lock, or in mp3_forked under mp3_hash_lock. */
	struct list_head node;
	struct hlist_node hash;		/* in mp3_task_hash, under mp3_hash_lock */
	struct rcu_head rcu;		/* frees it once no probe can see it */
	/*
	 * Event sampling: on mp3_kept (under mp3_lock) or on mp3_woken
	 * (lock-free), while MP3_TASK_PENDING is set.
	 */
	struct llist_node queued;
	unsigned long pending;		/* MP3_TASK_PENDING; atomic bit operations */
	struct pid *pid;		/* the thread-group leader's pid */
	u32 target;			/* its tree or cgroup, 0: alone; set before hashing */
	bool tree;			/* its children join its target at their fork */
	/*
	 * Where its faults are goes into the records: set before hashing, or
	 * under mp3_lock ("M"); read by the fork probe, which passes it on.
	 */
	bool maps;
	/* Set by the probes, under mp3_hash_lock; the sampler reads them after @gone. */
	struct mp3_counters final;	/* at the exit of its last thread */
	bool exited;			/* final holds its last counters */
	/* That thread, held until its last run is counted; its runtime then. */
	struct task_struct *exiting;
	u64 exit_runtime;
	/* Exited, or left its target: it leaves. Store-release, load-acquire. */
	bool gone;
	/*
	 * It left because its registrant may no longer read it: no fault of
	 * it is placed. Set by a probe before @gone, or by the sampler.
	 */
	bool revoked;
	/* By whose right it is registered; constant. */
	struct mp3_registrant registrant;
	/* The fields below are protected by mp3_lock. */
	struct mp3_counters last;	/* at the previous sample */
	bool named;			/* its comm went into the records */
	u64 exec_id;			/* the leader's self_exec_id when it did */
	bool dead;			/* removed while queued: freed off its list */
	struct list_head fault_threads;	/* with maps: its threads' counters (faults.c) */
	bool counting;			/* every thread that may fault has them */
	/* With maps, while it has no counters: its faults not yet in the records. */
	struct mp3_counters unplaced_from;
};

/* Registered processes in registration order, protected by mp3_lock. */
static LIST_HEAD(mp3_tasks);

/*
 * mp3_hash_lock protects mp3_task_hash's buckets (read under RCU), the
 * list of processes forked in trees since the last sample (mp3_forked) and
 * what the probes set in an entry (final, exited, gone). Taken
 * in the probes, so never held across anything that sleeps; nests inside
 * mp3_lock.
 */
static DEFINE_SPINLOCK(mp3_hash_lock);
/*
 * The wakeup probes look up every thread the scheduler wakes, registered or
 * not: 65536 buckets keep the chains of up to tens of thousands of
 * registered processes at most one long on average.
 */
static DEFINE_HASHTABLE(mp3_task_hash, 16);
static LIST_HEAD(mp3_forked);
/* A process with maps joined since the last adoption: it needs counters. */
static bool mp3_maps_joined;
/*
 * Under mp3_lock: processes with maps may lack counters, to be created
 * before the next sample (mp3_maps_joined adopted, or a creation failed).
 */
static bool mp3_maps_waiting;

/*
 * Event sampling (set at load, constant after): the processes the next
 * sample visits. mp3_kept holds those found runnable by the last sample
 * and those registered since, under mp3_lock; mp3_woken those queued by
 * the probes since, without a lock. An entry is on one of them at most,
 * and only while its MP3_TASK_PENDING bit is set. Singly linked, so that
 * queuing and visiting an entry is a pointer each way: a process that runs
 * costs the sample little more than a visit by the visiting sampler.
 */
bool mp3_event_sampling;
static LLIST_HEAD(mp3_kept);
static LLIST_HEAD(mp3_woken);

/* Processes of trees not followed: not readable by the opener, no memory. */
static atomic64_t mp3_skipped = ATOMIC64_INIT(0);
static atomic64_t mp3_missed = ATOMIC64_INIT(0);

u64 mp3_follow_skipped(void)
{
	return atomic64_read(&mp3_skipped);
}

u64 mp3_follow_missed(void)
{
	return atomic64_read(&mp3_missed);
}

/* Whether @t is runnable or on a CPU: its counters may still change. */
static bool mp3_thread_busy(struct task_struct *t)
{
	/*
	 * on_rq first, acquired: 0 read there means on_cpu is seen as set by
	 * the switch before, or as released by the one after, with the
	 * runtime final (finish_task_switch()).
	 */
	return smp_load_acquire(&t->on_rq) || smp_load_acquire(&t->on_cpu);
}

/*
 * Sums the counters of a whole thread group as /proc/<pid>/stat does: live
 * threads plus what exited threads left in the signal struct, consistent
 * under stats_lock's sequence count.
 * CPU time is sum_exec_runtime, which utime + stime in /proc/<pid>/stat are
 * scaled to add up to. Returns false if the group has exited entirely.
 * *@busy (if not NULL): whether a thread was runnable or on a CPU, so that
 * its counters may still change; a thread found neither had its counters
 * final when they were read (the acquire of on_cpu pairs with the
 * scheduler's release after the thread's last update).
 * Called under rcu_read_lock(), which keeps the thread list, the tasks and
 * their signal struct alive (tasks are freed after a grace period).
 */
static bool mp3_read_group(struct task_struct *leader, struct mp3_counters *sum, bool *busy)
{
	struct signal_struct *sig = leader->signal;
	bool runs = false;
	struct task_struct *t;
	unsigned int seq;

	RCU_LOCKDEP_WARN(!rcu_read_lock_held(), "needs rcu_read_lock()");
	/* Retry if a thread moved its counts to the signal struct meanwhile. */
	do {
		seq = read_seqbegin(&sig->stats_lock);
		sum->minor_faults = sig->min_flt;
		sum->major_faults = sig->maj_flt;
		sum->cpu_ns = sig->sum_sched_runtime;
		for_each_thread(leader, t) {
			if (busy && !runs)
				runs = mp3_thread_busy(t);
			sum->minor_faults += READ_ONCE(t->min_flt);
			sum->major_faults += READ_ONCE(t->maj_flt);
			sum->cpu_ns += READ_ONCE(t->se.sum_exec_runtime);
		}
	} while (read_seqretry(&sig->stats_lock, seq));
	if (busy)
		*busy = runs;
	return !(READ_ONCE(leader->exit_state) && thread_group_empty(leader));
}

/*
 * The PID namespace of the /proc mount @file was opened through: PIDs
 * written to or read from it are numbered there, as in /proc/<pid> of that
 * mount, whatever namespace the writer or reader is in. The file pins the
 * mount's super block, which pins the namespace.
 */
static struct pid_namespace *mp3_file_pid_ns(const struct file *file)
{
	return proc_pid_ns(file_inode(file)->i_sb);
}

/* The entry of @pid; under rcu_read_lock() or mp3_hash_lock. */
static struct mp3_task *mp3_tasks_lookup(struct pid *pid)
{
	struct mp3_task *entry;

	hash_for_each_possible_rcu(mp3_task_hash, entry, hash, (unsigned long)pid,
				   lockdep_is_held(&mp3_hash_lock))
		if (entry->pid == pid)
			return entry;
	return NULL;
}

/* Makes @entry visible to lookups, unless @pid has one; returns whether it did. */
static bool mp3_tasks_hash(struct mp3_task *entry)
{
	bool added;

	spin_lock(&mp3_hash_lock);
	added = !mp3_tasks_lookup(entry->pid);
	if (added)
		hash_add_rcu(mp3_task_hash, &entry->hash, (unsigned long)entry->pid);
	spin_unlock(&mp3_hash_lock);
	return added;
}

static void mp3_task_free_rcu(struct rcu_head *head)
{
	mp3_task_destroy(container_of(head, struct mp3_task, rcu));
}

/*
 * @entry's process may have changed: the next sample visits it. The probes
 * call this after the scheduler has made a thread of it runnable (on_rq
 * set): the full barrier pairs with the sampler's between clearing the bit
 * and reading on_rq (__mp3_tasks_visit_list()), so that either this sees
 * the bit clear and queues the entry, or the sampler sees the thread
 * runnable and keeps it. Lock-free; does not sleep.
 */
static void mp3_task_wake(struct mp3_task *entry)
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
static void __mp3_task_keep(struct mp3_task *entry)
{
	lockdep_assert_held(&mp3_lock);

	if (mp3_event_sampling && !test_and_set_bit(MP3_TASK_PENDING, &entry->pending))
		__llist_add(&entry->queued, &mp3_kept);
}

/* Counters never go backwards; a racing read must not make them. */
static u64 mp3_advance(u64 *last, u64 now)
{
	u64 delta = now > *last ? now - *last : 0;

	*last += delta;
	return delta;
}

/*
 * The faults @entry's process took from entry->unplaced_from to @now, which
 * no counter of ours saw: a record of them, unresolved.
 */
static void __mp3_task_record_unplaced(struct mp3_task *entry, const struct mp3_counters *now)
{
	struct mp3_counters *from = &entry->unplaced_from;
	struct mp3_mapping_faults unplaced = {
		.kind = MP3_MAPPING_UNRESOLVED,
		.minor = min_t(u64, mp3_advance(&from->minor_faults, now->minor_faults), U32_MAX),
		.major = min_t(u64, mp3_advance(&from->major_faults, now->major_faults), U32_MAX),
	};

	lockdep_assert_held(&mp3_lock);

	if (unplaced.minor || unplaced.major)
		__mp3_buffer_record_faults(pid_nr(entry->pid), entry->target, &unplaced);
}

/*
 * Unlinks a hashed entry, says in the records that its process left, and
 * frees the entry once no probe can be looking at it. One queued, or being
 * queued by a probe that set its bit, is freed when the sampler takes it
 * off its list; its bit stays set, so no probe queues it again.
 */
static void __mp3_tasks_remove(struct mp3_task *entry)
{
	lockdep_assert_held(&mp3_lock);

	spin_lock(&mp3_hash_lock);
	/* On mp3_tasks, or still on mp3_forked if a probe joined it since the last adoption. */
	list_del(&entry->node);
	hash_del_rcu(&entry->hash);
	spin_unlock(&mp3_hash_lock);
	if (entry->maps && list_empty(&entry->fault_threads))
		__mp3_task_record_unplaced(entry, &entry->last);
	if (mp3_event_sampling)
		__mp3_buffer_record_left(pid_nr(entry->pid), entry->target);
	__mp3_faults_unfollow(&entry->fault_threads);
	if (test_and_set_bit(MP3_TASK_PENDING, &entry->pending)) {
		entry->dead = true;
		return;
	}
	call_rcu(&entry->rcu, mp3_task_free_rcu);
}

/*
 * Whether a probe hashed a process since the last adoption: one that looked
 * up its tree's last member before the sampler removed it.
 */
static bool mp3_tasks_forked(void)
{
	bool forked;

	spin_lock(&mp3_hash_lock);
	forked = !list_empty(&mp3_forked);
	spin_unlock(&mp3_hash_lock);
	return forked;
}

/* Under both locks: the processes forked in trees since the last call join the list. */
static void __mp3_tasks_adopt_forked_locked(void)
{
	lockdep_assert_held(&mp3_lock);
	lockdep_assert_held(&mp3_hash_lock);

	list_splice_tail_init(&mp3_forked, &mp3_tasks);
	mp3_maps_waiting |= mp3_maps_joined;
	mp3_maps_joined = false;
}

static void __mp3_tasks_adopt_forked(void)
{
	spin_lock(&mp3_hash_lock);
	__mp3_tasks_adopt_forked_locked();
	spin_unlock(&mp3_hash_lock);
}

/* The live thread-group leader numbered @nr in @ns. */
static struct task_struct *mp3_get_leader(struct pid_namespace *ns, pid_t nr,
					  struct pid **pidp)
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

struct mp3_task *mp3_task_create(const struct file *file, pid_t nr, u32 target, bool maps)
{
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
	entry->pid = pid;
	entry->target = target;
	entry->tree = target != 0;
	entry->maps = maps;
	mp3_registrant_init(&entry->registrant, file);
	INIT_LIST_HEAD(&entry->fault_threads);
	put_task_struct(leader);
	return entry;

put_pid:
	put_task_struct(leader);
	put_pid(pid);
	return ERR_PTR(err);
}

void mp3_task_destroy(struct mp3_task *entry)
{
	if (entry->exiting)
		put_task_struct(entry->exiting);
	mp3_registrant_release(&entry->registrant);
	put_pid(entry->pid);
	kfree(entry);
}

/*
 * With maps: counters on its threads that have none, if its registrant may
 * still read it (-EPERM). Judged and attached under the process's
 * exec_update_lock, as perf_event_open() does: no exec makes it unreadable
 * between the two. Sleeps.
 */
static int __mp3_task_follow_faults(struct mp3_task *entry)
{
	struct task_struct *leader;
	bool allowed;
	int err;

	if (!entry->maps)
		return 0;
	leader = get_pid_task(entry->pid, PIDTYPE_TGID);
	if (!leader)
		return -ESRCH;
	err = down_read_killable(&leader->signal->exec_update_lock);
	if (err)
		goto put;
	rcu_read_lock();
	allowed = mp3_registrant_may_read(&entry->registrant, leader);
	rcu_read_unlock();
	err = allowed ? __mp3_faults_follow(leader, &entry->fault_threads) : -EPERM;
	up_read(&leader->signal->exec_update_lock);
	entry->counting = !err;
put:
	put_task_struct(leader);
	return err;
}

int __mp3_tasks_add(struct mp3_task *entry)
{
	struct task_struct *leader;
	bool alive;
	int err;

	lockdep_assert_held(&mp3_lock);

	/* Not hashed yet: what counters of a refused entry noted is not placed. */
	err = __mp3_task_follow_faults(entry);
	if (err)
		goto unfollow;
	/* Deltas start from now, and so do its counters; an exited group is as good as gone. */
	rcu_read_lock();
	leader = pid_task(entry->pid, PIDTYPE_TGID);
	alive = leader && mp3_read_group(leader, &entry->last, NULL);
	rcu_read_unlock();
	__mp3_faults_count_from_now(&entry->fault_threads);
	err = !alive ? -ESRCH : !mp3_tasks_hash(entry) ? -EEXIST : 0;
	if (err)
		goto unfollow;
	list_add_tail(&entry->node, &mp3_tasks);
	/* Its name and first counts go out with the next sample. */
	__mp3_task_keep(entry);
	return 0;

unfollow:
	__mp3_faults_unfollow(&entry->fault_threads);
	__mp3_faults_release();
	return err;
}

void __mp3_tasks_maps_target(u32 target)
{
	struct mp3_task *entry;

	lockdep_assert_held(&mp3_lock);

	__mp3_tasks_adopt_forked();
	list_for_each_entry(entry, &mp3_tasks, node) {
		if (entry->target != target || entry->maps)
			continue;
		/* Its faults since the last sample go into the records too, unresolved. */
		entry->unplaced_from = entry->last;
		WRITE_ONCE(entry->maps, true);
		mp3_maps_waiting = true;
	}
}

/*
 * Counters for @entry's threads that have none, if its process still
 * runs. Before its first counters, the faults it took until its counts are
 * read go into the records as unresolved, and the counters note those
 * after; once it has some, a thread still without them (an earlier try
 * failed) is not counted until it has them: counted twice, never. Sleeps.
 */
static int __mp3_task_follow_joined(struct mp3_task *entry)
{
	bool first = list_empty(&entry->fault_threads);
	struct task_struct *leader;
	struct mp3_counters now;
	bool alive;
	int err;

	err = __mp3_task_follow_faults(entry);
	rcu_read_lock();
	leader = pid_task(entry->pid, PIDTYPE_TGID);
	alive = leader && mp3_read_group(leader, &now, NULL);
	rcu_read_unlock();
	/* Gone: its removal writes what it took since. */
	if (alive && first)
		__mp3_task_record_unplaced(entry, &now);
	__mp3_faults_count_from_now(&entry->fault_threads);
	return err;
}

int __mp3_tasks_follow_joined(void)
{
	struct mp3_task *entry;
	int err, first_err = 0;

	lockdep_assert_held(&mp3_lock);

	__mp3_tasks_adopt_forked();
	if (!mp3_maps_waiting)
		return 0;
	mp3_maps_waiting = false;
	/* Entries leave mp3_tasks only under mp3_lock: the walk may sleep. */
	list_for_each_entry(entry, &mp3_tasks, node) {
		if (!entry->maps || entry->counting)
			continue;
		/* Pairs with the probes' store-release; a stale "not gone" costs a try. */
		if (smp_load_acquire(&entry->gone))
			continue;
		err = __mp3_task_follow_joined(entry);
		/* An exiting process refuses counters (ESRCH): it is leaving. */
		if (err && err != -ESRCH) {
			mp3_maps_waiting = true;
			first_err = first_err ?: err;
		}
	}
	return first_err;
}

/*
 * A new entry for @task as @joining says, counting from @from; hashed, and
 * queued on @list under mp3_hash_lock. NULL if it is registered already,
 * if @parent (the tree member that forked it) is gone, or if it has no
 * memory (counted). Judged under the same lock as the removal of a target
 * marks its members gone (__mp3_tasks_remove_target()): no child joins a
 * target once "X" of it has returned. Does not sleep: with maps, its
 * counters are created before the next sample.
 */
static struct mp3_task *mp3_tasks_join(struct task_struct *task, const struct mp3_joining *joining,
				       const struct mp3_counters *from, struct list_head *list,
				       const struct mp3_task *parent)
{
	struct mp3_task *entry = kzalloc(sizeof(*entry), GFP_ATOMIC | __GFP_NOWARN);

	if (!entry) {
		atomic64_inc(&mp3_missed);
		return NULL;
	}
	entry->pid = get_pid(task_tgid(task));
	INIT_LIST_HEAD(&entry->fault_threads);
	entry->target = joining->target;
	entry->tree = joining->tree;
	entry->maps = joining->maps;
	mp3_registrant_copy(&entry->registrant, joining->registrant);
	entry->last = *from;
	entry->unplaced_from = *from;
	spin_lock(&mp3_hash_lock);
	if ((parent && parent->gone) || mp3_tasks_lookup(entry->pid)) {
		spin_unlock(&mp3_hash_lock);
		mp3_task_destroy(entry);
		return NULL;
	}
	hash_add_rcu(mp3_task_hash, &entry->hash, (unsigned long)entry->pid);
	list_add_tail(&entry->node, list);
	mp3_maps_joined |= entry->maps;
	spin_unlock(&mp3_hash_lock);
	/* Its name and first counts go out with the next sample. */
	mp3_task_wake(entry);
	return entry;
}

/*
 * Which processes descend from a tree's root, remembered by number (in the
 * initial namespace) either way: each process's ancestors are walked up to
 * the first one known, and all on the way take its answer, so that the
 * walk over all processes is linear however deep the tree.
 */
struct mp3_descent {
	const struct file *file;
	struct task_struct *root;	/* held */
	struct mp3_joining joining;
	unsigned long *in;		/* PID_MAX_LIMIT bits each */
	unsigned long *out;
};

/* Under rcu_read_lock(). */
static bool mp3_descends(struct mp3_descent *d, struct task_struct *task)
{
	struct task_struct *t, *known;
	bool in = false;

	for (known = task; known->pid; known = rcu_dereference(known->real_parent)) {
		if (same_thread_group(known, d->root) || test_bit(task_tgid_nr(known), d->in)) {
			in = true;
			break;
		}
		if (test_bit(task_tgid_nr(known), d->out))
			break;
	}
	for (t = task; t != known; t = rcu_dereference(t->real_parent))
		set_bit(task_tgid_nr(t), in ? d->in : d->out);
	return in;
}

static void mp3_descendant_visit(struct task_struct *task, void *arg)
{
	struct mp3_descent *d = arg;
	struct mp3_counters now;

	/* The root is registered: looked up, as its members registered before. */
	if (!mp3_descends(d, task) || mp3_tasks_lookup(task_tgid(task)))
		return;
	if (!mp3_may_read(d->file, task)) {
		atomic64_inc(&mp3_skipped);
		return;
	}
	if (mp3_read_group(task, &now, NULL))
		mp3_tasks_join(task, &d->joining, &now, &mp3_tasks, NULL);
}

/*
 * The descendants of @root's process, as they are now, join its tree
 * (target of @root): those @file's opener may read, from now on; the others
 * are counted as skipped. Children forked meanwhile join through the fork
 * probe, which sees @root already hashed; one found twice joins once.
 */
int __mp3_tasks_add_descendants(const struct file *file, struct mp3_task *root)
{
	struct mp3_descent d = {
		.file = file,
		.joining = {
			.target = root->target, .tree = true, .maps = root->maps,
			.registrant = &root->registrant,
		},
	};
	int err = -ENOMEM;

	lockdep_assert_held(&mp3_lock);

	d.root = get_pid_task(root->pid, PIDTYPE_TGID);
	if (!d.root)
		return 0;
	/* 512 KiB each on 64-bit: not one piece of physically contiguous memory. */
	d.in = kvcalloc(BITS_TO_LONGS(PID_MAX_LIMIT), sizeof(long), GFP_KERNEL);
	d.out = kvcalloc(BITS_TO_LONGS(PID_MAX_LIMIT), sizeof(long), GFP_KERNEL);
	if (d.in && d.out)
		err = mp3_walk_processes(mp3_descendant_visit, &d);
	kvfree(d.out);
	kvfree(d.in);
	put_task_struct(d.root);
	return err;
}

/*
 * @task's name, read without task_lock() as the kernel allows: a rename in
 * flight may show part of the new name, never an unterminated one.
 */
static void mp3_task_comm(char comm[TASK_COMM_LEN], struct task_struct *task)
{
	strscpy_pad(comm, task->comm, TASK_COMM_LEN);
}

/* Whether @registrant's group takes @entry's process: an administrator's from a user. */
static bool mp3_task_taken_by(const struct mp3_task *entry,
			      const struct mp3_registrant *registrant)
{
	return registrant->privileged && !entry->registrant.privileged;
}

struct mp3_members {
	const struct file *file;
	struct mp3_joining joining;
};

static void mp3_member_visit(struct task_struct *task, void *arg)
{
	struct mp3_members *m = arg;
	char comm[TASK_COMM_LEN];
	struct mp3_place place = { .cgrp = task_dfl_cgroup(task), .comm = comm };
	struct mp3_counters now;
	struct mp3_task *entry;

	mp3_task_comm(comm, task);
	if (!mp3_groups_holds(m->joining.target, &place))
		return;
	entry = mp3_tasks_lookup(task_tgid(task));
	if (entry && !mp3_task_taken_by(entry, m->joining.registrant))
		return;
	if (!mp3_may_read(m->file, task)) {
		atomic64_inc(&mp3_skipped);
		return;
	}
	if (!mp3_read_group(task, &now, NULL))
		return;
	if (entry)
		__mp3_tasks_remove(entry);
	mp3_tasks_join(task, &m->joining, &now, &mp3_tasks, NULL);
}

/*
 * The processes that @target's group (a cgroup or a name) holds now join
 * it, those @file's opener may read, from now on; the others are counted
 * as skipped. An administrator's group takes those a user registered.
 */
int __mp3_tasks_add_group_members(const struct file *file, u32 target)
{
	struct mp3_members m = {
		.file = file,
		.joining = { .target = target, .registrant = __mp3_groups_registrant(target) },
	};

	lockdep_assert_held(&mp3_lock);

	__mp3_tasks_adopt_forked();
	return mp3_walk_processes(mp3_member_visit, &m);
}

int __mp3_tasks_remove_pid(const struct file *file, pid_t nr)
{
	struct mp3_task *entry;
	struct task_struct *leader;
	struct pid *pid;
	int err = 0;

	lockdep_assert_held(&mp3_lock);

	__mp3_tasks_adopt_forked();
	leader = mp3_get_leader(mp3_file_pid_ns(file), nr, &pid);
	if (!leader)
		return -ENOENT;
	rcu_read_lock();
	entry = mp3_tasks_lookup(pid);
	rcu_read_unlock();
	if (!entry)
		err = -ENOENT;
	else if (!mp3_registrant_owned_by(&entry->registrant, file))
		err = -EPERM;
	else
		__mp3_tasks_remove(entry);
	put_task_struct(leader);
	put_pid(pid);
	return err;
}

const struct mp3_registrant *__mp3_tasks_registrant(u32 target)
{
	struct mp3_task *entry;

	lockdep_assert_held(&mp3_lock);

	__mp3_tasks_adopt_forked();
	list_for_each_entry(entry, &mp3_tasks, node)
		if (entry->target == target)
			return &entry->registrant;
	return NULL;
}

/*
 * All of @target's processes are marked gone at once under mp3_hash_lock,
 * those forked since the last sample among them: a fork probe that found
 * a member before has its child on mp3_forked already, one after finds the
 * member gone (mp3_tasks_join()). No child joins once this returns.
 */
void __mp3_tasks_remove_target(u32 target)
{
	struct mp3_task *entry, *next;

	lockdep_assert_held(&mp3_lock);

	spin_lock(&mp3_hash_lock);
	__mp3_tasks_adopt_forked_locked();
	list_for_each_entry(entry, &mp3_tasks, node)
		if (entry->target == target)
			/* As mp3_task_leave(): pairs with __mp3_task_read()'s load-acquire. */
			smp_store_release(&entry->gone, true);
	spin_unlock(&mp3_hash_lock);
	list_for_each_entry_safe(entry, next, &mp3_tasks, node)
		if (entry->target == target)
			__mp3_tasks_remove(entry);
}

void __mp3_tasks_show(struct seq_file *m)
{
	struct pid_namespace *ns = mp3_file_pid_ns(m->file);
	struct mp3_task *entry;
	pid_t nr;

	lockdep_assert_held(&mp3_lock);

	__mp3_tasks_adopt_forked();
	list_for_each_entry(entry, &mp3_tasks, node) {
		/* 0: not visible in the namespace of the file's /proc mount. */
		nr = pid_nr_ns(entry->pid, ns);
		if (nr)
			seq_printf(m, "%d\n", nr);
	}
}

/* Its name goes into the records when it is registered and after an exec. */
static void __mp3_task_name(struct mp3_task *entry, struct task_struct *leader, u32 tgid)
{
	char comm[TASK_COMM_LEN];
	u64 exec_id = READ_ONCE(leader->self_exec_id);

	if (entry->named && entry->exec_id == exec_id)
		return;
	get_task_comm(comm, leader);
	__mp3_buffer_record_comm(tgid, entry->target, comm);
	entry->named = true;
	entry->exec_id = exec_id;
}

/* @leader: NULL once its parent has reaped it (its name went out before). */
static void __mp3_task_account(struct mp3_task *entry, struct task_struct *leader,
			       const struct mp3_counters *now,
			       struct mp3_sample_values *values)
{
	u32 tgid = pid_nr(entry->pid);
	struct mp3_sample_values delta = {
		.minor_faults = mp3_advance(&entry->last.minor_faults, now->minor_faults),
		.major_faults = mp3_advance(&entry->last.major_faults, now->major_faults),
		.cpu_ns = mp3_advance(&entry->last.cpu_ns, now->cpu_ns),
		.nr_procs = 1,
	};

	if (leader)
		__mp3_task_name(entry, leader, tgid);
	__mp3_buffer_record_counts(tgid, entry->target, &delta);
	values->minor_faults += delta.minor_faults;
	values->major_faults += delta.major_faults;
	values->cpu_ns += delta.cpu_ns;
	values->nr_procs++;
}

static void mp3_counters_max(struct mp3_counters *a, const struct mp3_counters *b)
{
	a->minor_faults = max(a->minor_faults, b->minor_faults);
	a->major_faults = max(a->major_faults, b->major_faults);
	a->cpu_ns = max(a->cpu_ns, b->cpu_ns);
}

/*
 * Whether the thread that ended @entry's process has run for the last
 * time; if so, what it ran after the exit probe (the rest of do_exit() and
 * the part of its last tick that the scheduler had not yet added to its
 * runtime) goes into @entry->final, and the thread is let go. Its runtime is
 * final once it is TASK_DEAD and off the CPU: do_task_dead() switches out
 * with preemption off, and the store-release of on_cpu follows the last
 * update of the runtime. Under mp3_hash_lock.
 */
static bool __mp3_task_last_run(struct mp3_task *entry)
{
	struct task_struct *task = entry->exiting;

	lockdep_assert_held(&mp3_hash_lock);

	if (!task)
		return true;
	/*
	 * State first: from TASK_DEAD on, the thread is on the CPU until its
	 * last switch, so on_cpu read after it as 0 means that switch is over.
	 */
	if (smp_load_acquire(&task->__state) != TASK_DEAD)
		return false;
	/* Pairs with finish_task_switch()'s store-release: runtime is final. */
	if (smp_load_acquire(&task->on_cpu))
		return false;
	entry->final.cpu_ns += READ_ONCE(task->se.sum_exec_runtime) - entry->exit_runtime;
	entry->exiting = NULL;
	put_task_struct(task);
	return true;
}

/*
 * The counters of @entry's process now, in @now; false if it is gone
 * (exited, or left its target): this is its last sample. An exited process
 * stays until its last thread's last run is counted. *@busy: whether its
 * counters may still change; *@runs: whether its process runs (it left
 * its target rather than exited). Under rcu_read_lock(); *@leaderp is
 * NULL once the process has been reaped.
 */
static bool __mp3_task_read(struct mp3_task *entry, struct task_struct **leaderp,
			    struct mp3_counters *now, bool *busy, bool *runs)
{
	struct task_struct *leader = pid_task(entry->pid, PIDTYPE_TGID);
	bool alive = leader && mp3_read_group(leader, now, busy);
	bool counted = true;

	lockdep_assert_held(&mp3_lock);

	*leaderp = leader;
	*runs = alive;
	if (!leader) {
		*now = entry->last;
		*busy = false;
	}
	/* Pairs with the probes' store-release: final is complete. */
	if (!smp_load_acquire(&entry->gone))
		return alive;
	spin_lock(&mp3_hash_lock);
	if (entry->exited) {
		counted = __mp3_task_last_run(entry);
		mp3_counters_max(now, &entry->final);
		*runs = false;
	}
	spin_unlock(&mp3_hash_lock);
	*busy = !counted;
	return !counted;
}

/*
 * @leader's process left its target but runs on: it joins the group that
 * holds it now, if any may read it, counting from @now, where its last
 * record ended. One that none may read was counted as skipped when it
 * left. Under rcu_read_lock(), once its entry is unhashed.
 */
static void __mp3_tasks_rejoin(struct task_struct *leader, const struct mp3_counters *now)
{
	char comm[TASK_COMM_LEN];
	struct mp3_place place = { .comm = comm };
	struct mp3_joining joining;

	mp3_task_comm(comm, leader);
	place.cgrp = task_dfl_cgroup(leader);
	mp3_groups_target_of(&place, leader, &joining);
	if (joining.target)
		mp3_tasks_join(leader, &joining, now, &mp3_forked, NULL);
}

/*
 * @entry's deltas since the last sample go into @values and its record;
 * if it is gone, it is removed. Returns whether its counters may still
 * change. Under rcu_read_lock().
 */
static bool __mp3_task_visit(struct mp3_task *entry, struct mp3_sample_values *values)
{
	struct task_struct *leader;
	struct mp3_counters now;
	bool alive, busy, runs;

	alive = __mp3_task_read(entry, &leader, &now, &busy, &runs);
	/*
	 * Unreadable to its registrant since (PR_SET_DUMPABLE, setuid()): it
	 * leaves now. One that exited stays until its last run is counted,
	 * its leader reaped (NULL) or not: nothing of it changes any more.
	 */
	if (alive && runs && !mp3_registrant_may_read(&entry->registrant, leader)) {
		atomic64_inc(&mp3_skipped);
		entry->revoked = true;
		alive = false;
	}
	/* Nothing of what it became is named. */
	__mp3_task_account(entry, entry->revoked ? NULL : leader, &now, values);
	if (alive)
		return busy;
	/* Its counters noted faults until it left: they go with this sample. */
	if (!list_empty(&entry->fault_threads))
		__mp3_faults_departed(pid_nr(entry->pid), entry->target, !entry->revoked);
	__mp3_tasks_remove(entry);
	if (runs)
		__mp3_tasks_rejoin(leader, &now);
	return false;
}

/* Processes summed per RCU read-side section, between chances to reschedule. */
#define MP3_COLLECT_BATCH 256

/* Every @batch-th call lets others run: no RCU section nor CPU is held for long. */
static void mp3_collect_pause(unsigned int *batch)
{
	if (++*batch % MP3_COLLECT_BATCH)
		return;
	rcu_read_unlock();
	cond_resched();
	rcu_read_lock();
}

/* Every registered process, as the sampler did before event sampling. */
static void __mp3_tasks_visit_all(struct mp3_sample_values *values)
{
	struct mp3_task *entry, *next;
	unsigned int batch = 0;

	rcu_read_lock();
	list_for_each_entry_safe(entry, next, &mp3_tasks, node) {
		mp3_collect_pause(&batch);
		__mp3_task_visit(entry, values);
	}
	rcu_read_unlock();
}

/*
 * The queued entries from @first on, each taken off its list with its bit
 * still set: visited, and queued again for the next sample while a thread
 * of the process is runnable or on a CPU; freed if removed meanwhile.
 */
static void __mp3_tasks_visit_list(struct llist_node *first, struct mp3_sample_values *values,
				   unsigned int *batch)
{
	struct mp3_task *entry, *next;

	/* next is read before the bit is cleared: a probe may queue the entry again then. */
	llist_for_each_entry_safe(entry, next, first, queued) {
		if (entry->dead) {
			call_rcu(&entry->rcu, mp3_task_free_rcu);
			continue;
		}
		mp3_collect_pause(batch);
		clear_bit(MP3_TASK_PENDING, &entry->pending);
		/* Pairs with mp3_task_wake(): the bit is clear before on_rq is read. */
		smp_mb__after_atomic();
		if (__mp3_task_visit(entry, values))
			__mp3_task_keep(entry);
	}
}

/*
 * The processes that may have changed since the last sample: those that
 * were runnable then or registered since (mp3_kept), and @woken, taken
 * off mp3_woken.
 */
static void __mp3_tasks_visit_queued(struct llist_node *woken, struct mp3_sample_values *values)
{
	unsigned int batch = 0;

	rcu_read_lock();
	__mp3_tasks_visit_list(__llist_del_all(&mp3_kept), values, &batch);
	__mp3_tasks_visit_list(woken, values, &batch);
	rcu_read_unlock();
}

/*
 * Adds this period's deltas of the registered processes that may have
 * changed (all of them without event sampling) to @values and drops the
 * processes that have exited or left their tree. Returns whether the
 * sampler has more to do: processes remain, queued or registered, or
 * groups are followed. The leaders are looked up under RCU rather than pinned with a
 * reference: no atomic operation per process, which is most of the
 * per-process cost. mp3_lock keeps the lists stable across the RCU
 * sections.
 */
bool __mp3_tasks_collect(struct mp3_sample_values *values)
{
	struct llist_node *woken = NULL;

	lockdep_assert_held(&mp3_lock);

	/* Taken first: an entry a probe queues was on mp3_forked before. */
	if (mp3_event_sampling)
		woken = llist_del_all(&mp3_woken);
	__mp3_tasks_adopt_forked();
	if (mp3_event_sampling)
		__mp3_tasks_visit_queued(woken, values);
	else
		__mp3_tasks_visit_all(values);
	/* Followed groups: a process may join at any fork, and must be sampled then. */
	return !list_empty(&mp3_tasks) || !llist_empty(&mp3_kept) || !llist_empty(&mp3_woken) ||
	       __mp3_groups_followed() || mp3_tasks_forked();
}

/*
 * The followed group that @task joins at @place, in *@joining; false if
 * none: none holds it, or none whose registrant may read it (counted as
 * skipped).
 */
static bool mp3_tasks_group_target(struct task_struct *task, const struct mp3_place *place,
				   struct mp3_joining *joining)
{
	if (mp3_groups_target_of(place, task, joining) && !joining->target)
		atomic64_inc(&mp3_skipped);
	return joining->target;
}

/* @task, not yet registered, joins the followed group that holds @place, from now on. */
static void mp3_tasks_join_group(struct task_struct *task, const struct mp3_place *place)
{
	struct mp3_joining joining;
	struct mp3_counters now;

	/* Counters are read only for a process that joins: most never do. */
	if (mp3_tasks_group_target(task, place, &joining) && mp3_read_group(task, &now, NULL))
		mp3_tasks_join(task, &joining, &now, &mp3_forked, NULL);
}

/*
 * Whether a child at @place joins the tree of @parent: not when the tree
 * is a user's and an administrator's group holds the child.
 */
static bool mp3_tree_takes(const struct mp3_task *parent, const struct mp3_place *place)
{
	return parent->tree && (parent->registrant.privileged ||
				!mp3_groups_privileged_holds(place));
}

void mp3_tasks_fork(struct task_struct *parent, struct task_struct *child)
{
	static const struct mp3_counters from_fork;
	/* Not yet running, the child has its parent's name, which nobody can change. */
	struct mp3_place place = { .comm = child->comm };
	struct mp3_joining joining;
	struct mp3_task *entry;

	/* A new thread belongs to its process already. */
	if (!thread_group_leader(child))
		return;
	/* Counted from its first instruction: a new process's counters are 0. */
	rcu_read_lock();
	place.cgrp = task_dfl_cgroup(child);
	entry = mp3_tasks_lookup(task_tgid(parent));
	/* One gone (exited, left its tree) has no more children there: they may join a group. */
	if (entry && !READ_ONCE(entry->gone) && mp3_tree_takes(entry, &place)) {
		joining = (struct mp3_joining) {
			.target = entry->target, .tree = true, .maps = READ_ONCE(entry->maps),
			.registrant = &entry->registrant,
		};
		mp3_tasks_join(child, &joining, &from_fork, &mp3_forked, entry);
	} else if (mp3_tasks_group_target(child, &place, &joining)) {
		mp3_tasks_join(child, &joining, &from_fork, &mp3_forked, NULL);
	}
	rcu_read_unlock();
}

/*
 * @entry's process leaves (@revoked: its registrant may no longer read it):
 * the next sample has its last period.
 */
static void mp3_task_leave(struct mp3_task *entry, bool revoked)
{
	spin_lock(&mp3_hash_lock);
	entry->revoked |= revoked;
	/* Pairs with __mp3_task_read()'s load-acquire, as for an exit. */
	smp_store_release(&entry->gone, true);
	spin_unlock(&mp3_hash_lock);
	mp3_task_wake(entry);
}

/*
 * @entry's process, now at @place, leaves its target if it is a group's
 * member its group no longer holds, or a user's registration of a process
 * that an administrator's group holds; the sampler then has it join the
 * group holding it, if any (__mp3_tasks_rejoin()).
 */
static void mp3_tasks_reconsider(struct mp3_task *entry, const struct mp3_place *place)
{
	if (READ_ONCE(entry->gone))
		return;
	if ((entry->target && !entry->tree && !mp3_groups_holds(entry->target, place)) ||
	    (!entry->registrant.privileged && mp3_groups_privileged_holds(place)))
		mp3_task_leave(entry, false);
}

void mp3_tasks_attach(struct cgroup *cgrp, struct task_struct *task)
{
	char comm[TASK_COMM_LEN];
	struct mp3_place place = { .cgrp = cgrp, .comm = comm };
	struct mp3_task *entry;

	/* A cgroup v1 hierarchy, or one thread of a threaded cgroup. */
	if (cgrp->root != &cgrp_dfl_root || !thread_group_leader(task))
		return;
	mp3_task_comm(comm, task);
	rcu_read_lock();
	entry = mp3_tasks_lookup(task_tgid(task));
	if (!entry)
		mp3_tasks_join_group(task, &place);
	else
		mp3_tasks_reconsider(entry, &place);
	rcu_read_unlock();
}

/*
 * A rename, by exec() or by prctl(PR_SET_NAME) or /proc/<pid>/comm: a
 * member of a name's group leaves if the new name is not the group's. One
 * that gets a followed name joins at its exec (mp3_tasks_exec()), not here:
 * some kernels rename under task_lock(), which judging it would take.
 */
void mp3_tasks_rename(struct task_struct *task, const char *comm)
{
	struct mp3_place place = { .comm = comm };
	struct mp3_task *entry;

	if (!thread_group_leader(task))
		return;
	rcu_read_lock();
	entry = mp3_tasks_lookup(task_tgid(task));
	if (entry) {
		place.cgrp = task_dfl_cgroup(task);
		mp3_tasks_reconsider(entry, &place);
	}
	rcu_read_unlock();
}

void mp3_tasks_exit(struct task_struct *task, bool group_dead)
{
	struct mp3_counters final;
	struct mp3_task *entry;

	if (!group_dead)
		return;
	rcu_read_lock();
	entry = mp3_tasks_lookup(task_tgid(task));
	if (entry) {
		mp3_read_group(task->group_leader, &final, NULL);
		spin_lock(&mp3_hash_lock);
		/* Two threads may both take themselves for the last: keep the larger. */
		if (entry->exited)
			mp3_counters_max(&final, &entry->final);
		entry->final = final;
		entry->exited = true;
		/* The thread exiting now; still running, it holds a reference. */
		if (!entry->exiting) {
			entry->exiting = get_task_struct(task);
			entry->exit_runtime = READ_ONCE(task->se.sum_exec_runtime);
		}
		/* Pairs with __mp3_task_read()'s load-acquire: final is set before. */
		smp_store_release(&entry->gone, true);
		spin_unlock(&mp3_hash_lock);
		mp3_task_wake(entry);
	}
	rcu_read_unlock();
}

bool mp3_tasks_maps(pid_t tgid, u32 *target, struct task_struct **leader)
{
	struct pid *pid = find_pid_ns(tgid, &init_pid_ns);
	struct mp3_task *entry = pid ? mp3_tasks_lookup(pid) : NULL;

	if (!entry || !entry->maps)
		return false;
	*target = entry->target;
	*leader = pid_task(pid, PIDTYPE_TGID);
	return true;
}

/*
 * Called at every wakeup of the system, so without rcu_read_lock(), an
 * out-of-line call pair that would be a third of the cost of the wakeup
 * of an unregistered task: try_to_wake_up() and wake_up_new_task() call
 * the tracepoints with preemption disabled (the runqueue lock, or
 * try_to_wake_up()'s own preempt_disable() for a task woken by itself),
 * whatever the tracepoint does around its probes (6.1 and 6.12 disable
 * preemption, 7.3 holds SRCU and would not). A region with preemption
 * disabled is an RCU read-side critical section for call_rcu(), which
 * frees the entries, since RCU-sched was merged into RCU in 4.20.
 */
void mp3_tasks_wakeup(struct task_struct *task)
{
	struct mp3_task *entry;

	RCU_LOCKDEP_WARN(preemptible(), "mp3: wakeup probe called with preemption enabled");
	entry = mp3_tasks_lookup(task_tgid(task));
	if (entry)
		mp3_task_wake(entry);
}

/*
 * Every registration is judged again at an exec, by its registrant's
 * right: a process that became unreadable (setuid, not dumpable) leaves,
 * counted as skipped, and none of its faults is placed from then on.
 */
void mp3_tasks_exec(struct task_struct *task)
{
	/* The exec made it its thread group's only thread: nobody renames it now. */
	struct mp3_place place = { .comm = task->comm };
	struct mp3_task *entry;

	rcu_read_lock();
	place.cgrp = task_dfl_cgroup(task);
	entry = mp3_tasks_lookup(task_tgid(task));
	if (!entry) {
		mp3_tasks_join_group(task, &place);
	} else if (!mp3_registrant_may_read(&entry->registrant, task)) {
		if (!READ_ONCE(entry->gone))
			atomic64_inc(&mp3_skipped);
		mp3_task_leave(entry, true);
	} else {
		mp3_tasks_reconsider(entry, &place);
	}
	rcu_read_unlock();
}

void __mp3_tasks_destroy_all(void)
{
	struct mp3_sample_values unused = {};
	struct mp3_task *entry, *next;

	lockdep_assert_held(&mp3_lock);

	__mp3_tasks_adopt_forked();
	list_for_each_entry_safe(entry, next, &mp3_tasks, node)
		__mp3_tasks_remove(entry);
	/* No probe runs any more: the queued entries are all removed ones, freed here. */
	__mp3_tasks_visit_queued(llist_del_all(&mp3_woken), &unused);
	/* The entries' memory goes in RCU callbacks, which run module code. */
	rcu_barrier();
}
