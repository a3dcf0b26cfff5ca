/* SPDX-License-Identifier: GPL-2.0 */
/*
 * mp3: what the module reads of a process: its counters, summed as
 * /proc/<pid>/stat sums them, and its name; no lock of the module needed.
 * Inline: a sample's visit reads each process through them, and a call
 * each cost a visit a fifth more instructions (make bench, section 8).
 * Every part may read a process so: nothing here is any file's.
 */
#ifndef MP3_COUNTERS_H
#define MP3_COUNTERS_H

#include <linux/delayacct.h>
#include <linux/minmax.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>
#include <linux/sched/signal.h>
#include <linux/seqlock.h>
#include <linux/string.h>
#include <linux/taskstats.h>
#include <linux/types.h>

#include "internal.h"

struct mp3_counters {
	u64 minor_faults;
	u64 major_faults;
	u64 cpu_ns;
	/*
	 * The sum of @delay_ns: each wait only grows, so the sum is unchanged
	 * only if none grew, and a visit compares it alone.
	 */
	u64 waits_ns;
	u64 delay_ns[MP3_DELAYS];	/* delay accounting's waits (enum mp3_delay) */
};

static inline u64 mp3_delays_sum(const u64 delay_ns[MP3_DELAYS])
{
	static_assert(MP3_DELAYS == 5);
	return delay_ns[0] + delay_ns[1] + delay_ns[2] + delay_ns[3] + delay_ns[4];
}

/* Whether @t is runnable or on a CPU: its counters may still change. */
static inline bool mp3_thread_busy(struct task_struct *t)
{
	int on_rq;

	/*
	 * on_rq first, acquired: 0 read there means on_cpu is seen as set by
	 * the switch before, or as released by the one after, with the
	 * runtime final (finish_task_switch()).
	 */
	on_rq = smp_load_acquire(&t->on_rq);
	/* on_cpu read whatever on_rq was: no branch in the sum's loop (make bench, section 8). */
	return on_rq | smp_load_acquire(&t->on_cpu);
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
static inline void mp3_add_last_thread_delays(struct mp3_counters *c, struct task_struct *t)
{
	/* Pairs with taskstats_tgid_alloc()'s store-release, as above. */
	if (smp_load_acquire(&t->signal->stats))
		return;
	mp3_add_thread_delays(c->delay_ns, t);
	c->waits_ns = mp3_delays_sum(c->delay_ns);
}
#else
static inline void mp3_add_thread_delays(u64 sum[MP3_DELAYS], struct task_struct *t) { }
static inline void mp3_add_exited_delays(u64 sum[MP3_DELAYS], struct signal_struct *sig) { }
static inline void mp3_add_last_thread_delays(struct mp3_counters *c, struct task_struct *t) { }
#endif

/* The waits of @t, or of @sig's exited threads, summed: the same fields, in registers. */
static __always_inline u64 mp3_thread_waits(struct task_struct *t)
{
	u64 delay_ns[MP3_DELAYS] = {};

	mp3_add_thread_delays(delay_ns, t);
	return mp3_delays_sum(delay_ns);
}

static __always_inline u64 mp3_exited_waits(struct signal_struct *sig)
{
	u64 delay_ns[MP3_DELAYS] = {};

	mp3_add_exited_delays(delay_ns, sig);
	return mp3_delays_sum(delay_ns);
}

/*
 * Sums the counters of a whole thread group as /proc/<pid>/stat does: live
 * threads plus what exited threads left in the signal struct, consistent
 * under stats_lock's sequence count.
 * CPU time is sum_exec_runtime, which utime + stime in /proc/<pid>/stat are
 * scaled to add up to. The waits are summed as taskstats sums them for a
 * thread group (mp3_add_exited_delays()): one by one with @each_wait,
 * otherwise only their sum (waits_ns), delay_ns left as it was. Returns
 * false if the group has exited entirely.
 * *@busy (if not NULL): whether a thread was runnable or on a CPU, so that
 * its counters may still change; a thread found neither had its counters
 * final when they were read (the acquire of on_cpu pairs with the
 * scheduler's release after the thread's last update).
 * Called under rcu_read_lock(), which keeps the thread list, the tasks and
 * their signal struct alive (tasks are freed after a grace period).
 */
static __always_inline bool mp3_sum_group(struct task_struct *leader, struct mp3_counters *sum,
					  bool *busy, bool each_wait)
{
	struct signal_struct *sig = leader->signal;
	u64 minor_faults, major_faults, cpu_ns, waits_ns;
	bool runs = false;
	struct task_struct *t;
	unsigned int seq;

	RCU_LOCKDEP_WARN(!rcu_read_lock_held(), "needs rcu_read_lock()");
	/* Retry if a thread moved its counts to the signal struct meanwhile. */
	do {
		seq = read_seqbegin(&sig->stats_lock);
		/* In registers until the sum holds: @sum is the caller's memory. */
		minor_faults = sig->min_flt;
		major_faults = sig->maj_flt;
		cpu_ns = sig->sum_sched_runtime;
		waits_ns = 0;
		if (each_wait) {
			memset(sum->delay_ns, 0, sizeof(sum->delay_ns));
			mp3_add_exited_delays(sum->delay_ns, sig);
		} else {
			waits_ns = mp3_exited_waits(sig);
		}
		/* By @sig: the group's list head is not read again at each thread. */
		__for_each_thread(sig, t) {
			if (busy)
				runs |= mp3_thread_busy(t);
			minor_faults += READ_ONCE(t->min_flt);
			major_faults += READ_ONCE(t->maj_flt);
			cpu_ns += READ_ONCE(t->se.sum_exec_runtime);
			if (READ_ONCE(t->flags) & PF_EXITING)
				continue;
			if (each_wait)
				mp3_add_thread_delays(sum->delay_ns, t);
			else
				waits_ns += mp3_thread_waits(t);
		}
	} while (read_seqretry(&sig->stats_lock, seq));
	sum->minor_faults = minor_faults;
	sum->major_faults = major_faults;
	sum->cpu_ns = cpu_ns;
	sum->waits_ns = each_wait ? mp3_delays_sum(sum->delay_ns) : waits_ns;
	if (busy)
		*busy = runs;
	return !(READ_ONCE(leader->exit_state) && thread_group_empty(leader));
}

static inline bool mp3_read_group(struct task_struct *leader, struct mp3_counters *sum, bool *busy)
{
	return mp3_sum_group(leader, sum, busy, true);
}

/* The same without the waits one by one: what a visit reads first, inline there. */
static __always_inline bool mp3_read_group_sums(struct task_struct *leader,
						struct mp3_counters *sum, bool *busy)
{
	return mp3_sum_group(leader, sum, busy, false);
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
	a->waits_ns = mp3_delays_sum(a->delay_ns);
}

/*
 * @task's name, read without task_lock() as the kernel allows: a rename in
 * flight may show part of the new name, never an unterminated one.
 */
static inline void mp3_task_comm(char comm[TASK_COMM_LEN], struct task_struct *task)
{
	strscpy_pad(comm, task->comm, TASK_COMM_LEN);
}

#endif /* MP3_COUNTERS_H */
