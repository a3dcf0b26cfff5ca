// SPDX-License-Identifier: GPL-2.0
/*
 * What a target holds now joins it, found in one walk over every process
 * (walk.c): the descendants of a tree's root ("T"), the processes of a
 * followed cgroup ("C") or with a followed name ("N"). Those the opener
 * may not read are counted as skipped. Later arrivals join through the
 * probes (follow.c). The walk lets go of mp3_lock between its batches.
 */
#include <linux/bitmap.h>
#include <linux/cgroup.h>
#include <linux/fs.h>
#include <linux/list.h>
#include <linux/pid.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>
#include <linux/sched/task.h>
#include <linux/slab.h>
#include <linux/threads.h>

#include "internal.h"
#include "tasks.h"

/*
 * A walk adding to a target. It lets go of mp3_lock between its batches
 * (its pause), so that no command keeps status reads and samples waiting
 * for a walk over every process; what changes its target meanwhile reaches
 * it here: "X" ends it, "M" and "L" reach the processes it adds after
 * them. On mp3_walks, under mp3_lock.
 */
struct mp3_walk_ticket {
	struct list_head node;
	struct mp3_joining joining;
	struct mp3_registrant registrant;	/* joining's, held: the root may go meanwhile */
	int (*pause)(void);
	bool ended;
};

static LIST_HEAD(mp3_walks);

/* mp3_walk_processes() says so when a walk's target ended: not an error. */
#define MP3_WALK_ENDED 1

static void __mp3_walk_begin(struct mp3_walk_ticket *t, const struct mp3_joining *joining,
			     int (*pause)(void))
{
	t->joining = *joining;
	mp3_registrant_copy(&t->registrant, joining->registrant);
	t->joining.registrant = &t->registrant;
	t->pause = pause;
	t->ended = false;
	list_add(&t->node, &mp3_walks);
}

/* 0 once the walk ended: its target's, or the walk's own result. */
static int __mp3_walk_finish(struct mp3_walk_ticket *t, int err)
{
	list_del(&t->node);
	mp3_registrant_release(&t->registrant);
	return err == MP3_WALK_ENDED ? 0 : err;
}

/* Between two batches: mp3_lock is let go and taken again. */
static int mp3_walk_pause(struct mp3_walk_ticket *t)
{
	int err = t->pause();

	if (err)
		return err;
	/* A member found on mp3_forked is removed from mp3_tasks (mp3_member_visit()). */
	__mp3_tasks_adopt_forked();
	return t->ended ? MP3_WALK_ENDED : 0;
}

void __mp3_walks_tell(u32 target, bool ended, unsigned int measures)
{
	struct mp3_walk_ticket *t;

	lockdep_assert_held(&mp3_lock);

	list_for_each_entry(t, &mp3_walks, node) {
		if (t->joining.target != target)
			continue;
		t->ended |= ended;
		t->joining.measures |= measures;
	}
}

/*
 * Which processes descend from a tree's root, remembered by number (in the
 * initial namespace) either way: each process's ancestors are walked up to
 * the first one known, and all on the way take its answer, so that the
 * walk over all processes is linear however deep the tree.
 */
struct mp3_descent {
	const struct file *file;
	struct task_struct *root;	/* held */
	struct mp3_walk_ticket ticket;
	unsigned long *in;		/* PID_MAX_LIMIT bits each */
	unsigned long *out;
};

/* Under rcu_read_lock(). */
static bool mp3_descends(struct mp3_descent *d, struct task_struct *task)
{
	struct task_struct *t, *known;
	bool in = false;

	for (known = task; known->pid; known = rcu_dereference(known->real_parent)) {
		if (same_thread_group(known, d->root) || test_bit(task_tgid_nr(known), d->in)) {
			in = true;
			break;
		}
		if (test_bit(task_tgid_nr(known), d->out))
			break;
	}
	for (t = task; t != known; t = rcu_dereference(t->real_parent))
		set_bit(task_tgid_nr(t), in ? d->in : d->out);
	return in;
}

static void mp3_descendant_visit(struct task_struct *task, void *arg)
{
	struct mp3_descent *d = arg;
	struct mp3_counters now;

	/* The root is registered: looked up, as its members registered before. */
	if (!mp3_descends(d, task) || mp3_tasks_lookup(task_tgid(task)))
		return;
	if (!mp3_may_read(d->file, task)) {
		mp3_tasks_count_skipped();
		return;
	}
	if (mp3_read_group(task, &now, NULL))
		__mp3_tasks_join_now(task, &d->ticket.joining, &now);
}

static int mp3_descendants_pause(void *arg)
{
	struct mp3_descent *d = arg;

	return mp3_walk_pause(&d->ticket);
}

/*
 * The descendants of @root's process, as they are now, join its tree
 * (target of @root): those @file's opener may read, from now on; the others
 * are counted as skipped. Children forked meanwhile join through the fork
 * probe, which sees @root already hashed; one found twice joins once.
 */
int __mp3_tasks_add_descendants(const struct file *file, struct mp3_task *root,
				int (*pause)(void))
{
	const struct mp3_joining joining = {
		.target = root->tag.target, .tree = true, .measures = root->measures,
		.registrant = &root->registrant,
	};
	struct mp3_descent d = { .file = file };
	int err = -ENOMEM;

	lockdep_assert_held(&mp3_lock);

	d.root = get_pid_task(root->pid, PIDTYPE_TGID);
	if (!d.root)
		return 0;
	/* 512 KiB each on 64-bit: not one piece of physically contiguous memory. */
	d.in = kvcalloc(BITS_TO_LONGS(PID_MAX_LIMIT), sizeof(long), GFP_KERNEL);
	d.out = kvcalloc(BITS_TO_LONGS(PID_MAX_LIMIT), sizeof(long), GFP_KERNEL);
	if (!d.in || !d.out)
		goto free;
	/* @root may be freed at the first pause: nothing of it is read after. */
	__mp3_walk_begin(&d.ticket, &joining, pause);
	err = mp3_walk_processes(mp3_descendant_visit, mp3_descendants_pause, &d);
	err = __mp3_walk_finish(&d.ticket, err);
free:
	kvfree(d.out);
	kvfree(d.in);
	put_task_struct(d.root);
	return err;
}

/* Whether @registrant's group takes @entry's process: an administrator's from a user. */
static bool mp3_task_taken_by(const struct mp3_task *entry,
			      const struct mp3_registrant *registrant)
{
	return registrant->privileged && !entry->registrant.privileged;
}

struct mp3_members {
	const struct file *file;
	struct mp3_walk_ticket ticket;
};

static void mp3_member_visit(struct task_struct *task, void *arg)
{
	struct mp3_members *m = arg;
	char comm[TASK_COMM_LEN];
	struct mp3_place place = { .cgrp = task_dfl_cgroup(task), .comm = comm,
				   .uid = task_uid(task) };
	struct mp3_counters now;
	struct mp3_task *entry;

	mp3_task_comm(comm, task);
	if (!mp3_groups_holds(m->ticket.joining.target, &place))
		return;
	entry = mp3_tasks_lookup(task_tgid(task));
	if (entry && !mp3_task_taken_by(entry, m->ticket.joining.registrant))
		return;
	if (!mp3_may_read(m->file, task)) {
		mp3_tasks_count_skipped();
		return;
	}
	if (!mp3_read_group(task, &now, NULL))
		return;
	if (entry)
		__mp3_tasks_remove(entry);
	__mp3_tasks_join_now(task, &m->ticket.joining, &now);
}

static int mp3_members_pause(void *arg)
{
	struct mp3_members *m = arg;

	return mp3_walk_pause(&m->ticket);
}

/*
 * The processes that @target's group (a cgroup or a name) holds now join
 * it, those @file's opener may read, from now on; the others are counted
 * as skipped. An administrator's group takes those a user registered.
 */
int __mp3_tasks_add_group_members(const struct file *file, u32 target, int (*pause)(void))
{
	const struct mp3_joining joining = {
		.target = target, .registrant = __mp3_groups_registrant(target),
	};
	struct mp3_members m = { .file = file };
	int err;

	lockdep_assert_held(&mp3_lock);

	__mp3_tasks_adopt_forked();
	__mp3_walk_begin(&m.ticket, &joining, pause);
	err = mp3_walk_processes(mp3_member_visit, mp3_members_pause, &m);
	return __mp3_walk_finish(&m.ticket, err);
}
