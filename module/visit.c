// SPDX-License-Identifier: GPL-2.0
/*
 * The sample's visit of the registered processes (each tick, under
 * mp3_lock): each visited process's counters since the last sample go
 * into its record and the sample's sums; one gone (exited, or left its
 * target) has its last period written and is removed, and one that left
 * its target but runs on joins the group that holds it now. Trees: a
 * member that exits leaves its final counters (follow.c), whether or not
 * its parent reaps it before, and stays until its last thread's last run
 * is counted.
 */
#include <linux/cgroup.h>
#include <linux/list.h>
#include <linux/llist.h>
#include <linux/pid.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>
#include <linux/sched/task.h>
#include <linux/spinlock.h>

#include "internal.h"
#include "tasks.h"

/* Its name goes into the records when it is registered and after an exec. */
static noinline void __mp3_task_name(struct mp3_task *entry, struct task_struct *leader,
				     u64 exec_id)
{
	char comm[TASK_COMM_LEN];

	get_task_comm(comm, leader);
	__mp3_buffer_record_comm(entry->tgid, &entry->tag, comm);
	entry->named = true;
	entry->exec_id = exec_id;
}

/*
 * The waits that grew since the last sample, in the whole microseconds
 * they passed, into @stall_us and the sample's sums. Out of line: most
 * visits find none grew (a wait is mostly I/O, a swap-in or reclaim).
 */
static noinline void __mp3_task_waits(struct mp3_task *entry, const struct mp3_counters *now,
				      u64 stall_us[MP3_DELAYS], struct mp3_sample_values *values)
{
	for (int i = 0; i < MP3_DELAYS; i++) {
		stall_us[i] = mp3_advance_us(&entry->last.delay_ns[i], now->delay_ns[i]);
		values->stall_us[i] += stall_us[i];
	}
	entry->last.waits_ns = mp3_delays_sum(entry->last.delay_ns);
}

/*
 * @leader: NULL once its parent has reaped it (its name went out before).
 * Inline: its one caller is every visit's. What most visits do not need
 * is out of line, and the period's values are not zeroed first (the
 * kernel's INIT_STACK_ALL_ZERO would, for every visit): a counts record
 * reads its waits only if one grew.
 */
static __always_inline void __mp3_task_account(struct mp3_task *entry,
					       struct task_struct *leader,
					       const struct mp3_counters *now,
					       struct mp3_sample_values *values)
{
	struct mp3_sample_values delta __uninitialized;
	bool waited = now->waits_ns != entry->last.waits_ns;

	delta.minor_faults = mp3_advance(&entry->last.minor_faults, now->minor_faults);
	delta.major_faults = mp3_advance(&entry->last.major_faults, now->major_faults);
	delta.cpu_ns = mp3_advance(&entry->last.cpu_ns, now->cpu_ns);
	if (waited)
		__mp3_task_waits(entry, now, delta.stall_us, values);
	if (leader) {
		u64 exec_id = READ_ONCE(leader->self_exec_id);

		if (!entry->named || entry->exec_id != exec_id)
			__mp3_task_name(entry, leader, exec_id);
	}
	__mp3_buffer_record_counts(entry->tgid, &entry->tag, &delta, waited);
	/* Most processes measure nothing more: they pay one test. */
	if (entry->measures) {
		struct mp3_measured m = mp3_task_measured(entry);

		__mp3_measures_visit(entry->state, &m);
	}
	values->minor_faults += delta.minor_faults;
	values->major_faults += delta.major_faults;
	values->cpu_ns += delta.cpu_ns;
	values->nr_procs++;
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
 * stays until its last thread's last run is counted. *@busy (if not NULL:
 * the event sampler's): whether its counters may still change; *@runs:
 * whether its process runs (it left its target rather than exited). Under
 * rcu_read_lock(); *@leaderp is NULL once the process has been reaped.
 * Inline, as its caller: each sampler has its own copy, and the visiting
 * one does not look for a thread that runs.
 */
static __always_inline bool __mp3_task_read(struct mp3_task *entry, struct task_struct **leaderp,
					    struct mp3_counters *now, bool *busy, bool *runs)
{
	struct task_struct *leader = pid_task(entry->pid, PIDTYPE_TGID);
	bool alive = leader && mp3_read_group_sums(leader, now, busy);
	bool counted = true, gone;

	lockdep_assert_held(&mp3_lock);

	*leaderp = leader;
	*runs = alive;
	if (!leader) {
		*now = entry->last;
		if (busy)
			*busy = false;
	}
	/* Pairs with the probes' store-release: final is complete. */
	gone = smp_load_acquire(&entry->gone);
	/* The waits one by one: if one grew, and for the last sample. */
	if (leader && (gone || now->waits_ns != entry->last.waits_ns))
		mp3_read_group(leader, now, NULL);
	if (!gone)
		return alive;
	spin_lock(&mp3_hash_lock);
	if (entry->exited) {
		counted = __mp3_task_last_run(entry);
		mp3_counters_max(now, &entry->final);
		*runs = false;
	}
	spin_unlock(&mp3_hash_lock);
	if (busy)
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
	struct mp3_place place = { .comm = comm, .uid = task_uid(leader) };
	struct mp3_joining joining;

	mp3_task_comm(comm, leader);
	place.cgrp = task_dfl_cgroup(leader);
	mp3_groups_target_of(&place, leader, &joining);
	if (joining.target)
		mp3_tasks_join(leader, &joining, now, NULL);
}

/*
 * Whether anything of @entry's process that the records show changed since
 * the last sample: its CPU time, faults or waits. Its credentials change
 * and it execs only by a thread of its own, which counts CPU time in doing
 * so; prctl(PR_SET_DUMPABLE) may come from a process sharing its memory,
 * but then nothing of this one is read before it changes (the page trace,
 * which sees its pages leave while it sleeps, is an administrator's). So
 * a process that slept through the period is not judged again: the
 * judgement takes task_lock(), which every visit of a sleeping process
 * paid before.
 */
static bool __mp3_task_changed(const struct mp3_task *entry, const struct mp3_counters *now)
{
	const struct mp3_counters *last = &entry->last;

	return now->cpu_ns != last->cpu_ns || now->minor_faults != last->minor_faults ||
	       now->major_faults != last->major_faults || now->waits_ns != last->waits_ns;
}

/*
 * @entry's last sample was taken: it is removed, and if @leader's process
 * runs on, it joins the group that holds it now. Out of line: a visit
 * seldom ends so.
 */
static noinline void __mp3_task_leave(struct mp3_task *entry, struct task_struct *leader,
				      const struct mp3_counters *now)
{
	/* What its measures noted until it left goes with this sample. */
	if (entry->measures) {
		struct mp3_measured m = mp3_task_measured(entry);

		__mp3_measures_gone(entry->state, &m, !entry->revoked);
	}
	__mp3_tasks_remove(entry);
	if (leader)
		__mp3_tasks_rejoin(leader, now);
}

/*
 * @entry's deltas since the last sample go into @values and its record;
 * if it is gone, it is removed. *@busy (if not NULL): whether its counters
 * may still change. Under rcu_read_lock(). Inline: each sampler's loop has
 * its copy.
 */
static __always_inline void __mp3_task_visit(struct mp3_task *entry,
					     struct mp3_sample_values *values, bool *busy)
{
	struct task_struct *leader;
	/*
	 * Not zeroed first: the waits one by one are read only when one grew
	 * or the process leaves (it may join another group from them).
	 */
	struct mp3_counters now __uninitialized;
	bool alive, runs;

	alive = __mp3_task_read(entry, &leader, &now, busy, &runs);
	/*
	 * Unreadable to its registrant since (PR_SET_DUMPABLE, setuid()): it
	 * leaves now. One that exited stays until its last run is counted,
	 * its leader reaped (NULL) or not: nothing of it changes any more. An
	 * administrator reads every process: the rule's answer, without its
	 * call (a sixth of a visit, counted: make bench, section 8).
	 */
	if (alive && runs && !entry->registrant.privileged && __mp3_task_changed(entry, &now) &&
	    !mp3_registrant_may_read(&entry->registrant, leader)) {
		spin_lock(&mp3_hash_lock);
		__mp3_task_revoke(entry);
		spin_unlock(&mp3_hash_lock);
		alive = false;
		/* It may join another group from here: its waits one by one too. */
		mp3_read_group(leader, &now, NULL);
	}
	/* Nothing of what it became is named. */
	__mp3_task_account(entry, entry->revoked ? NULL : leader, &now, values);
	if (alive)
		return;
	if (busy)
		*busy = false;
	__mp3_task_leave(entry, runs ? leader : NULL, &now);
}

/* Processes summed per RCU read-side section, between chances to reschedule. */
#define MP3_COLLECT_BATCH 256

/*
 * Every MP3_COLLECT_BATCH-th call lets others run: no RCU section nor CPU
 * is held for long. Returns @batch counted on: the count stays in a
 * register of the caller's loop rather than in memory behind a pointer,
 * which the loop's stores may alias.
 */
static __always_inline unsigned int mp3_collect_pause(unsigned int batch)
{
	if (++batch % MP3_COLLECT_BATCH)
		return batch;
	rcu_read_unlock();
	cond_resched();
	rcu_read_lock();
	return batch;
}

/* Every registered process, as the sampler did before event sampling. */
static void __mp3_tasks_visit_all(struct mp3_sample_values *values)
{
	struct mp3_task *entry, *next;
	unsigned int batch = 0;

	rcu_read_lock();
	list_for_each_entry_safe(entry, next, &mp3_tasks, node) {
		batch = mp3_collect_pause(batch);
		__mp3_task_visit(entry, values, NULL);
	}
	rcu_read_unlock();
}

/*
 * The queued entries from @first on, each taken off its list with its bit
 * still set: visited, and queued again for the next sample while a thread
 * of the process is runnable or on a CPU; freed if removed meanwhile.
 * Returns @batch counted on (mp3_collect_pause()).
 */
static unsigned int __mp3_tasks_visit_list(struct llist_node *first,
					   struct mp3_sample_values *values, unsigned int batch)
{
	struct mp3_task *entry, *next;

	/* next is read before the bit is cleared: a probe may queue the entry again then. */
	llist_for_each_entry_safe(entry, next, first, queued) {
		bool busy;

		if (entry->dead) {
			mp3_task_free(entry);
			continue;
		}
		batch = mp3_collect_pause(batch);
		clear_bit(MP3_TASK_PENDING, &entry->pending);
		/* Pairs with mp3_task_wake(): the bit is clear before on_rq is read. */
		smp_mb__after_atomic();
		__mp3_task_visit(entry, values, &busy);
		if (busy)
			__mp3_task_keep(entry);
	}
	return batch;
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
	batch = __mp3_tasks_visit_list(__llist_del_all(&mp3_kept), values, batch);
	__mp3_tasks_visit_list(woken, values, batch);
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
