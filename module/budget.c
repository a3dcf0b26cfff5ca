// SPDX-License-Identifier: GPL-2.0
/*
 * What one user's commands may cost everyone else. A walk over every
 * process ("T", "C", "N") is the costliest command: each user walks one at
 * a time (a walk slot), however many threads it writes from, so that the
 * module's lock, which a walk shares between its batches, has at most one
 * walk of each user waiting for it. Administrators take no slot: no user
 * keeps them waiting.
 *
 * A user is who pays (mp3_payer()).
 */
#include <linux/cred.h>
#include <linux/fs.h>
#include <linux/list.h>
#include <linux/spinlock.h>
#include <linux/wait.h>

#include "internal.h"

/* Protects mp3_walk_slots. */
static DEFINE_SPINLOCK(mp3_walk_slots_lock);
/* The slots taken: one per user at most. */
static LIST_HEAD(mp3_walk_slots);
/* Writers waiting for their user's slot, each woken alone (mp3_walk_waiter_wake()). */
static DECLARE_WAIT_QUEUE_HEAD(mp3_walk_slot_freed);

/* A writer waiting for the walk slot of @payer. */
struct mp3_walk_waiter {
	struct wait_queue_entry wait;
	kuid_t payer;
};

/* Takes @slot if its user has none; does not sleep. */
static bool mp3_walk_slot_claim(struct mp3_walk_slot *slot)
{
	struct mp3_walk_slot *taken;
	bool free = true;

	spin_lock(&mp3_walk_slots_lock);
	list_for_each_entry(taken, &mp3_walk_slots, node) {
		if (uid_eq(taken->payer, slot->payer)) {
			free = false;
			break;
		}
	}
	if (free)
		list_add(&slot->node, &mp3_walk_slots);
	spin_unlock(&mp3_walk_slots_lock);
	return free;
}

/*
 * Wakes a waiter of the user whose slot @key names, and no other: an
 * exclusive waiter it skips does not count, so that one waiter of that user
 * is woken, not every writer of every user, a herd that a user looping on
 * hundreds of threads would have the machine wake at each walk.
 */
static int mp3_walk_waiter_wake(struct wait_queue_entry *wait, unsigned int mode, int sync,
				void *key)
{
	struct mp3_walk_waiter *waiter = container_of(wait, struct mp3_walk_waiter, wait);

	if (!uid_eq(waiter->payer, *(const kuid_t *)key))
		return 0;
	return autoremove_wake_function(wait, mode, sync, key);
}

/*
 * A waiter woken as its slot's only heir and killed at once still takes
 * the slot, should it be free: prepare_to_wait_event() does not fail an
 * exclusive waiter already woken, and the claim comes first. Its user's
 * other waiters are woken when it gives the slot back.
 */
int mp3_walk_slot_take(struct mp3_walk_slot *slot, const struct file *file)
{
	struct mp3_walk_waiter waiter;
	long err = 0;

	INIT_LIST_HEAD(&slot->node);
	if (mp3_file_privileged(file))
		return 0;
	slot->payer = mp3_payer(file->f_cred);
	init_wait_entry(&waiter.wait, WQ_FLAG_EXCLUSIVE);
	waiter.wait.func = mp3_walk_waiter_wake;
	waiter.payer = slot->payer;
	for (;;) {
		long killed = prepare_to_wait_event(&mp3_walk_slot_freed, &waiter.wait,
						    TASK_KILLABLE);

		if (mp3_walk_slot_claim(slot))
			break;
		if (killed) {
			err = killed;
			break;
		}
		schedule();
	}
	finish_wait(&mp3_walk_slot_freed, &waiter.wait);
	return err;
}

void mp3_walk_slot_give_back(struct mp3_walk_slot *slot)
{
	if (list_empty(&slot->node))
		return;
	spin_lock(&mp3_walk_slots_lock);
	list_del_init(&slot->node);
	spin_unlock(&mp3_walk_slots_lock);
	__wake_up(&mp3_walk_slot_freed, TASK_NORMAL, 1, &slot->payer);
}
