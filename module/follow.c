// SPDX-License-Identifier: GPL-2.0
/*
 * Following registered processes where it happens: probes on the
 * scheduler's built-in tracepoints sched_process_fork (a child of a tree's
 * member joins the tree, one forked into a followed cgroup its target),
 * sched_process_exit (a process's last counters, before its parent may reap
 * it), sched_process_exec (a member that becomes unreadable leaves, one that
 * execs a followed name joins), task_rename (a member of a name's group
 * renamed leaves) and cgroup_attach_task (a process moved into a followed
 * cgroup joins it, one moved out leaves; called with interrupts off). The
 * tracepoints are not exported; they are found by name among the kernel's
 * (for_each_kernel_tracepoint()), as lttng-modules attaches its probes.
 *
 * Why probes rather than polling or the proc connector: a child is
 * registered at its fork, before it runs, so nothing it does escapes, and
 * a short-lived one is counted even if it exits between two samples;
 * polling /proc or cgroup.procs misses those and costs in proportion to
 * all processes, and the proc connector needs CAP_NET_ADMIN and delivers
 * the events late, to user space. The cost falls on every fork, exit, exec
 * and rename of the system: one lookup of the process in a hash of
 * registered ones, under RCU, without a lock or an atomic operation when it
 * is not registered, and, at a fork or exec, a walk of the followed cgroups
 * and a lookup of the name among the followed names (groups.c). Context
 * switches are not touched. See docs/targets.md.
 *
 * For event sampling (tasks.c), sched_wakeup and sched_wakeup_new: every
 * wakeup of the system looks the woken thread's process up in the same
 * hash, without a lock or an atomic operation unless it is registered;
 * the process of a registered one is queued for the next sample.
 *
 * The probes are attached only while the module follows something, which
 * is while the sampler runs: a registration attaches them before its
 * processes are hashed, the sampler's last run detaches them. With nothing
 * registered no wakeup, fork or exit of the system calls into the module.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/errno.h>
#include <linux/lockdep.h>
#include <linux/mutex.h>
#include <linux/sched/signal.h>
#include <linux/string.h>
#include <linux/tracepoint.h>

#include "compat.h"
#include "internal.h"

static void mp3_probe_fork(void *data, struct task_struct *parent, struct task_struct *child)
{
	mp3_tasks_fork(parent, child);
}

static void mp3_probe_exec(void *data, struct task_struct *task, pid_t old_pid,
			   struct linux_binprm *bprm)
{
	mp3_tasks_exec(task);
}

static void mp3_probe_rename(void *data, struct task_struct *task, const char *comm)
{
	mp3_tasks_rename(task, comm);
}

static void mp3_probe_attach(void *data, struct cgroup *dst_cgrp, const char *path,
			     struct task_struct *task, bool threadgroup)
{
	mp3_tasks_attach(dst_cgrp, task);
}

static void mp3_probe_wakeup(void *data, struct task_struct *task)
{
	mp3_tasks_wakeup(task);
}

/* mp3_probe_exit(), whose prototype changed in 6.16, is in compat.h. */

struct mp3_probe {
	const char *name;
	void *func;
	bool for_events;	/* event sampling only; without it, samples visit all */
	struct tracepoint *tp;	/* found at load */
	bool registered;	/* protected by mp3_lock */
};

static struct mp3_probe mp3_probes[] = {
	{ .name = "sched_process_fork", .func = mp3_probe_fork },
	{ .name = "sched_process_exit", .func = mp3_probe_exit },
	{ .name = "sched_process_exec", .func = mp3_probe_exec },
	{ .name = "task_rename", .func = mp3_probe_rename },
	{ .name = "cgroup_attach_task", .func = mp3_probe_attach },
	{ .name = "sched_wakeup", .func = mp3_probe_wakeup, .for_events = true },
	{ .name = "sched_wakeup_new", .func = mp3_probe_wakeup, .for_events = true },
};

static void mp3_find_tracepoint(struct tracepoint *tp, void *priv)
{
	for (unsigned int i = 0; i < ARRAY_SIZE(mp3_probes); i++)
		if (!strcmp(tp->name, mp3_probes[i].name))
			mp3_probes[i].tp = tp;
}

/* Whether every probe event sampling needs has its tracepoint in this kernel. */
static bool mp3_events_available(void)
{
	for (unsigned int i = 0; i < ARRAY_SIZE(mp3_probes); i++) {
		if (mp3_probes[i].for_events && !mp3_probes[i].tp) {
			pr_warn("no tracepoint %s in this kernel: every sample visits every process\n",
				mp3_probes[i].name);
			return false;
		}
	}
	return true;
}

int mp3_follow_init(bool *events)
{
	for_each_kernel_tracepoint(mp3_find_tracepoint, NULL);
	*events = *events && mp3_events_available();
	for (unsigned int i = 0; i < ARRAY_SIZE(mp3_probes); i++) {
		if (!mp3_probes[i].tp && !mp3_probes[i].for_events) {
			pr_err("no tracepoint %s in this kernel\n", mp3_probes[i].name);
			return -ENOENT;
		}
	}
	return 0;
}

int __mp3_follow_attach(void)
{
	int err = 0;

	lockdep_assert_held(&mp3_lock);

	for (unsigned int i = 0; i < ARRAY_SIZE(mp3_probes) && !err; i++) {
		struct mp3_probe *p = &mp3_probes[i];

		if (p->registered || (p->for_events && !mp3_event_sampling))
			continue;
		err = tracepoint_probe_register(p->tp, p->func, NULL);
		p->registered = !err;
	}
	if (err) {
		pr_err("cannot attach the probes: %d\n", err);
		__mp3_follow_detach();
	}
	return err;
}

void __mp3_follow_detach(void)
{
	lockdep_assert_held(&mp3_lock);

	for (unsigned int i = 0; i < ARRAY_SIZE(mp3_probes); i++) {
		struct mp3_probe *p = &mp3_probes[i];

		if (p->registered)
			tracepoint_probe_unregister(p->tp, p->func, NULL);
		p->registered = false;
	}
}

void mp3_follow_stop(void)
{
	mutex_lock(&mp3_lock);
	__mp3_follow_detach();
	mutex_unlock(&mp3_lock);
	/*
	 * No probe runs, nor will, once this returns: the module's code may
	 * go. Also for probes detached earlier: their entries are freed after
	 * a grace period, the code they run only now.
	 */
	tracepoint_synchronize_unregister();
}
