// SPDX-License-Identifier: GPL-2.0
/*
 * The "maps" measure: where a process's faults are. Its threads get perf
 * counters (faultcounters.c) whose handler notes each fault's address;
 * each tick the faults noted are placed in their mappings (faultplace.c)
 * and written as records. A process that joins without counters (at its
 * fork, by a walk, or when "M" gives them to its target) gets them before
 * the next sample; the faults it took until then go into its unresolved
 * record, so that placed and unresolved add up to its count. One forked
 * makes them itself before its first instruction (newborn.c), so that
 * its unresolved record holds only the faults of its way there.
 */
#include <linux/errno.h>
#include <linux/list.h>
#include <linux/moduleparam.h>
#include <linux/pid.h>
#include <linux/rcupdate.h>
#include <linux/rwsem.h>
#include <linux/sched/signal.h>
#include <linux/sched/task.h>
#include <linux/slab.h>

#include "counters.h"
#include "internal.h"

/*
 * Where the faults are costs kernel perf counters, which Debian's
 * perf_event_paranoid (3: CAP_SYS_ADMIN only) does not govern from a
 * module, and buffers kept until unload: for administrators, and for users
 * where root said so (maps_users).
 */
static bool mp3_maps_users;
module_param_named(maps_users, mp3_maps_users, bool, 0644);
MODULE_PARM_DESC(maps_users,
		 "Whether users without CAP_SYS_PTRACE may ask where their faults are (R <pid> maps, M): kernel perf counters on their threads, which perf_event_paranoid does not govern, and buffers of 384 KiB per CPU kept until unload (default N)");

/* What a process with maps keeps; under mp3_lock. */
struct mp3_maps {
	struct list_head threads;	/* its threads' counters (faultcounters.c) */
	/*
	 * It joined without counters: its faults from @unplaced_from on go
	 * into its unresolved record until its counters note them.
	 */
	bool unplaced;
	struct mp3_counters unplaced_from;
	/* Joined at its fork: the counters it makes itself (newborn.c), until taken. */
	struct mp3_newborn *newborn;
};

static int mp3_maps_allowed(const struct file *file)
{
	return mp3_file_privileged(file) || READ_ONCE(mp3_maps_users) ? 0 : -EPERM;
}

static void *mp3_maps_attach(const struct mp3_measured *m, gfp_t gfp)
{
	struct mp3_maps *maps = kzalloc(sizeof(*maps), gfp);

	if (!maps)
		return NULL;
	INIT_LIST_HEAD(&maps->threads);
	if (m->last) {
		maps->unplaced = true;
		maps->unplaced_from = *m->last;
	}
	if (m->newborn)
		maps->newborn = mp3_newborn_queue(m->newborn, m, gfp);
	return maps;
}

/* The faults it took from maps->unplaced_from to @now, which no counter of ours saw. */
static void __mp3_maps_record_unplaced(struct mp3_maps *maps, const struct mp3_measured *m,
				       const struct mp3_counters *now)
{
	struct mp3_counters *from = &maps->unplaced_from;
	struct mp3_mapping_faults unplaced = {
		.where.kind = MP3_MAPPING_UNRESOLVED,
		.minor = min_t(u64, mp3_advance(&from->minor_faults, now->minor_faults), U32_MAX),
		.major = min_t(u64, mp3_advance(&from->major_faults, now->major_faults), U32_MAX),
	};

	lockdep_assert_held(&mp3_lock);

	if (unplaced.minor || unplaced.major)
		__mp3_buffer_record_faults(pid_nr(m->pid), &m->tag, &unplaced);
}

/*
 * What a newborn's work made, if it made counters: its threads' from now
 * on, and the faults it took before, on its way to its first instruction,
 * are unresolved. 0; -EINPROGRESS while its work has not run (unless
 * @leaving); -ENOENT: it made none.
 */
static int __mp3_maps_take_newborn(struct mp3_maps *maps, const struct mp3_measured *m,
				   bool leaving)
{
	struct mp3_counters made;
	int err;

	if (!maps->newborn)
		return -ENOENT;
	err = __mp3_newborn_take(maps->newborn, &maps->threads, &made, leaving);
	if (err == -EINPROGRESS)
		return err;
	mp3_newborn_release(maps->newborn);
	maps->newborn = NULL;
	if (!err) {
		__mp3_maps_record_unplaced(maps, m, &made);
		maps->unplaced = false;
	}
	return err;
}

/*
 * Counters on its threads that have none, if its registrant may still read
 * it (-EPERM). Judged and attached under the process's exec_update_lock,
 * as perf_event_open() does: no exec makes it unreadable between the two.
 * One that joined without counters has the faults it took until now
 * written as unresolved, and its counters note those after; once it has
 * some, a thread still without them (an earlier try failed) is not counted
 * until it has them: counted twice, never. Sleeps.
 */
static int __mp3_maps_follow(void *state, const struct mp3_measured *m)
{
	struct mp3_maps *maps = state;
	bool first = list_empty(&maps->threads);
	struct task_struct *leader;
	struct mp3_counters now;
	bool allowed, alive;
	int err;

	err = __mp3_maps_take_newborn(maps, m, false);
	if (err != -ENOENT)
		return err;
	leader = get_pid_task(m->pid, PIDTYPE_TGID);
	if (!leader)
		return -ESRCH;
	err = down_read_killable(&leader->signal->exec_update_lock);
	if (err)
		goto put;
	rcu_read_lock();
	allowed = mp3_registrant_may_read(m->registrant, leader);
	rcu_read_unlock();
	err = allowed ? __mp3_faults_follow(leader, &m->tag, &maps->threads) : -EPERM;
	up_read(&leader->signal->exec_update_lock);
	/* A registration: its counts are read next, and its counters count from there. */
	if (!maps->unplaced)
		goto put;
	rcu_read_lock();
	alive = mp3_read_group(leader, &now, NULL);
	rcu_read_unlock();
	/* Gone: its removal writes what it took since. */
	if (alive && first)
		__mp3_maps_record_unplaced(maps, m, &now);
	__mp3_faults_count_from_now(&maps->threads);
put:
	put_task_struct(leader);
	return err;
}

static void __mp3_maps_counted(void *state)
{
	struct mp3_maps *maps = state;

	__mp3_faults_count_from_now(&maps->threads);
}

static void __mp3_maps_gone(void *state, const struct mp3_measured *m, bool place)
{
	struct mp3_maps *maps = state;

	__mp3_maps_take_newborn(maps, m, true);
	/* Its counters noted faults until it left: they go with this sample. */
	if (!list_empty(&maps->threads))
		__mp3_faults_departed(&maps->threads, m, place);
}

static void __mp3_maps_leave(void *state, const struct mp3_measured *m)
{
	struct mp3_maps *maps = state;

	__mp3_maps_take_newborn(maps, m, true);
	if (maps->unplaced && list_empty(&maps->threads))
		__mp3_maps_record_unplaced(maps, m, m->last);
	__mp3_faults_unfollow(&maps->threads);
}

static void mp3_maps_release(void *state)
{
	struct mp3_maps *maps = state;

	if (maps->newborn)
		mp3_newborn_release(maps->newborn);
	kfree(maps);
}

static void __mp3_maps_losses(struct mp3_losses *losses)
{
	losses->faults_dropped = mp3_faults_dropped();
	losses->faults_summed = mp3_faults_summed();
}

const struct mp3_measure mp3_maps_measure = {
	.allowed = mp3_maps_allowed,
	.attach = mp3_maps_attach,
	.__follow = __mp3_maps_follow,
	.__counted = __mp3_maps_counted,
	.exec = mp3_faults_exec,
	.__gone = __mp3_maps_gone,
	.__leave = __mp3_maps_leave,
	.release = mp3_maps_release,
	.__tick = __mp3_faults_collect,
	.__reap = __mp3_faults_release,
	.__losses = __mp3_maps_losses,
	.__stop = mp3_newborns_drain,
};
