// SPDX-License-Identifier: GPL-2.0
/*
 * Followed cgroups ("C <cgroup-id> <target>"): cgroup v2 directories whose
 * processes, present and future, are registered with their target's number
 * (a systemd unit's, a container's). The probes (follow.c, tasks.c) ask
 * which target holds a cgroup when a process is forked into it or moved
 * there, and leave a process that moves out.
 *
 * A process that joins later is judged by the credentials of whoever
 * opened the file to add the cgroup, kept here: the probes have no file.
 * The rule is mp3_may_read()'s with the one capability it can still ask
 * about: CAP_SYS_PTRACE over the initial user namespace, judged when the
 * cgroup is added (security_capable() is not exported to modules). Without
 * it, only the opener's own dumpable processes join: a narrower rule,
 * never a wider one.
 */
#include <linux/cgroup.h>
#include <linux/cred.h>
#include <linux/err.h>
#include <linux/fs.h>
#include <linux/list.h>
#include <linux/rculist.h>
#include <linux/sched.h>
#include <linux/sched/task.h>
#include <linux/slab.h>

#include "compat.h"
#include "internal.h"

struct mp3_cgroup_target {
	struct list_head node;		/* in mp3_cgroups */
	struct cgroup *cgrp;		/* held until the target goes */
	u32 target;
	/* The opener's right, as mp3_cgroups_may_read() applies it. */
	kuid_t fsuid;
	kgid_t fsgid;
	bool ptrace_all;		/* CAP_SYS_PTRACE over the initial user namespace */
};

/* Followed cgroups: changed under mp3_lock, read under RCU by the probes. */
static LIST_HEAD(mp3_cgroups);
/* How many mp3_cgroups holds; under mp3_lock. */
static unsigned int mp3_nr_cgroups;

static struct mp3_cgroup_target *mp3_cgroups_find(u32 target)
{
	struct mp3_cgroup_target *t;

	list_for_each_entry_rcu(t, &mp3_cgroups, node, lockdep_is_held(&mp3_lock))
		if (t->target == target)
			return t;
	return NULL;
}

int __mp3_cgroups_add(const struct file *file, u64 id, u32 target, struct cgroup **cgrp)
{
	const struct cred *cred = file->f_cred;
	struct mp3_cgroup_target *t;
	int err;

	lockdep_assert_held(&mp3_lock);

	t = mp3_cgroups_find(target);
	/* Tells a registrar whose unit was restarted (a new cgroup) to X first. */
	if (t)
		return cgroup_id(t->cgrp) == id ? -EEXIST : -EBUSY;
	/* Every fork and move between cgroups walks the list. */
	if (mp3_nr_cgroups == MP3_CGROUPS_MAX)
		return -ENOSPC;
	t = kzalloc(sizeof(*t), GFP_KERNEL);
	if (!t)
		return -ENOMEM;
	t->cgrp = cgroup_get_from_id(id);
	if (IS_ERR(t->cgrp)) {
		err = PTR_ERR(t->cgrp);
		goto free;
	}
	t->target = target;
	t->fsuid = cred->fsuid;
	t->fsgid = cred->fsgid;
	t->ptrace_all = file_ns_capable(file, &init_user_ns, CAP_SYS_PTRACE);
	list_add_tail_rcu(&t->node, &mp3_cgroups);
	mp3_nr_cgroups++;
	*cgrp = t->cgrp;
	return 0;

free:
	kfree(t);
	return err;
}

static void mp3_cgroups_free(struct mp3_cgroup_target *t)
{
	cgroup_put(t->cgrp);
	kfree(t);
}

bool __mp3_cgroups_remove(u32 target)
{
	struct mp3_cgroup_target *t;

	lockdep_assert_held(&mp3_lock);

	t = mp3_cgroups_find(target);
	if (!t)
		return false;
	list_del_rcu(&t->node);
	mp3_nr_cgroups--;
	/* The probes look under rcu_read_lock(). */
	synchronize_rcu();
	mp3_cgroups_free(t);
	return true;
}

void __mp3_cgroups_remove_all(void)
{
	struct mp3_cgroup_target *t, *next;

	lockdep_assert_held(&mp3_lock);

	list_for_each_entry_safe(t, next, &mp3_cgroups, node) {
		list_del_rcu(&t->node);
		mp3_nr_cgroups--;
		synchronize_rcu();
		mp3_cgroups_free(t);
	}
}

/* Whether t's opener may read @task's counters; under rcu_read_lock(), not sleeping. */
static bool mp3_cgroups_may_read(const struct mp3_cgroup_target *t, struct task_struct *task)
{
	struct user_namespace *exec_ns;
	bool dumpable;

	if (t->ptrace_all)
		return true;
	if (!mp3_same_owner(t->fsuid, t->fsgid, __task_cred(task)))
		return false;
	task_lock(task);
	dumpable = mp3_task_dumpable(task, &exec_ns);
	task_unlock(task);
	return dumpable;
}

u32 mp3_cgroups_target_of(struct cgroup *cgrp, struct task_struct *task, bool *allowed)
{
	struct mp3_cgroup_target *t;

	RCU_LOCKDEP_WARN(!rcu_read_lock_held(), "needs rcu_read_lock()");
	list_for_each_entry_rcu(t, &mp3_cgroups, node) {
		if (cgroup_is_descendant(cgrp, t->cgrp)) {
			*allowed = mp3_cgroups_may_read(t, task);
			return t->target;
		}
	}
	return 0;
}

bool mp3_cgroups_holds(u32 target, struct cgroup *cgrp)
{
	struct mp3_cgroup_target *t;

	RCU_LOCKDEP_WARN(!rcu_read_lock_held(), "needs rcu_read_lock()");
	list_for_each_entry_rcu(t, &mp3_cgroups, node)
		if (t->target == target)
			return cgroup_is_descendant(cgrp, t->cgrp);
	return false;
}
