// SPDX-License-Identifier: GPL-2.0
/*
 * Followed groups: cgroup v2 directories ("C <cgroup-id> <target>") and
 * command names ("N <target> <comm>") whose processes, present and future,
 * are registered with their target's number (a systemd unit's, a
 * container's, every postgres's). The probes (follow.c) ask which
 * group holds a process where it is or is about to be (struct mp3_place):
 * forked into a cgroup, moved there, or exec()ing a program of that name;
 * and a member that moves out or is renamed leaves. A process belongs to
 * one target: of the groups holding it whose registrant may read it, an
 * administrator's first, then the first added. So no user's group hides a
 * process from another's that may read it, and none from an
 * administrator's: a user's member found in an administrator's group
 * moves there.
 *
 * Every fork and exec asks, so the names are found by a hash of the name
 * (one bucket, not every name) and only the cgroups are walked: the cost of
 * a fork beside 256 followed names is that of one.
 *
 * A process that joins later is judged by the credentials of whoever
 * opened the file to add the group, kept here: the probes have no file
 * (mp3_registrant_may_read()). A user who is not an administrator follows
 * at most MP3_GROUPS_PER_USER groups of a kind, and users together leave
 * MP3_GROUPS_RESERVED of each to administrators.
 */
#include <linux/cgroup.h>
#include <linux/cred.h>
#include <linux/err.h>
#include <linux/fs.h>
#include <linux/hashtable.h>
#include <linux/jhash.h>
#include <linux/list.h>
#include <linux/rculist.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "internal.h"

enum mp3_group_kind { MP3_GROUP_CGROUP, MP3_GROUP_COMM, MP3_GROUP_KINDS };

struct mp3_group {
	struct list_head node;		/* in mp3_groups */
	union {
		struct list_head cgroup_node;	/* in mp3_cgroup_groups */
		struct hlist_node comm_node;	/* in mp3_comm_groups */
	};
	enum mp3_group_kind kind;
	union {
		struct cgroup *cgrp;	/* held until the target goes */
		struct {
			char comm[TASK_COMM_LEN];
			kuid_t uid;	/* its processes' real uid ("P"); invalid: anyone's */
		};
	};
	u64 order;			/* of its addition: the first added wins */
	/* What its members measure ("M", "L"): set under mp3_lock, read by the probes. */
	unsigned int measures;
	/*
	 * A cgroup's "S <target> charged": the page events of no process of
	 * the pages charged to it are its own too (its shmem written out
	 * while no traced process maps it, its file pages evicted). Set with
	 * its pages, under mp3_lock.
	 */
	bool charged;
	/*
	 * Set when it is unlinked ("X"), before the removal of its members
	 * takes mp3_hash_lock: a probe that found it before joins nobody to it
	 * once that lock was let go (mp3_tasks_join()). So no grace period is
	 * waited under mp3_lock for it.
	 */
	bool ended;
	struct rcu_head rcu;		/* frees it once no probe can see it */
	u32 target;
	struct mp3_registrant registrant;
};

/*
 * Followed groups in the order added, and the same by kind: the cgroups in
 * a list, the names hashed by name. Changed under mp3_lock, read under RCU
 * by the probes.
 */
static LIST_HEAD(mp3_groups);
static LIST_HEAD(mp3_cgroup_groups);
static DEFINE_HASHTABLE(mp3_comm_groups, 8);
/* How many of each kind mp3_groups holds, and additions so far; under mp3_lock. */
static unsigned int mp3_nr_groups[MP3_GROUP_KINDS];
static u64 mp3_groups_added;
/* Every fork, exec and move between cgroups walks the list. */
static const unsigned int mp3_groups_max[MP3_GROUP_KINDS] = {
	[MP3_GROUP_CGROUP] = MP3_CGROUPS_MAX,
	[MP3_GROUP_COMM] = MP3_COMMS_MAX,
};

static struct mp3_group *mp3_groups_find(u32 target)
{
	struct mp3_group *g;

	list_for_each_entry_rcu(g, &mp3_groups, node, lockdep_is_held(&mp3_lock))
		if (g->target == target)
			return g;
	return NULL;
}

/* Whether @g's registrant may add one more group of its kind. */
static bool __mp3_groups_room(const struct mp3_group *g)
{
	unsigned int users = 0, own = 0;
	struct mp3_group *other;
	kuid_t payer;

	if (mp3_nr_groups[g->kind] == mp3_groups_max[g->kind])
		return false;
	if (g->registrant.privileged)
		return true;
	/* A user's, in whatever user namespaces it made (mp3_payer()). */
	payer = mp3_payer(g->registrant.cred);
	/* At most MP3_CGROUPS_MAX + MP3_COMMS_MAX: bounded. */
	list_for_each_entry(other, &mp3_groups, node) {
		if (other->kind != g->kind || other->registrant.privileged)
			continue;
		users++;
		if (uid_eq(mp3_payer(other->registrant.cred), payer))
			own++;
	}
	return own < MP3_GROUPS_PER_USER &&
	       users < mp3_groups_max[g->kind] - MP3_GROUPS_RESERVED;
}

/*
 * Whether @target is free for @g, @same telling whether its group is this
 * one: -EEXIST tells a registrar that nothing changed, -EBUSY that another
 * group has the target (a restarted unit's old cgroup: "X" it first).
 */
static int __mp3_groups_check(const struct mp3_group *g,
			      bool (*same)(const struct mp3_group *g, const void *what),
			      const void *what)
{
	struct mp3_group *found = mp3_groups_find(g->target);

	if (found)
		return found->kind == g->kind && same(found, what) ? -EEXIST : -EBUSY;
	return __mp3_groups_room(g) ? 0 : -ENOSPC;
}

static struct mp3_group *mp3_group_alloc(const struct file *file, enum mp3_group_kind kind,
					 u32 target)
{
	struct mp3_group *g = kzalloc(sizeof(*g), GFP_KERNEL);

	if (!g)
		return NULL;
	g->kind = kind;
	g->target = target;
	mp3_registrant_init(&g->registrant, file);
	return g;
}

/* Before it was inserted: nothing else can see it. */
static void mp3_group_free_new(struct mp3_group *g)
{
	mp3_registrant_release(&g->registrant);
	kfree(g);
}

static u32 mp3_comm_key(const char *comm)
{
	return jhash(comm, strnlen(comm, TASK_COMM_LEN), 0);
}

static void __mp3_groups_insert(struct mp3_group *g)
{
	g->order = mp3_groups_added++;
	list_add_tail_rcu(&g->node, &mp3_groups);
	if (g->kind == MP3_GROUP_CGROUP)
		list_add_tail_rcu(&g->cgroup_node, &mp3_cgroup_groups);
	else
		hash_add_rcu(mp3_comm_groups, &g->comm_node, mp3_comm_key(g->comm));
	mp3_nr_groups[g->kind]++;
}

static bool mp3_same_cgroup(const struct mp3_group *g, const void *id)
{
	return cgroup_id(g->cgrp) == *(const u64 *)id;
}

int __mp3_groups_add_cgroup(const struct file *file, u64 id, struct cgroup *visible_root,
			    u32 target)
{
	struct mp3_group *g;
	int err;

	lockdep_assert_held(&mp3_lock);

	g = mp3_group_alloc(file, MP3_GROUP_CGROUP, target);
	if (!g)
		return -ENOMEM;
	err = __mp3_groups_check(g, mp3_same_cgroup, &id);
	if (err)
		goto free;
	g->cgrp = cgroup_get_from_id(id);
	if (IS_ERR(g->cgrp)) {
		err = PTR_ERR(g->cgrp);
		goto free;
	}
	/* The writer's namespace sees it (cgroup_get_from_id()); the opener's must too. */
	if (!cgroup_is_descendant(g->cgrp, visible_root)) {
		err = -ENOENT;
		goto put;
	}
	__mp3_groups_insert(g);
	return 0;

put:
	cgroup_put(g->cgrp);
free:
	mp3_group_free_new(g);
	return err;
}

static bool mp3_same_name(const struct mp3_group *g, const void *name)
{
	const struct mp3_name *n = name;

	return !strncmp(g->comm, n->comm, TASK_COMM_LEN) && uid_eq(g->uid, n->uid);
}

int __mp3_groups_add_comm(const struct file *file, const struct mp3_name *name, u32 target)
{
	struct mp3_group *g;
	int err;

	lockdep_assert_held(&mp3_lock);

	g = mp3_group_alloc(file, MP3_GROUP_COMM, target);
	if (!g)
		return -ENOMEM;
	err = __mp3_groups_check(g, mp3_same_name, name);
	if (err) {
		mp3_group_free_new(g);
		return err;
	}
	strscpy(g->comm, name->comm, sizeof(g->comm));
	g->uid = name->uid;
	__mp3_groups_insert(g);
	return 0;
}

static void mp3_group_free(struct mp3_group *g)
{
	if (g->kind == MP3_GROUP_CGROUP)
		cgroup_put(g->cgrp);
	mp3_group_free_new(g);
}

/* css_put() may run in the callback's softirq: a last put queues the release as work. */
static void mp3_group_free_rcu(struct rcu_head *head)
{
	mp3_group_free(container_of(head, struct mp3_group, rcu));
}

static struct mp3_group_view mp3_group_view_of(const struct mp3_group *g)
{
	return (struct mp3_group_view){
		.cgrp = g->kind == MP3_GROUP_CGROUP ? g->cgrp : NULL,
		.charged = g->charged,
		.tag = mp3_registrant_tag(&g->registrant, g->target),
		.order = g->order,
	};
}

/* Unlinks @g; probes may still be looking at it until a grace period ends. */
static void __mp3_groups_unlink(struct mp3_group *g)
{
	const struct mp3_group_view view = mp3_group_view_of(g);

	WRITE_ONCE(g->ended, true);
	list_del_rcu(&g->node);
	if (g->kind == MP3_GROUP_CGROUP)
		list_del_rcu(&g->cgroup_node);
	else
		hash_del_rcu(&g->comm_node);
	mp3_nr_groups[g->kind]--;
	mp3_measures_group_put(g->measures, &view);
}

bool __mp3_groups_followed(void)
{
	lockdep_assert_held(&mp3_lock);

	return !list_empty(&mp3_groups);
}

const struct mp3_registrant *__mp3_groups_registrant(u32 target)
{
	struct mp3_group *g;

	lockdep_assert_held(&mp3_lock);

	g = mp3_groups_find(target);
	return g ? &g->registrant : NULL;
}

bool __mp3_groups_remove(u32 target)
{
	struct mp3_group *g;

	lockdep_assert_held(&mp3_lock);

	g = mp3_groups_find(target);
	if (!g)
		return false;
	__mp3_groups_unlink(g);
	call_rcu(&g->rcu, mp3_group_free_rcu);
	return true;
}

void __mp3_groups_remove_all(void)
{
	struct mp3_group *g, *next;

	lockdep_assert_held(&mp3_lock);

	/* One wait for all, not a grace period each. */
	list_for_each_entry_safe(g, next, &mp3_groups, node) {
		__mp3_groups_unlink(g);
		call_rcu(&g->rcu, mp3_group_free_rcu);
	}
	/* The callbacks are module code. */
	rcu_barrier();
}

static bool mp3_group_holds(const struct mp3_group *g, const struct mp3_place *place)
{
	if (g->kind == MP3_GROUP_CGROUP)
		return cgroup_is_descendant(place->cgrp, g->cgrp);
	return !strncmp(place->comm, g->comm, TASK_COMM_LEN) &&
	       (!uid_valid(g->uid) || uid_eq(place->uid, g->uid));
}

/* Whether @g ranks before @best: an administrator's first, then the first added. */
static bool mp3_group_before(const struct mp3_group *g, const struct mp3_group *best)
{
	if (!best)
		return true;
	if (g->registrant.privileged != best->registrant.privileged)
		return g->registrant.privileged;
	return g->order < best->order;
}

/*
 * What holding @g means for @task: *@held set if @g holds @place, *@best
 * replaced if @g ranks before it and its registrant may read @task, which
 * is asked only then (it takes task_lock()).
 */
static void mp3_group_consider(struct mp3_group *g, const struct mp3_place *place,
			       struct task_struct *task, struct mp3_group **best, bool *held)
{
	if (!mp3_group_holds(g, place))
		return;
	*held = true;
	if (mp3_group_before(g, *best) && mp3_registrant_may_read(&g->registrant, task))
		*best = g;
}

bool mp3_groups_target_of(const struct mp3_place *place, struct task_struct *task,
			  struct mp3_joining *joining)
{
	struct mp3_group *g, *best = NULL;
	bool held = false;

	RCU_LOCKDEP_WARN(!rcu_read_lock_held(), "needs rcu_read_lock()");
	*joining = (struct mp3_joining) {};
	/* Every cgroup: a nested one may be an administrator's or readable. */
	list_for_each_entry_rcu(g, &mp3_cgroup_groups, cgroup_node)
		mp3_group_consider(g, place, task, &best, &held);
	hash_for_each_possible_rcu(mp3_comm_groups, g, comm_node, mp3_comm_key(place->comm))
		mp3_group_consider(g, place, task, &best, &held);
	if (best)
		*joining = (struct mp3_joining) {
			.target = best->target,
			.measures = READ_ONCE(best->measures),
			.registrant = &best->registrant,
			.ended = &best->ended,
		};
	return held;
}

bool mp3_groups_privileged_holds(const struct mp3_place *place)
{
	struct mp3_group *g;

	RCU_LOCKDEP_WARN(!rcu_read_lock_held(), "needs rcu_read_lock()");
	list_for_each_entry_rcu(g, &mp3_cgroup_groups, cgroup_node)
		if (g->registrant.privileged && mp3_group_holds(g, place))
			return true;
	hash_for_each_possible_rcu(mp3_comm_groups, g, comm_node, mp3_comm_key(place->comm))
		if (g->registrant.privileged && mp3_group_holds(g, place))
			return true;
	return false;
}

int __mp3_groups_set_measure(u32 target, enum mp3_measure_id id, bool charged)
{
	struct mp3_group_view view;
	struct mp3_group *g;
	int err;

	lockdep_assert_held(&mp3_lock);

	g = mp3_groups_find(target);
	if (!g)
		return charged ? -EINVAL : 0;
	if (charged && g->kind != MP3_GROUP_CGROUP)
		return -EINVAL;
	if (g->measures & MP3_MEASURE(id))
		return charged && !g->charged ? -EBUSY : 0;
	/* The pages' word: "M" or "L" after "S <target> charged" leaves it for the put. */
	if (id == MP3_MEASURE_PAGES)
		g->charged = charged;
	view = mp3_group_view_of(g);
	err = mp3_measures_group_get(id, &view);
	if (!err)
		WRITE_ONCE(g->measures, g->measures | MP3_MEASURE(id));
	else if (id == MP3_MEASURE_PAGES)
		g->charged = false;
	return err;
}

bool mp3_groups_holds(u32 target, const struct mp3_place *place)
{
	struct mp3_group *g;

	RCU_LOCKDEP_WARN(!rcu_read_lock_held() && !lockdep_is_held(&mp3_lock),
			 "needs rcu_read_lock() or mp3_lock");
	list_for_each_entry_rcu(g, &mp3_groups, node, lockdep_is_held(&mp3_lock))
		if (g->target == target)
			return mp3_group_holds(g, place);
	return false;
}
