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
 * What they read of a process is in counters.h.
 */
#ifndef MP3_TASKS_H
#define MP3_TASKS_H

#include <linux/hashtable.h>
#include <linux/list.h>
#include <linux/llist.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>
#include <linux/spinlock.h>
#include <linux/types.h>

#include "counters.h"
#include "internal.h"

struct file;
struct pid_namespace;

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
	u32 tgid;			/* its number in the initial PID namespace */
	/*
	 * What its records say besides @tgid: its tree or cgroup (target, 0:
	 * alone) and by whose registration. Set before hashing, from
	 * @registrant, and constant like @tgid: a visit does not compose them.
	 */
	struct mp3_record_tag tag;
	bool tree;			/* its children join its target at their fork */
	/*
	 * What it measures beyond counts (internal.h), each with its state in
	 * @state: set before hashing, or under mp3_lock ("M", "L") once the
	 * state is there; read by the fork probe, which passes them on.
	 */
	unsigned int measures;
	void *state[MP3_MEASURES];
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
	/* Its measures still to follow (__mp3_tasks_follow_measures()). */
	unsigned int unfollowed;
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
 * Under mp3_lock: processes may have measures still to follow, before the
 * next sample (joined since, or an earlier try failed).
 */
extern bool mp3_measures_waiting;
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

/* What @entry's measures know of its process. */
static inline struct mp3_measured mp3_task_measured(const struct mp3_task *entry)
{
	return (struct mp3_measured) {
		.pid = entry->pid,
		.tag = entry->tag,
		.registrant = &entry->registrant,
		.measures = entry->measures,
		.last = &entry->last,
	};
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
