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
static DECLARE_WAIT_QUEUE_HEAD(mp3_walk_slot_freed);

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

int mp3_walk_slot_take(struct mp3_walk_slot *slot, const struct file *file)
{
	INIT_LIST_HEAD(&slot->node);
	if (mp3_file_privileged(file))
		return 0;
	slot->payer = mp3_payer(file->f_cred);
	return wait_event_killable(mp3_walk_slot_freed, mp3_walk_slot_claim(slot));
}

void mp3_walk_slot_give_back(struct mp3_walk_slot *slot)
{
	if (list_empty(&slot->node))
		return;
	spin_lock(&mp3_walk_slots_lock);
	list_del_init(&slot->node);
	spin_unlock(&mp3_walk_slots_lock);
	/* Its user's other writers wait among the others': all look again. */
	wake_up_all(&mp3_walk_slot_freed);
}
