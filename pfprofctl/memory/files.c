// SPDX-License-Identifier: GPL-2.0
#include "files.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "growarray.h"

static bool same_file(const struct refault_file *x, const struct refault_file *key)
{
	return x->target == key->target && x->pid == key->pid && x->dev == key->dev &&
	       x->inode == key->inode;
}

static size_t hash_of(const struct refault_file *key)
{
	uint64_t h = key->inode * 0x9e3779b97f4a7c15ULL;

	h ^= ((uint64_t)key->dev << 32 | key->target) * 0xc2b2ae3d27d4eb4fULL;
	h ^= (uint64_t)key->pid * 0x165667b19e3779f9ULL;
	return (size_t)(h ^ h >> 29);
}

/* The slot of key in f->slots: its file's, or the free one where it goes. */
static size_t *slot_of(const struct refault_files *f, const struct refault_file *key)
{
	size_t i = hash_of(key) & (f->slots_cap - 1);

	while (f->slots[i] && !same_file(&f->files[f->slots[i] - 1], key))
		i = (i + 1) & (f->slots_cap - 1);
	return &f->slots[i];
}

/* Twice the slots, every file hashed again; false without memory. */
static bool slots_grown(struct refault_files *f)
{
	size_t cap = f->slots_cap ? 2 * f->slots_cap : 64, *old = f->slots;

	f->slots = calloc(cap, sizeof(*f->slots));
	if (!f->slots) {
		f->slots = old;
		return false;
	}
	f->slots_cap = cap;
	for (size_t i = 0; i < f->nr; i++)
		*slot_of(f, &f->files[i]) = i + 1;
	free(old);
	return true;
}

/* The index of pg's owner's file in f->files, made if new; -ENOMEM without memory. */
static long file_of(struct refault_files *f, const struct log_page *pg)
{
	const struct refault_file key = { .target = pg->target, .pid = pg->target ? 0 : pg->pid,
					  .dev = pg->file_dev, .inode = pg->inode };
	struct refault_file *grown;
	size_t *slot;

	if (2 * (f->nr + 1) > f->slots_cap && !slots_grown(f))
		return -ENOMEM;
	slot = slot_of(f, &key);
	if (*slot)
		return (long)*slot - 1;
	grown = grow_array(f->files, &f->cap, f->nr, sizeof(*grown), 16);
	if (!grown)
		return -ENOMEM;
	f->files = grown;
	f->files[f->nr] = key;
	*slot = ++f->nr;
	return (long)f->nr - 1;
}

/*
 * The bitmap grown to hold page index, zeroed past what it held, or NULL
 * without memory (the old one kept).
 */
static uint8_t *seen_grown(uint8_t *seen, uint64_t *bytes, uint64_t index)
{
	uint64_t size = *bytes ? *bytes : 64;
	uint8_t *grown;

	while (size <= index / 8)
		size *= 2;
	grown = realloc(seen, size);
	if (grown) {
		memset(grown + *bytes, 0, size - *bytes);
		*bytes = size;
	}
	return grown;
}

/* Page index of x seen; false without memory. */
static bool mark_seen(struct refault_file *x, uint64_t index)
{
	uint8_t *seen = x->seen;

	if (index / 8 >= x->seen_bytes) {
		seen = seen_grown(seen, &x->seen_bytes, index);
		if (!seen)
			return false;
		x->seen = seen;
	}
	if (!(seen[index / 8] & (1u << (index % 8)))) {
		seen[index / 8] |= (uint8_t)(1u << (index % 8));
		x->distinct++;
	}
	return true;
}

int refault_files_add(struct refault_files *f, const struct log_page *pg)
{
	long i = file_of(f, pg);
	struct refault_file *x;
	uint64_t told;

	if (i < 0)
		return (int)i;
	x = &f->files[i];
	x->pages += pg->pages;
	told = pg->offset < FILES_INDEX_MAX ? FILES_INDEX_MAX - pg->offset : 0;
	if (told > pg->pages)
		told = pg->pages;
	if (told > FILES_FOLIO_MAX)
		told = FILES_FOLIO_MAX;
	x->beyond += pg->pages - told;
	for (uint64_t n = 0; n < told; n++)
		if (!mark_seen(x, pg->offset + n))
			return -ENOMEM;
	return 0;
}

static int by_pages(const void *a, const void *b)
{
	const struct refault_file *x = a, *y = b;

	if (x->pages != y->pages)
		return x->pages > y->pages ? -1 : 1;
	return x->inode < y->inode ? -1 : x->inode > y->inode;
}

void refault_files_sort(struct refault_files *f)
{
	if (!f->nr)
		return;
	qsort(f->files, f->nr, sizeof(*f->files), by_pages);
	/* The slots point at files by index: each file's is its new index. */
	memset(f->slots, 0, f->slots_cap * sizeof(*f->slots));
	for (size_t i = 0; i < f->nr; i++)
		*slot_of(f, &f->files[i]) = i + 1;
}

void refault_files_free(struct refault_files *f)
{
	for (size_t i = 0; i < f->nr; i++)
		free(f->files[i].seen);
	free(f->files);
	free(f->slots);
	*f = (struct refault_files){ 0 };
}
