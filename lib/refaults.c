// SPDX-License-Identifier: GPL-2.0
#include "refaults.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "growarray.h"

/* The slot table grows at half full: probes stay short. */
#define SLOTS_FIRST 1024

void refaults_init(struct refault_replay *r, uint64_t from_ns, uint64_t to_ns)
{
	*r = (struct refault_replay){ .from_ns = from_ns, .to_ns = to_ns };
}

void refaults_free(struct refault_replay *r)
{
	for (size_t i = 0; i < r->nr_owners; i++)
		free(r->owners[i].refaults);
	free(r->owners);
	free(r->slots);
	refaults_init(r, 0, 0);
}

static uint64_t slot_key(uint32_t device, uint64_t offset)
{
	/* Offset 0 is a swap area's header, never a page's slot: key 0 is free. */
	return (uint64_t)device << 48 | (offset & ((1ULL << 48) - 1));
}

#define FILE_KEY (1ULL << 63)

/* splitmix64's finalizer: every bit of x moves half the bits of the result. */
static uint64_t mix(uint64_t x)
{
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
	return x ^ (x >> 31);
}

/* A file's page: bit 63, above any swap area's (MAX_SWAPFILES is 32), never 0. */
static uint64_t file_key(uint32_t file_dev, uint64_t inode, uint64_t index)
{
	return FILE_KEY | mix(mix(mix(file_dev) ^ inode) ^ index);
}

/* The key of pg's page @i: its slot, or its file's page. */
static uint64_t page_key(const struct log_page *pg, uint32_t i)
{
	if (logformat_file_event(pg->event))
		return file_key(pg->file_dev, pg->inode, pg->offset + i);
	return slot_key(pg->device, pg->offset + i);
}

static size_t slot_home(const struct refault_replay *r, uint64_t key)
{
	/* Fibonacci hashing: consecutive offsets spread over the table. */
	return (size_t)((key * 0x9e3779b97f4a7c15ULL) >> 32) & (r->slots_cap - 1);
}

/* The slot holding key, or the free one where it would go. */
static struct refault_slot *slot_find(const struct refault_replay *r, uint64_t key)
{
	size_t i = slot_home(r, key);

	while (r->slots[i].key && r->slots[i].key != key)
		i = (i + 1) & (r->slots_cap - 1);
	return &r->slots[i];
}

static int slots_grow(struct refault_replay *r)
{
	size_t cap = r->slots_cap ? 2 * r->slots_cap : SLOTS_FIRST;
	struct refault_slot *old = r->slots, *grown = calloc(cap, sizeof(*grown));
	size_t old_cap = r->slots_cap;

	if (!grown)
		return -ENOMEM;
	r->slots = grown;
	r->slots_cap = cap;
	for (size_t i = 0; i < old_cap; i++)
		if (old[i].key)
			*slot_find(r, old[i].key) = old[i];
	free(old);
	return 0;
}

/* Takes key out, moving back the entries after it that probed past it. */
static void slot_remove(struct refault_replay *r, const struct refault_slot *s)
{
	size_t hole = (size_t)(s - r->slots), mask = r->slots_cap - 1;

	r->nr_slots--;
	r->nr_file_slots -= (s->key & FILE_KEY) != 0;
	for (size_t i = (hole + 1) & mask; r->slots[i].key; i = (i + 1) & mask) {
		size_t home = slot_home(r, r->slots[i].key);

		/* It may fill the hole if its home is not in (hole, i]. */
		if (((i - home) & mask) >= ((i - hole) & mask)) {
			r->slots[hole] = r->slots[i];
			hole = i;
		}
	}
	r->slots[hole].key = 0;
}

static struct refault_owner *owner_of(struct refault_replay *r, const struct log_page *pg,
				      uint32_t *index)
{
	uint32_t pid = pg->target ? 0 : pg->pid;
	struct refault_owner *grown;
	size_t i;

	for (i = 0; i < r->nr_owners; i++)
		if (r->owners[i].target == pg->target && r->owners[i].pid == pid)
			break;
	if (i == r->nr_owners) {
		grown = grow_array(r->owners, &r->owners_cap, r->nr_owners, sizeof(*grown), 16);
		if (!grown)
			return NULL;
		r->owners = grown;
		r->owners[r->nr_owners++] = (struct refault_owner){ .target = pg->target,
								    .pid = pid };
	}
	snprintf(r->owners[i].comm, sizeof(r->owners[i].comm), "%s", pg->comm ? pg->comm : "");
	*index = (uint32_t)i;
	return &r->owners[i];
}

static bool in_window(const struct refault_replay *r, uint64_t ns)
{
	return ns >= r->from_ns && ns <= r->to_ns;
}

/* The replay's clock for owner o at event pg (o's own clock already moved by it). */
static uint64_t clock_at(const struct refault_replay *r, const struct refault_owner *o,
			 const struct log_page *pg)
{
	return r->machine_clock ? pg->sys_pswpout : o->evicted;
}

/*
 * Whether a page not out yet may be remembered: below slots_max, and a
 * file's below half of it. Most evicted file pages are never read again,
 * and would otherwise take the room of the swap-outs, whose pages all come
 * back.
 */
static bool room_for(const struct refault_replay *r, uint64_t key)
{
	if (!r->slots_max)
		return true;
	return r->nr_slots < r->slots_max &&
	       (!(key & FILE_KEY) || r->nr_file_slots < r->slots_max / 2);
}

/* A swap-out or eviction: each page of it remembers its owner's clock after it went. */
static int add_out(struct refault_replay *r, struct refault_owner *o, uint32_t owner,
		   const struct log_page *pg)
{
	o->evicted += pg->pages;
	if (in_window(r, pg->wall_ns) && pg->event == LOGFORMAT_FILE_EVICT)
		o->file_evicted_pages += pg->pages;
	else if (in_window(r, pg->wall_ns))
		o->out_pages += pg->pages;
	for (uint32_t i = 0; i < pg->pages; i++) {
		uint64_t key = page_key(pg, i);
		struct refault_slot *s;

		if (2 * (r->nr_slots + 1) > r->slots_cap && slots_grow(r))
			return -ENOMEM;
		s = slot_find(r, key);
		if (!s->key && !room_for(r, key)) {
			r->untracked++;
			continue;
		}
		r->nr_slots += !s->key;
		r->nr_file_slots += !s->key && (key & FILE_KEY);
		*s = (struct refault_slot){ .key = key, .evicted = clock_at(r, o, pg),
					    .out_ns = pg->wall_ns, .owner = owner };
	}
	return 0;
}

/* pg's pages back: their slots or file pages forgotten. */
static void forget_pages(struct refault_replay *r, const struct log_page *pg)
{
	for (uint32_t i = 0; i < pg->pages && r->slots_cap; i++) {
		struct refault_slot *s = slot_find(r, page_key(pg, i));

		if (s->key)
			slot_remove(r, s);
	}
}

/* Whether the clock was read at both ends: the machine's is missing from format 1 lines. */
static bool clock_known(const struct refault_replay *r, const struct refault_slot *s,
			const struct log_page *pg)
{
	return !r->machine_clock || (s->evicted != LOGFORMAT_COUNT_UNKNOWN &&
				     pg->sys_pswpout != LOGFORMAT_COUNT_UNKNOWN);
}

/* A page read back, kept by the owner that sent it out (or given to the sink): on its clock. */
static int keep_refault(struct refault_replay *r, const struct refault_slot *s,
			const struct log_page *pg)
{
	struct refault_owner *o = &r->owners[s->owner];
	uint64_t now = clock_at(r, o, pg);
	const struct refault rf = {
		.distance = now > s->evicted ? now - s->evicted : 0,
		.at_ns = pg->wall_ns,
		.away_ns = pg->wall_ns > s->out_ns ? pg->wall_ns - s->out_ns : 0,
		.pages = pg->pages,
	};
	struct refault *grown;

	if (r->sink) {
		r->sink(r->sink_ctx, o, &rf);
		return 0;
	}
	grown = grow_array(o->refaults, &o->refaults_cap, o->nr_refaults, sizeof(*grown), 64);
	if (!grown)
		return -ENOMEM;
	o->refaults = grown;
	o->refaults[o->nr_refaults++] = rf;
	return 0;
}

/* A swap-in: the page is back; read from swap, it is a refault at its distance. */
static int add_in(struct refault_replay *r, struct refault_owner *o, const struct log_page *pg)
{
	bool read = pg->event & MP3_SWAP_READ, counted = in_window(r, pg->wall_ns);
	struct refault_slot *s = r->slots_cap ?
		slot_find(r, slot_key(pg->device, pg->offset)) : NULL;
	int err = 0;

	if (counted && read) {
		o->read_pages += pg->pages;
		o->stall_ns += pg->stall_ns;
	} else if (counted) {
		o->in_pages += pg->pages;
		o->stall_ns += pg->stall_ns;
	}
	if (!s || !s->key) {
		o->unmatched += counted && read ? pg->pages : 0;
		return 0;
	}
	if (counted)
		o->back_pages += pg->pages;
	if (counted && read && !clock_known(r, s, pg))
		o->unmatched += pg->pages;
	else if (counted && read)
		err = keep_refault(r, s, pg);
	forget_pages(r, pg);
	return err;
}

/*
 * A file's page read again: a refault at its distance if its eviction was
 * replayed (its first page's), counted without one otherwise, and on the
 * machine's clock, which counts pages written to swap and no file's.
 */
static int add_file_refault(struct refault_replay *r, struct refault_owner *o,
			    const struct log_page *pg)
{
	bool counted = in_window(r, pg->wall_ns);
	struct refault_slot *s = r->slots_cap ? slot_find(r, page_key(pg, 0)) : NULL;
	int err = 0;

	o->file_refault_pages += counted ? pg->pages : 0;
	if (!s || !s->key || r->machine_clock)
		o->file_unmatched += counted ? pg->pages : 0;
	else if (counted)
		err = keep_refault(r, s, pg);
	forget_pages(r, pg);
	return err;
}

int refaults_add(struct refault_replay *r, const struct log_page *pg)
{
	uint32_t index;
	struct refault_owner *o = owner_of(r, pg, &index);

	if (!o)
		return -ENOMEM;
	if (pg->event == LOGFORMAT_FILE_REFAULT)
		return add_file_refault(r, o, pg);
	if (pg->event == MP3_SWAP_OUT || pg->event == LOGFORMAT_FILE_EVICT)
		return add_out(r, o, index, pg);
	return add_in(r, o, pg);
}

void refaults_for_each_out(const struct refault_replay *r,
			   void (*fn)(const struct refault_slot *s, void *ctx), void *ctx)
{
	for (size_t i = 0; i < r->slots_cap; i++)
		if (r->slots[i].key && !(r->slots[i].key & FILE_KEY))
			fn(&r->slots[i], ctx);
}

static int by_distance(const void *a, const void *b)
{
	const struct refault *x = a, *y = b;

	return x->distance < y->distance ? -1 : x->distance > y->distance;
}

static int by_away(const void *a, const void *b)
{
	const struct refault *x = a, *y = b;

	return x->away_ns < y->away_ns ? -1 : x->away_ns > y->away_ns;
}

/* The pages of o's refaults: what their shares are of. */
static uint64_t total_pages(const struct refault_owner *o)
{
	uint64_t total = 0;

	for (size_t i = 0; i < o->nr_refaults; i++)
		total += o->refaults[i].pages;
	return total;
}

/*
 * From refault at (with seen pages before it), along o's sorted refaults to
 * the first with which target pages (weighted) are reached.
 */
static size_t reach(const struct refault_owner *o, size_t at, uint64_t *seen, double target)
{
	while (at + 1 < o->nr_refaults && (double)(*seen + o->refaults[at].pages) < target)
		*seen += o->refaults[at++].pages;
	return at;
}

/* The refault at which share of the pages lies, sorted by cmp; NULL without refaults. */
static const struct refault *quantile(struct refault_owner *o, double share,
				      int (*cmp)(const void *, const void *))
{
	uint64_t seen = 0;

	if (!o->nr_refaults)
		return NULL;
	qsort(o->refaults, o->nr_refaults, sizeof(*o->refaults), cmp);
	return &o->refaults[reach(o, 0, &seen, share * (double)total_pages(o))];
}

void refaults_curve(struct refault_owner *o, size_t points, uint64_t *distance)
{
	uint64_t total, seen = 0;
	size_t at = 0;

	memset(distance, 0, points * sizeof(*distance));
	if (!o->nr_refaults)
		return;
	qsort(o->refaults, o->nr_refaults, sizeof(*o->refaults), by_distance);
	total = total_pages(o);
	for (size_t p = 0; p < points; p++) {
		at = reach(o, at, &seen, (double)(p + 1) / (double)points * (double)total);
		distance[p] = o->refaults[at].distance;
	}
}

uint64_t refaults_extra(struct refault_owner *o, double share)
{
	const struct refault *at = quantile(o, share, by_distance);

	return at ? at->distance : 0;
}

uint64_t refaults_median_away(struct refault_owner *o)
{
	const struct refault *at = quantile(o, 0.5, by_away);

	return at ? at->away_ns : 0;
}
