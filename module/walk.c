// SPDX-License-Identifier: GPL-2.0
/*
 * A walk over every process that holds nothing for long: by PID number in
 * the initial namespace, as /proc's readdir goes (find_ge_pid()), so that
 * every MP3_WALK_BATCH numbers it lets RCU and the CPU go and then resumes
 * where it was, whatever exited meanwhile; and it ends when the writer is
 * killed; between batches, the caller lets go of its own locks too
 * (@between). A walk of the task list (for_each_process()) could do neither:
 * it must hold RCU throughout, since the task it stopped at may be gone.
 * Processes forked during the walk may or may not be seen; the probes see
 * those. Linear in the number of PIDs.
 */
#include <linux/pid.h>
#include <linux/pid_namespace.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>
#include <linux/sched/signal.h>

#include "internal.h"

/* PID numbers looked at per RCU read-side section. */
#define MP3_WALK_BATCH 256

int mp3_walk_processes(void (*visit)(struct task_struct *leader, void *arg),
		       int (*between)(void *arg), void *arg)
{
	struct task_struct *leader;
	unsigned int n = 0;
	struct pid *pid;
	int nr = 1, err;

	rcu_read_lock();
	while ((pid = find_ge_pid(nr, &init_pid_ns))) {
		nr = pid_nr(pid) + 1;
		/* Only a thread-group leader's number has a PIDTYPE_TGID task. */
		leader = pid_task(pid, PIDTYPE_TGID);
		if (leader)
			visit(leader, arg);
		if (++n % MP3_WALK_BATCH)
			continue;
		rcu_read_unlock();
		if (fatal_signal_pending(current))
			return -EINTR;
		cond_resched();
		err = between(arg);
		if (err)
			return err;
		rcu_read_lock();
	}
	rcu_read_unlock();
	return 0;
}
