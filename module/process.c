// SPDX-License-Identifier: GPL-2.0
/*
 * What the module reads of a process: its counters, summed as
 * /proc/<pid>/stat sums them, and its name. Counters are only ever read:
 * the task's own fields are what /proc/<pid>/stat, getrusage() and time(1)
 * report. No lock of the module is needed here.
 */
#include <linux/minmax.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>
#include <linux/sched/signal.h>
#include <linux/seqlock.h>
#include <linux/string.h>

#include "tasks.h"

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
bool mp3_read_group(struct task_struct *leader, struct mp3_counters *sum, bool *busy)
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

/* Counters never go backwards; a racing read must not make them. */
u64 mp3_advance(u64 *last, u64 now)
{
	u64 delta = now > *last ? now - *last : 0;

	*last += delta;
	return delta;
}

void mp3_counters_max(struct mp3_counters *a, const struct mp3_counters *b)
{
	a->minor_faults = max(a->minor_faults, b->minor_faults);
	a->major_faults = max(a->major_faults, b->major_faults);
	a->cpu_ns = max(a->cpu_ns, b->cpu_ns);
}

/*
 * @task's name, read without task_lock() as the kernel allows: a rename in
 * flight may show part of the new name, never an unterminated one.
 */
void mp3_task_comm(char comm[TASK_COMM_LEN], struct task_struct *task)
{
	strscpy_pad(comm, task->comm, TASK_COMM_LEN);
}
