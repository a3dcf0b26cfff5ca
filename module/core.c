// SPDX-License-Identifier: GPL-2.0
/*
 * What the parts do together under mp3_lock: a registration (of a tree
 * or a group, with its present processes), which attaches the probes and
 * starts the sampler; an unregistration, of a process or a target; the
 * listing; the release at unload.
 *
 * A target belongs to whoever registered it (access.c): its group's
 * registrant, and that of each of its processes, all one owner. Only that
 * owner, or an administrator, ends it ("X") or changes it ("M"). A number
 * another user has is refused to a user (EBUSY); an administrator takes
 * it, ending the user's target: no user can squat the numbers pfprofd
 * will ask for.
 */
#include <linux/err.h>
#include <linux/mutex.h>
#include <linux/sched.h>

#include "internal.h"

/* Protects what internal.h lists beside its declaration. */
DEFINE_MUTEX(mp3_lock);

/*
 * Between two batches of a registration's walk: whoever waits for mp3_lock
 * (a status read, the sampler, another command) has it. A waiter woken here
 * that finds the lock taken again asks for a hand-off, which the next pause
 * gives it. The probes stay attached even if the sampler found nothing left
 * to follow meanwhile.
 */
static int __mp3_registration_pause(void)
{
	mutex_unlock(&mp3_lock);
	cond_resched();
	mutex_lock(&mp3_lock);
	return __mp3_follow_attach();
}

/*
 * After a registration that __mp3_follow_attach() began: the sampler runs,
 * and detaches the probes once nothing is left to follow. A failed one
 * followed nothing; if the sampler does not run, nothing else is either.
 */
static void __mp3_registration_end(int err)
{
	if (!err) {
		__mp3_sampler_start();
	} else if (!__mp3_sampler_running()) {
		__mp3_follow_detach();
		__mp3_measures_reap();
	}
}

/* Whose @target is: its group's registrant, else its processes'; NULL: nobody's. */
static const struct mp3_registrant *__mp3_target_registrant(u32 target)
{
	return __mp3_groups_registrant(target) ?: __mp3_tasks_registrant(target);
}

static void __mp3_target_remove(u32 target)
{
	/* The group first: once it is gone no probe adds to the target. */
	__mp3_groups_remove(target);
	__mp3_tasks_remove_target(target);
}

/* Whether @file's opener may add to @target; an administrator takes it from a user. */
static int __mp3_target_claim(const struct file *file, u32 target)
{
	const struct mp3_registrant *owner = __mp3_target_registrant(target);

	if (!owner || mp3_registrant_is_opener(owner, file))
		return 0;
	if (owner->privileged || !mp3_file_privileged(file))
		return -EBUSY;
	__mp3_target_remove(target);
	return 0;
}

/* 0 if @file's opener may end or change @target, -ENOENT if it has nothing, -EPERM. */
static int __mp3_target_owned(const struct file *file, u32 target)
{
	const struct mp3_registrant *owner = __mp3_target_registrant(target);

	if (!owner)
		return -ENOENT;
	return mp3_registrant_owned_by(owner, file) ? 0 : -EPERM;
}

int mp3_register(const struct file *file, pid_t nr, u32 target, unsigned int measures)
{
	struct mp3_walk_slot slot;
	struct mp3_task *entry;
	int err, descendants_err = 0;

	err = mp3_measures_allowed(file, measures);
	if (err)
		return err;
	/* Looked up, judged and allocated before the lock is taken. */
	entry = mp3_task_create(file, nr, target, measures);
	if (IS_ERR(entry))
		return PTR_ERR(entry);
	/* A tree's root is followed by a walk. */
	err = target ? mp3_walk_slot_take(&slot, file) : 0;
	if (err)
		goto destroy;

	mutex_lock(&mp3_lock);
	err = target ? __mp3_target_claim(file, target) : 0;
	if (!err)
		err = __mp3_measures_arm(measures);
	/* Then: a process forked or exiting from the moment it is hashed is seen. */
	if (!err)
		err = __mp3_follow_attach();
	if (!err)
		err = __mp3_tasks_add(entry);
	/* A failure here leaves the root registered: "X" the target to try again. */
	if (!err && target)
		descendants_err = __mp3_tasks_add_descendants(file, entry,
							      __mp3_registration_pause);
	__mp3_registration_end(err);
	mutex_unlock(&mp3_lock);
	if (target)
		mp3_walk_slot_give_back(&slot);

destroy:
	if (err)
		mp3_task_destroy(entry);
	return err ?: descendants_err;
}

int mp3_unregister(const struct file *file, pid_t nr)
{
	int err;

	mutex_lock(&mp3_lock);
	err = __mp3_tasks_remove_pid(file, nr);
	mutex_unlock(&mp3_lock);
	return err;
}

/*
 * A followed group (@__add adds it, the one difference between a cgroup and
 * a name), then what it holds now.
 */
static int mp3_register_group(const struct file *file, u32 target,
			      int (*__add)(const struct file *file, const void *what, u32 target),
			      const void *what)
{
	struct mp3_walk_slot slot;
	int err, members_err = 0;

	err = mp3_walk_slot_take(&slot, file);
	if (err)
		return err;
	mutex_lock(&mp3_lock);
	err = __mp3_target_claim(file, target);
	/* Then: a process joining the group from the moment it is added is seen. */
	if (!err)
		err = __mp3_follow_attach();
	if (!err)
		err = __add(file, what, target);
	/* Killed meanwhile, the writer leaves the group added. */
	if (!err)
		members_err = __mp3_tasks_add_group_members(file, target,
							    __mp3_registration_pause);
	__mp3_registration_end(err);
	mutex_unlock(&mp3_lock);
	mp3_walk_slot_give_back(&slot);
	return err ?: members_err;
}

/* A cgroup by id, and the root of the opener's cgroup namespace, which must hold it. */
struct mp3_cgroup_asked {
	u64 id;
	struct cgroup *visible_root;
};

static int __mp3_add_cgroup(const struct file *file, const void *what, u32 target)
{
	const struct mp3_cgroup_asked *asked = what;

	return __mp3_groups_add_cgroup(file, asked->id, asked->visible_root, target);
}

static int __mp3_add_comm(const struct file *file, const void *name, u32 target)
{
	return __mp3_groups_add_comm(file, name, target);
}

int mp3_register_cgroup(const struct file *file, u64 cgroup_id, struct cgroup *visible_root,
			u32 target)
{
	const struct mp3_cgroup_asked asked = { cgroup_id, visible_root };

	return mp3_register_group(file, target, __mp3_add_cgroup, &asked);
}

int mp3_register_comm(const struct file *file, const struct mp3_name *name, u32 target)
{
	return mp3_register_group(file, target, __mp3_add_comm, name);
}

int mp3_unregister_target(const struct file *file, u32 target)
{
	int err;

	mutex_lock(&mp3_lock);
	err = __mp3_target_owned(file, target);
	if (!err)
		__mp3_target_remove(target);
	mutex_unlock(&mp3_lock);
	return err;
}

int mp3_measure_target(const struct file *file, u32 target, enum mp3_measure_id id,
		       bool charged)
{
	int err = mp3_measures_allowed(file, MP3_MEASURE(id));

	if (err)
		return err;
	mutex_lock(&mp3_lock);
	err = __mp3_target_owned(file, target);
	if (!err)
		err = __mp3_measures_arm(MP3_MEASURE(id));
	if (!err) {
		/* Its group first: a process joining from now on has it already. */
		err = __mp3_groups_set_measure(target, id, charged);
		if (!err)
			err = __mp3_tasks_measure_target(target, id);
	}
	if (!err)
		err = __mp3_tasks_follow_measures();
	mutex_unlock(&mp3_lock);
	return err;
}

void mp3_release_all(void)
{
	mutex_lock(&mp3_lock);
	__mp3_tasks_destroy_all();
	/* Then nothing holds a measure armed: reaping lets all of it go. */
	__mp3_groups_remove_all();
	/* No fault handler runs once their counters are released. */
	__mp3_measures_reap();
	__mp3_measures_stop();
	mutex_unlock(&mp3_lock);
}
