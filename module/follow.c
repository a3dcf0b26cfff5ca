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
 * switches are not touched. See docs/design/targets.md.
 *
 * For event sampling (registry.c), sched_wakeup and sched_wakeup_new: every
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

#include <linux/cgroup.h>
#include <linux/errno.h>
#include <linux/lockdep.h>
#include <linux/mutex.h>
#include <linux/sched/signal.h>
#include <linux/string.h>
#include <linux/tracepoint.h>

#include "compat.h"
#include "internal.h"
#include "tasks.h"

/*
 * The followed group that @task joins at @place, in *@joining; false if
 * none: none holds it, or none whose registrant may read it (counted as
 * skipped).
 */
static bool mp3_tasks_group_target(struct task_struct *task, const struct mp3_place *place,
				   struct mp3_joining *joining)
{
	if (mp3_groups_target_of(place, task, joining) && !joining->target)
		mp3_tasks_count_skipped();
	return joining->target;
}

/* @task, not yet registered, joins the followed group that holds @place, from now on. */
static void mp3_tasks_join_group(struct task_struct *task, const struct mp3_place *place)
{
	struct mp3_joining joining;
	struct mp3_counters now;

	/* Counters are read only for a process that joins: most never do. */
	if (mp3_tasks_group_target(task, place, &joining) && mp3_read_group(task, &now, NULL))
		mp3_tasks_join(task, &joining, &now, NULL);
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

static void mp3_probe_fork(void *data, struct task_struct *parent, struct task_struct *child)
{
	static const struct mp3_counters from_fork;
	/* Not yet running, the child has its parent's name, which nobody can change. */
	struct mp3_place place = { .comm = child->comm, .uid = task_uid(child) };
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
			.target = entry->tag.target, .tree = true,
			.measures = READ_ONCE(entry->measures),
			.registrant = &entry->registrant, .newborn = true,
		};
		mp3_tasks_join(child, &joining, &from_fork, entry);
	} else if (mp3_tasks_group_target(child, &place, &joining)) {
		joining.newborn = true;
		mp3_tasks_join(child, &joining, &from_fork, NULL);
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
	if (revoked)
		__mp3_task_revoke(entry);
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
	if ((entry->tag.target && !entry->tree && !mp3_groups_holds(entry->tag.target, place)) ||
	    (!entry->registrant.privileged && mp3_groups_privileged_holds(place)))
		mp3_task_leave(entry, false);
}

static void mp3_probe_attach(void *data, struct cgroup *cgrp, const char *path,
			     struct task_struct *task, bool threadgroup)
{
	char comm[TASK_COMM_LEN];
	struct mp3_place place = { .cgrp = cgrp, .comm = comm, .uid = task_uid(task) };
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
 * that gets a followed name joins at its exec (mp3_probe_exec()), not here:
 * some kernels rename under task_lock(), which judging it would take.
 */
static void mp3_probe_rename(void *data, struct task_struct *task, const char *comm)
{
	struct mp3_place place = { .comm = comm, .uid = task_uid(task) };
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

/*
 * The counters of exiting @task's group into @final, and @task's runtime
 * they hold: read again while the runtime moved during the read. The last
 * run adds what the runtime gains after the one returned; a tick's update
 * between the sum and a second reading would be in cpu.stat and in neither
 * (up to a tick lost per exit, more on a descheduled vCPU).
 */
static u64 mp3_read_exiting_group(struct task_struct *task, struct mp3_counters *final)
{
	u64 runtime;

	do {
		runtime = READ_ONCE(task->se.sum_exec_runtime);
		mp3_read_group(task->group_leader, final, NULL);
	} while (READ_ONCE(task->se.sum_exec_runtime) != runtime);
	return runtime;
}

static void mp3_process_exit(struct task_struct *task, bool group_dead)
{
	struct mp3_counters final;
	struct mp3_task *entry;
	u64 runtime;

	if (!group_dead)
		return;
	rcu_read_lock();
	entry = mp3_tasks_lookup(task_tgid(task));
	if (entry) {
		runtime = mp3_read_exiting_group(task, &final);
		/* Exiting, it is left out of the sum, and is not in sig->stats either. */
		mp3_add_last_thread_delays(&final, task);
		spin_lock(&mp3_hash_lock);
		/* Two threads may both take themselves for the last: keep the larger. */
		if (entry->exited)
			mp3_counters_max(&final, &entry->final);
		entry->final = final;
		entry->exited = true;
		/* The thread exiting now; still running, it holds a reference. */
		if (!entry->exiting) {
			entry->exiting = get_task_struct(task);
			entry->exit_runtime = runtime;
		}
		/* Pairs with __mp3_task_read()'s load-acquire: final is set before. */
		smp_store_release(&entry->gone, true);
		spin_unlock(&mp3_hash_lock);
		mp3_task_wake(entry);
	}
	rcu_read_unlock();
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
static void mp3_probe_wakeup(void *data, struct task_struct *task)
{
	struct mp3_task *entry;

	RCU_LOCKDEP_WARN(preemptible(), "mp3: wakeup probe called with preemption enabled");
	entry = mp3_tasks_lookup(task_tgid(task));
	if (entry)
		mp3_task_wake(entry);
}

/* @entry's process exec'd, still readable, and is now at @place. */
static void mp3_task_exec(struct mp3_task *entry, struct task_struct *task,
			  const struct mp3_place *place)
{
	mp3_measures_exec(READ_ONCE(entry->measures), task);
	mp3_tasks_reconsider(entry, place);
}

/*
 * Every registration is judged again at an exec, by its registrant's
 * right: a process that became unreadable (setuid, not dumpable) leaves,
 * counted as skipped, and none of its faults is placed from then on. One
 * that stays has its measures told of its new memory map.
 */
static void mp3_probe_exec(void *data, struct task_struct *task, pid_t old_pid,
			   struct linux_binprm *bprm)
{
	/* The exec made it its thread group's only thread: nobody renames it now. */
	struct mp3_place place = { .comm = task->comm, .uid = task_uid(task) };
	struct mp3_task *entry;

	rcu_read_lock();
	place.cgrp = task_dfl_cgroup(task);
	entry = mp3_tasks_lookup(task_tgid(task));
	if (!entry)
		mp3_tasks_join_group(task, &place);
	else if (!mp3_registrant_may_read(&entry->registrant, task))
		mp3_task_leave(entry, true);
	else
		mp3_task_exec(entry, task, &place);
	rcu_read_unlock();
}

/* The exit probe, whose prototype changed in 6.16 (compat.h). */
MP3_DEFINE_PROBE_EXIT(mp3_probe_exit, mp3_process_exit)

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
