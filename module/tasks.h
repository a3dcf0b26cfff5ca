/* SPDX-License-Identifier: GPL-2.0 */
/*
 * mp3: the registered processes, shared by the files that keep them, each
 * calling only those listed below it:
 *
 * follow.c         the probes: forks, exits, execs, renames, moves between
 *                  cgroups, wakeups
 * visit.c          the sample's visit
 * registrations.c  what R, U, M and X do to them, and what status shows
 * members.c        what a target holds now joins it
 * registry.c       the entries, their hash, lists and queues, joining
 *
 * and, inline below, what the module reads of a process.
 */
#ifndef MP3_TASKS_H
#define MP3_TASKS_H

#include <linux/delayacct.h>
#include <linux/hashtable.h>
#include <linux/list.h>
#include <linux/llist.h>
#include <linux/minmax.h>
#include <linux/sched/signal.h>
#include <linux/seqlock.h>
#include <linux/string.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>
#include <linux/spinlock.h>
#include <linux/taskstats.h>
#include <linux/types.h>

#include "internal.h"

struct file;
struct pid_namespace;

struct mp3_counters {
	u64 minor_faults;
	u64 major_faults;
	u64 cpu_ns;
	u64 delay_ns[MP3_DELAYS];	/* delay accounting's waits (enum mp3_delay) */
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
	 * it is placed. Set by __mp3_task_revoke(), before @gone by a probe.
	 */
	bool revoked;
	/* By whose right it is registered; constant. */
	struct mp3_registrant registrant;
	/* The fields below are protected by mp3_lock. */
	struct mp3_counters last;	/* at the previous sample */
	bool named;			/* its comm went into the records */
	u64 exec_id;			/* the leader's self_exec_id when it did */
	bool dead;			/* removed while queued: freed off its list */
	struct list_head fault_threads;	/* with maps: its threads' counters (faultcounters.c) */
	bool counting;			/* every thread that may fault has them */
	/* With maps, while it has no counters: its faults not yet in the records. */
	struct mp3_counters unplaced_from;
	/*
	 * With latency: how long its faults took since the last sample. Set
	 * before hashing, or under mp3_lock ("L"); attached to latency.c's
	 * hash of timed processes while this entry is hashed; freed with the
	 * entry.
	 */
	struct mp3_fault_times *times;
};

/* Registered processes in registration order, protected by mp3_lock. */
extern struct list_head mp3_tasks;
/*
 * mp3_hash_lock protects the hash of registered processes (read under
 * RCU), the list of processes joined by the probes since the last sample
 * and what the probes set in an entry (final, exited, gone). Taken in the
 * probes, so never held across anything that sleeps; nests inside
 * mp3_lock.
 */
extern spinlock_t mp3_hash_lock;
/*
 * Under mp3_lock: processes with maps may lack counters, to be created
 * before the next sample (joined with maps since, or a creation failed).
 */
extern bool mp3_maps_waiting;
/*
 * Event sampling (mp3_event_sampling, internal.h): the processes the next
 * sample visits. mp3_kept holds those found runnable by the last sample
 * and those registered since, under mp3_lock; mp3_woken those queued by
 * the probes since, without a lock. An entry is on one of them at most,
 * and only while its MP3_TASK_PENDING bit is set. Singly linked, so that
 * queuing and visiting an entry is a pointer each way: a process that runs
 * costs the sample little more than a visit by the visiting sampler.
 */
extern struct llist_head mp3_kept;
extern struct llist_head mp3_woken;

/*
 * What the module reads of a process: its counters, summed as
 * /proc/<pid>/stat sums them, and its name; no lock of the module needed.
 * Inline: a sample's visit reads each process through them, and a call
 * each cost a visit a fifth more instructions (make bench, section 8).
 */
/* Whether @t is runnable or on a CPU: its counters may still change. */
/* What @entry's records say besides its process's number: its target, whose registration. */
static inline struct mp3_record_tag mp3_task_tag(const struct mp3_task *entry)
{
	return (struct mp3_record_tag) {
		.target = entry->target,
		.owner = entry->registrant.privileged ? 0 : entry->registrant.payer,
		.admin = entry->registrant.privileged,
	};
}

static inline bool mp3_thread_busy(struct task_struct *t)
{
	/*
	 * on_rq first, acquired: 0 read there means on_cpu is seen as set by
	 * the switch before, or as released by the one after, with the
	 * runtime final (finish_task_switch()).
	 */
	return smp_load_acquire(&t->on_rq) || smp_load_acquire(&t->on_cpu);
}

#ifdef CONFIG_TASK_DELAY_ACCT
/*
 * Adds @t's waits to @sum. The kernel adds to them under their lock; a
 * 64-bit load sees each whole.
 */
static inline void mp3_add_thread_delays(u64 sum[MP3_DELAYS], struct task_struct *t)
{
	const struct task_delay_info *d = t->delays;

	/* NULL: its allocation failed at the fork, and it is not measured. */
	if (!d)
		return;
	sum[MP3_DELAY_SWAPIN] += READ_ONCE(d->swapin_delay);
	sum[MP3_DELAY_THRASHING] += READ_ONCE(d->thrashing_delay);
	sum[MP3_DELAY_RECLAIM] += READ_ONCE(d->freepages_delay);
	sum[MP3_DELAY_COMPACT] += READ_ONCE(d->compact_delay);
	sum[MP3_DELAY_BLKIO] += READ_ONCE(d->blkio_delay);
}

/*
 * What the exited threads of @sig's group waited: taskstats adds an
 * exiting thread's waits to sig->stats, allocated at the exit of the
 * first thread to leave others behind, after the thread set PF_EXITING
 * (taskstats_exit()). A thread is counted from there or from its own,
 * never both: live threads with PF_EXITING are left out.
 */
static inline void mp3_add_exited_delays(u64 sum[MP3_DELAYS], struct signal_struct *sig)
{
	/* Pairs with taskstats_tgid_alloc()'s store-release: it is zeroed. */
	const struct taskstats *s = smp_load_acquire(&sig->stats);

	if (!s)
		return;
	sum[MP3_DELAY_SWAPIN] += READ_ONCE(s->swapin_delay_total);
	sum[MP3_DELAY_THRASHING] += READ_ONCE(s->thrashing_delay_total);
	sum[MP3_DELAY_RECLAIM] += READ_ONCE(s->freepages_delay_total);
	sum[MP3_DELAY_COMPACT] += READ_ONCE(s->compact_delay_total);
	sum[MP3_DELAY_BLKIO] += READ_ONCE(s->blkio_delay_total);
}

/*
 * The last thread of a group in which no thread exited while others
 * remained: there is no sig->stats for its waits to go to, and the exit
 * probe adds them itself.
 */
static inline void mp3_add_last_thread_delays(u64 sum[MP3_DELAYS], struct task_struct *t)
{
	/* Pairs with taskstats_tgid_alloc()'s store-release, as above. */
	if (!smp_load_acquire(&t->signal->stats))
		mp3_add_thread_delays(sum, t);
}
#else
static inline void mp3_add_thread_delays(u64 sum[MP3_DELAYS], struct task_struct *t) { }
static inline void mp3_add_exited_delays(u64 sum[MP3_DELAYS], struct signal_struct *sig) { }
static inline void mp3_add_last_thread_delays(u64 sum[MP3_DELAYS], struct task_struct *t) { }
#endif

/*
 * Sums the counters of a whole thread group as /proc/<pid>/stat does: live
 * threads plus what exited threads left in the signal struct, consistent
 * under stats_lock's sequence count.
 * CPU time is sum_exec_runtime, which utime + stime in /proc/<pid>/stat are
 * scaled to add up to. The waits are summed as taskstats sums them for a
 * thread group (mp3_add_exited_delays()). Returns false if the group has
 * exited entirely.
 * *@busy (if not NULL): whether a thread was runnable or on a CPU, so that
 * its counters may still change; a thread found neither had its counters
 * final when they were read (the acquire of on_cpu pairs with the
 * scheduler's release after the thread's last update).
 * Called under rcu_read_lock(), which keeps the thread list, the tasks and
 * their signal struct alive (tasks are freed after a grace period).
 */
static inline bool mp3_read_group(struct task_struct *leader, struct mp3_counters *sum, bool *busy)
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
		memset(sum->delay_ns, 0, sizeof(sum->delay_ns));
		mp3_add_exited_delays(sum->delay_ns, sig);
		for_each_thread(leader, t) {
			if (busy && !runs)
				runs = mp3_thread_busy(t);
			sum->minor_faults += READ_ONCE(t->min_flt);
			sum->major_faults += READ_ONCE(t->maj_flt);
			sum->cpu_ns += READ_ONCE(t->se.sum_exec_runtime);
			if (!(READ_ONCE(t->flags) & PF_EXITING))
				mp3_add_thread_delays(sum->delay_ns, t);
		}
	} while (read_seqretry(&sig->stats_lock, seq));
	if (busy)
		*busy = runs;
	return !(READ_ONCE(leader->exit_state) && thread_group_empty(leader));
}

/* Counters never go backwards; a racing read must not make them. */
static inline u64 mp3_advance(u64 *last, u64 now)
{
	u64 delta = now > *last ? now - *last : 0;

	*last += delta;
	return delta;
}

/*
 * The same for a time in ns, told in the whole microseconds it passed:
 * rounding the running sum, not each delta, loses nothing over samples.
 */
static inline u64 mp3_advance_us(u64 *last_ns, u64 now_ns)
{
	u64 before_us = div_u64(*last_ns, NSEC_PER_USEC);

	mp3_advance(last_ns, now_ns);
	return div_u64(*last_ns, NSEC_PER_USEC) - before_us;
}

static inline void mp3_counters_max(struct mp3_counters *a, const struct mp3_counters *b)
{
	a->minor_faults = max(a->minor_faults, b->minor_faults);
	a->major_faults = max(a->major_faults, b->major_faults);
	a->cpu_ns = max(a->cpu_ns, b->cpu_ns);
	for (int i = 0; i < MP3_DELAYS; i++)
		a->delay_ns[i] = max(a->delay_ns[i], b->delay_ns[i]);
}

/*
 * @task's name, read without task_lock() as the kernel allows: a rename in
 * flight may show part of the new name, never an unterminated one.
 */
static inline void mp3_task_comm(char comm[TASK_COMM_LEN], struct task_struct *task)
{
	strscpy_pad(comm, task->comm, TASK_COMM_LEN);
}

/* registry.c */
/*
 * The hash of registered processes by struct pid, which the probes look
 * up at every wakeup (65536 buckets: up to tens of thousands registered
 * keep the chains at most one long on average); mp3_hash_lock.
 */
extern DECLARE_HASHTABLE(mp3_task_hash, 16);

/* The entry of @pid; under rcu_read_lock() or mp3_hash_lock. Inline: the wakeup probe's. */
static inline struct mp3_task *mp3_tasks_lookup(struct pid *pid)
{
	struct mp3_task *entry;

	hash_for_each_possible_rcu(mp3_task_hash, entry, hash, (unsigned long)pid,
				   lockdep_is_held(&mp3_hash_lock))
		if (entry->pid == pid)
			return entry;
	return NULL;
}

/* Processes not followed since load: unreadable to their registrant, or no memory. */
void mp3_tasks_count_skipped(void);
/*
 * Under mp3_hash_lock: @entry's registrant may no longer read its process,
 * counted as skipped once, by whichever of the exec probe and the sampler's
 * visit sees it first (both did, on two CPUs, before).
 */
void __mp3_task_revoke(struct mp3_task *entry);
void mp3_tasks_count_missed(void);
struct pid_namespace *mp3_file_pid_ns(const struct file *file);
/* Makes @entry visible to lookups, unless its pid has one; returns whether it did. */
bool mp3_tasks_hash(struct mp3_task *entry);
/* Frees @entry once no probe can be looking at it. */
void mp3_task_free(struct mp3_task *entry);
/* The next sample visits @entry: from the probes, lock-free. */
void mp3_task_wake(struct mp3_task *entry);
/* The next sample visits @entry too: from the sampler and registrations. */
void __mp3_task_keep(struct mp3_task *entry);
void __mp3_task_record_unplaced(struct mp3_task *entry, const struct mp3_counters *now);
/* Unhashes @entry, writes that it left, and frees it (now or once visited). */
void __mp3_tasks_remove(struct mp3_task *entry);
bool mp3_tasks_forked(void);
/* The processes joined by the probes since the last call go on mp3_tasks. */
void __mp3_tasks_adopt_forked_locked(void);
void __mp3_tasks_adopt_forked(void);
/* The live thread-group leader numbered @nr in @ns, held, and its pid, held. */
struct task_struct *mp3_get_leader(struct pid_namespace *ns, pid_t nr, struct pid **pidp);
/*
 * A new entry for @task as @joining says, counting from @from, unless it
 * is registered already, @parent (the tree member that forked it, if any)
 * is gone, or there is no memory (counted as missed). From the probes,
 * without sleeping: it waits for the sampler to adopt it. __mp3_tasks_join_now():
 * on the list at once, under mp3_lock.
 */
void mp3_tasks_join(struct task_struct *task, const struct mp3_joining *joining,
		    const struct mp3_counters *from, const struct mp3_task *parent);
void __mp3_tasks_join_now(struct task_struct *task, const struct mp3_joining *joining,
			  const struct mp3_counters *from);

#endif /* MP3_TASKS_H */
