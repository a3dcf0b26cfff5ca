// SPDX-License-Identifier: GPL-2.0
#include "ownerbudget.h"

#include <stdlib.h>

#include "growarray.h"

void ownerbudget_init(struct ownerbudget *b, uint64_t user_lines)
{
	*b = (struct ownerbudget){ .user_lines = user_lines };
}

void ownerbudget_free(struct ownerbudget *b)
{
	free(b->owners);
	ownerbudget_init(b, b->user_lines);
}

/* The losses of owner, added if new; past OWNERBUDGET_OWNERS_MAX, the others'. NULL: no memory. */
static struct owner_losses *losses_of(struct ownerbudget *b, uint32_t owner)
{
	struct owner_losses *grown;

	/* Few owners flood at once: a linear search costs less than a hash's upkeep. */
	for (size_t i = 0; i < b->nr_owners; i++)
		if (b->owners[i].owner == owner)
			return &b->owners[i];
	if (b->nr_owners >= OWNERBUDGET_OWNERS_MAX && owner != MP3_OWNER_OTHERS)
		return losses_of(b, MP3_OWNER_OTHERS);
	grown = grow_array(b->owners, &b->cap, b->nr_owners, sizeof(*grown), 16);
	if (!grown)
		return NULL;
	b->owners = grown;
	b->owners[b->nr_owners] = (struct owner_losses){ .owner = owner };
	return &b->owners[b->nr_owners++];
}

bool ownerbudget_take_line(struct ownerbudget *b, const struct mp3_proc_record *r,
			   uint64_t second)
{
	struct owner_losses *o;

	if (r->flags & MP3_RECORD_ADMIN)
		return true;
	o = losses_of(b, r->owner);
	if (!o)
		return false;
	if (o->second != second) {
		o->second = second;
		o->lines = 0;
	}
	if (b->second != second) {
		b->second = second;
		b->users_lines = 0;
	}
	if (o->lines < b->user_lines &&
	    b->users_lines < b->user_lines * OWNERBUDGET_USERS_SHARE) {
		o->lines++;
		b->users_lines++;
		return true;
	}
	o->log_dropped++;
	return false;
}

void ownerbudget_add_dropped(struct ownerbudget *b, const struct mp3_proc_record *r)
{
	struct owner_losses *o = losses_of(b, r->owner);

	if (o)
		o->ring_dropped += r->dropped.records;
}
