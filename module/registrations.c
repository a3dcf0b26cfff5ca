// SPDX-License-Identifier: GPL-2.0
/*
 * What the writes to /proc/mp3/status do to the registered processes
 * (core.c calls these under mp3_lock): a process registered ("R", with
 * measures or not) or unregistered ("U"), a target's processes given a
 * measure ("M", "L") or removed ("X"), and what status shows. What the
 * measures need that sleeps (maps' perf counters) is done here too,
 * outside the probes, which may not sleep.
 */
#include <linux/jiffies.h>
#include <linux/list.h>
#include <linux/pid.h>
#include <linux/pid_namespace.h>
#include <linux/rcupdate.h>
#include <linux/rwsem.h>
#include <linux/sched/signal.h>
#include <linux/sched/task.h>
#include <linux/seq_file.h>
#include <linux/seqlock.h>
#include <linux/spinlock.h>
#include <linux/wait.h>

#include "internal.h"
#include "tasks.h"

int __mp3_tasks_add(struct mp3_task *entry)
{
	struct mp3_measured m = mp3_task_measured(entry);
	struct task_struct *leader;
	bool alive, registered;
	int err = 0;

	lockdep_assert_held(&mp3_lock);

	/*
	 * Registered already (pfprofd and pfprofctl repeat registrations):
	 * refused before its measures follow it. Counters made only to be
	 * released would note its faults in their place meanwhile, under an
	 * owner that leaves, and those faults would not be placed. A process
	 * hashed after this check (a tree's fork) is refused below.
	 */
	rcu_read_lock();
	registered = mp3_tasks_lookup(entry->pid);
	rcu_read_unlock();
	if (registered) {
		err = -EEXIST;
		goto leave;
	}
	/* Not hashed yet: what a refused entry's measures noted is not placed. */
	entry->unfollowed = __mp3_measures_follow(entry->state, &m, entry->unfollowed, &err);
	if (err)
		goto leave;
	/* Deltas start from now, and so do its measures; an exited group is as good as gone. */
	rcu_read_lock();
	leader = pid_task(entry->pid, PIDTYPE_TGID);
	alive = leader && mp3_read_group(leader, &entry->last, NULL);
	rcu_read_unlock();
	__mp3_measures_counted(entry->state, entry->measures);
	err = !alive ? -ESRCH : !mp3_tasks_hash(entry) ? -EEXIST : 0;
	if (err)
		goto leave;
	list_add_tail(&entry->node, &mp3_tasks);
	/* Its name and first counts go out with the next sample. */
	__mp3_task_keep(entry);
	return 0;

leave:
	__mp3_measures_leave(entry->state, &m);
	return err;
}

int __mp3_tasks_measure_target(u32 target, enum mp3_measure_id id)
{
	unsigned int measure = MP3_MEASURE(id);
	struct mp3_measured m;
	struct mp3_task *entry;
	int err = 0;

	lockdep_assert_held(&mp3_lock);

	__mp3_walks_tell(target, false, measure);
	__mp3_tasks_adopt_forked();
	list_for_each_entry(entry, &mp3_tasks, node) {
		if (entry->tag.target != target || (entry->measures & measure))
			continue;
		/* Measured from its last sample: what it did since goes into its records too. */
		m = mp3_task_measured(entry);
		m.measures |= measure;
		if (!mp3_measures_attach(entry->state, &m, measure, GFP_KERNEL)) {
			err = -ENOMEM;
			continue;
		}
		spin_lock(&mp3_hash_lock);
		mp3_measures_hashed(entry->state, &m, measure);
		/* Read by the fork probe, which gives a child the same. */
		WRITE_ONCE(entry->measures, m.measures);
		spin_unlock(&mp3_hash_lock);
		__mp3_measures_changed(entry->state, &m);
		entry->unfollowed |= measure;
		mp3_measures_waiting = true;
	}
	return err;
}

/*
 * What @entry's measures still need that sleeps, if its process still
 * runs. An exiting process refuses it (ESRCH): it is leaving, and its
 * removal writes what it took since.
 */
static int __mp3_task_follow(struct mp3_task *entry)
{
	struct mp3_measured m = mp3_task_measured(entry);
	int err = 0;

	entry->unfollowed = __mp3_measures_follow(entry->state, &m, entry->unfollowed, &err);
	if (err == -ESRCH) {
		entry->unfollowed = 0;
		err = 0;
	}
	return err;
}

int __mp3_tasks_follow_measures(void)
{
	struct mp3_task *entry;
	int err, first_err = 0;

	lockdep_assert_held(&mp3_lock);

	__mp3_tasks_adopt_forked();
	if (!mp3_measures_waiting)
		return 0;
	mp3_measures_waiting = false;
	/* Entries leave mp3_tasks only under mp3_lock: the walk may sleep. */
	list_for_each_entry(entry, &mp3_tasks, node) {
		if (!entry->unfollowed)
			continue;
		/* Pairs with the probes' store-release; a stale "not gone" costs a try. */
		if (smp_load_acquire(&entry->gone))
			continue;
		err = __mp3_task_follow(entry);
		if (entry->unfollowed) {
			mp3_measures_waiting = true;
			first_err = first_err ?: err;
		}
	}
	return first_err;
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
		if (entry->tag.target == target)
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

	__mp3_walks_tell(target, true, 0);
	spin_lock(&mp3_hash_lock);
	__mp3_tasks_adopt_forked_locked();
	list_for_each_entry(entry, &mp3_tasks, node)
		if (entry->tag.target == target)
			/* As mp3_task_leave(): pairs with __mp3_task_read()'s load-acquire. */
			smp_store_release(&entry->gone, true);
	spin_unlock(&mp3_hash_lock);
	list_for_each_entry_safe(entry, next, &mp3_tasks, node)
		if (entry->tag.target == target)
			__mp3_tasks_remove(entry);
}

/*
 * Whether the reader of @file is shown that @entry's process is registered:
 * an administrator is, others as the ptrace read rule lets them read it,
 * whatever they registered, so that hidepid hides it here too.
 */
static bool mp3_task_shown(const struct file *file, const struct mp3_task *entry)
{
	struct task_struct *task;
	bool shown;

	rcu_read_lock();
	task = pid_task(entry->pid, PIDTYPE_TGID);
	shown = task && mp3_may_read(file, task);
	rcu_read_unlock();
	return shown;
}

/*
 * Odd while a sample is taken. The processes it removes leave the hash
 * before the sample holding their last records is published: the listing
 * waits for the sample being taken and lists again when one was taken
 * meanwhile, so that a process it no longer lists has its last sample
 * published, as when it listed under mp3_lock.
 * Written by the sampler under mp3_lock, which serializes the writers;
 * raw_write_seqcount_*(): a sample sleeps, and readers sleep, not spin,
 * while it is odd.
 */
static seqcount_t mp3_sample_seq = SEQCNT_ZERO(mp3_sample_seq);

/*
 * Listings waiting for the sample being taken. They sleep until it ends
 * rather than poll: dozens of readers waking every few hundred microseconds
 * would preempt the sampler while it holds mp3_lock, and make root's
 * commands wait for it.
 */
static DECLARE_WAIT_QUEUE_HEAD(mp3_sample_ended);

void __mp3_tasks_sample_begin(void)
{
	lockdep_assert_held(&mp3_lock);
	raw_write_seqcount_begin(&mp3_sample_seq);
}

void __mp3_tasks_sample_end(void)
{
	lockdep_assert_held(&mp3_lock);
	raw_write_seqcount_end(&mp3_sample_seq);
	/* Its full barrier orders the count before the look for waiters. */
	if (wq_has_sleeper(&mp3_sample_ended))
		wake_up_all(&mp3_sample_ended);
}

/*
 * Buckets of mp3_task_hash listed in one RCU read section. The hash has
 * 65536 whatever the processes: walked whole without a preemption point,
 * each read of the listing would keep its CPU from the sampler's kworker
 * on a kernel without preemption, however few processes it lists.
 */
#define MP3_LISTING_BUCKETS 1024

static void mp3_tasks_list_buckets(struct seq_file *m, unsigned int first)
{
	struct pid_namespace *ns = mp3_file_pid_ns(m->file);
	bool privileged = mp3_file_privileged(m->file);
	struct mp3_task *entry;
	pid_t nr;

	rcu_read_lock();
	for (unsigned int bkt = first; bkt < first + MP3_LISTING_BUCKETS; bkt++) {
		hlist_for_each_entry_rcu(entry, &mp3_task_hash[bkt], hash) {
			/* 0: not visible in the namespace of the file's /proc mount. */
			nr = pid_nr_ns(entry->pid, ns);
			if (nr && (privileged || mp3_task_shown(m->file, entry)))
				seq_printf(m, "%d\n", nr);
		}
	}
	rcu_read_unlock();
}

/*
 * A process registered or removed meanwhile is listed or not, as under one
 * RCU section; never twice, its bucket being its pid's.
 */
static void mp3_tasks_list(struct seq_file *m)
{
	static_assert(HASH_SIZE(mp3_task_hash) % MP3_LISTING_BUCKETS == 0);

	for (unsigned int first = 0; first < HASH_SIZE(mp3_task_hash);
	     first += MP3_LISTING_BUCKETS) {
		mp3_tasks_list_buckets(m, first);
		cond_resched();
	}
}

/*
 * Listings of one read, at most: with samples a millisecond apart, or a
 * listing longer than a period, a sample may come during each. The last
 * is shown then, a sample possibly taken during it. Nor does a reader wait
 * longer than MP3_LISTING_WAIT for a sample to end (an overloaded sampler).
 */
#define MP3_LISTING_TRIES 4
#define MP3_LISTING_WAIT (HZ / 10)

/* Whether no sample is being taken; *@seq: the sample count. */
static bool mp3_sample_settled(unsigned int *seq)
{
	*seq = raw_read_seqcount(&mp3_sample_seq);
	return !(*seq & 1);
}

/*
 * The sample count, once no sample is being taken, or MP3_LISTING_WAIT is
 * over. A fatal signal ends the wait too: nobody reads that listing.
 */
static unsigned int mp3_sample_seq_settled(void)
{
	unsigned int seq;

	wait_event_killable_timeout(mp3_sample_ended, mp3_sample_settled(&seq),
				    MP3_LISTING_WAIT);
	return seq;
}

/*
 * From the hash, under RCU rather than mp3_lock: however many readers loop
 * on the file, the sampler and the commands never wait for them. A reader
 * waits for the sample being taken, if any: the sampler's own work.
 */
void mp3_tasks_show(struct seq_file *m)
{
	size_t start = m->count;
	unsigned int seq;

	for (int tries = 1;; tries++) {
		seq = mp3_sample_seq_settled();
		m->count = start;
		mp3_tasks_list(m);
		if (!read_seqcount_retry(&mp3_sample_seq, seq) || tries == MP3_LISTING_TRIES)
			break;
	}
}
