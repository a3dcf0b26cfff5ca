// SPDX-License-Identifier: GPL-2.0
/*
 * What the parts do together under mp3_lock: a registration (of a tree
 * or a group, with its present processes), which attaches the probes and
 * starts the sampler; an
 * unregistration, of a process or a target; the listing; the release at
 * unload.
 */
#include <linux/err.h>
#include <linux/mutex.h>

#include "internal.h"

/* Protects what internal.h lists beside its declaration. */
DEFINE_MUTEX(mp3_lock);

/*
 * After a registration that __mp3_follow_attach() began: the sampler runs,
 * and detaches the probes once nothing is left to follow. A failed one
 * followed nothing; if the sampler does not run, nothing else is either.
 */
static void __mp3_registration_end(int err)
{
	if (!err)
		__mp3_sampler_start();
	else if (!__mp3_sampler_running())
		__mp3_follow_detach();
}

int mp3_register(const struct file *file, pid_t nr, u32 target, bool maps)
{
	struct mp3_task *entry;
	int err;

	/* Looked up, judged and allocated before the lock is taken. */
	entry = mp3_task_create(file, nr, target, maps);
	if (IS_ERR(entry))
		return PTR_ERR(entry);

	mutex_lock(&mp3_lock);
	/* First: a process forked or exiting from the moment it is hashed is seen. */
	err = __mp3_follow_attach();
	if (!err)
		err = __mp3_tasks_add(entry);
	if (!err && target)
		__mp3_tasks_add_descendants(file, entry);
	__mp3_registration_end(err);
	mutex_unlock(&mp3_lock);

	if (err)
		mp3_task_destroy(entry);
	return err;
}

int mp3_unregister(const struct file *file, pid_t nr)
{
	int err;

	mutex_lock(&mp3_lock);
	err = __mp3_tasks_remove_pid(file, nr);
	mutex_unlock(&mp3_lock);
	return err;
}

int mp3_register_cgroup(const struct file *file, u64 cgroup_id, u32 target)
{
	int err;

	mutex_lock(&mp3_lock);
	/* First: a process joining the group from the moment it is added is seen. */
	err = __mp3_follow_attach();
	if (!err)
		err = __mp3_groups_add_cgroup(file, cgroup_id, target);
	if (!err)
		__mp3_tasks_add_group_members(file, target);
	__mp3_registration_end(err);
	mutex_unlock(&mp3_lock);
	return err;
}

int mp3_register_comm(const struct file *file, const char *comm, u32 target)
{
	int err;

	mutex_lock(&mp3_lock);
	err = __mp3_follow_attach();
	if (!err)
		err = __mp3_groups_add_comm(file, comm, target);
	if (!err)
		__mp3_tasks_add_group_members(file, target);
	__mp3_registration_end(err);
	mutex_unlock(&mp3_lock);
	return err;
}

int mp3_unregister_target(const struct file *file, u32 target)
{
	int err;

	mutex_lock(&mp3_lock);
	/* An -EPERM leaves the target as it is, its group followed too. */
	err = __mp3_tasks_may_read_target(file, target);
	/* The group first: once it is gone no probe adds to the target. */
	if ((!err || err == -ENOENT) && __mp3_groups_remove(target))
		err = 0;
	if (!err)
		__mp3_tasks_remove_target(target);
	mutex_unlock(&mp3_lock);
	return err;
}

int mp3_maps_target(const struct file *file, u32 target)
{
	int err;

	mutex_lock(&mp3_lock);
	/* As for "R <pid> maps": the opener must be allowed to read every member. */
	err = __mp3_tasks_may_read_target(file, target);
	/* Its group first: a process joining from now on has maps already. */
	if ((!err || err == -ENOENT) && __mp3_groups_set_maps(target))
		err = 0;
	if (!err) {
		__mp3_tasks_maps_target(target);
		err = __mp3_tasks_follow_joined();
	}
	mutex_unlock(&mp3_lock);
	return err;
}

void mp3_show(struct seq_file *m)
{
	mutex_lock(&mp3_lock);
	__mp3_tasks_show(m);
	mutex_unlock(&mp3_lock);
}

void mp3_release_all(void)
{
	mutex_lock(&mp3_lock);
	__mp3_tasks_destroy_all();
	/* No fault handler runs once their counters are released. */
	__mp3_faults_release();
	__mp3_groups_remove_all();
	mutex_unlock(&mp3_lock);
}
