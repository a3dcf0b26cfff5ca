// SPDX-License-Identifier: GPL-2.0
#include "filenames.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

static struct filename *set_of(const struct filenames *f, uint64_t dev, uint64_t inode)
{
	uint64_t key = (inode ^ (dev << 32 | dev >> 32)) * 0x9e3779b97f4a7c15ULL;

	return &f->ways[(key >> 40) % FILENAMES_SETS * FILENAMES_WAYS];
}

/* The cache's ways, made at the first note; false without memory. */
static bool ways_made(struct filenames *f)
{
	struct filename *ways = f->ways;

	if (!ways) {
		ways = calloc(FILENAMES_SETS * FILENAMES_WAYS, sizeof(*ways));
		f->ways = ways;
	}
	return ways;
}

/*
 * gcc 12's -fanalyzer (tests/static.sh) takes the copy stored in a way,
 * at a computed index of f->ways, as leaked, however the store is written.
 * filenames_free() frees it.
 */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wanalyzer-malloc-leak"
void filenames_note(struct filenames *f, uint64_t dev, uint64_t inode, const char *path)
{
	struct filename *set, *way = NULL;
	char *copy;

	if (!inode || !ways_made(f))
		return;
	set = set_of(f, dev, inode);
	for (unsigned int i = 0; i < FILENAMES_WAYS && !way; i++)
		if (set[i].inode == inode && set[i].dev == dev)
			way = &set[i];
	if (way && !strcmp(way->path, path)) {
		way->noted = ++f->clock;
		return;
	}
	copy = strdup(path);
	if (!copy)
		return;
	/* A new file, or one moved (the same inode, another path): the least recent way. */
	if (!way) {
		way = &set[0];
		for (unsigned int i = 1; i < FILENAMES_WAYS; i++)
			if (set[i].noted < way->noted)
				way = &set[i];
	}
	free(way->path);
	*way = (struct filename){ .dev = dev, .inode = inode, .noted = ++f->clock, .path = copy };
}
#pragma GCC diagnostic pop

const char *filenames_find(const struct filenames *f, uint64_t dev, uint64_t inode)
{
	const struct filename *set;

	if (!f->ways || !inode)
		return NULL;
	set = set_of(f, dev, inode);
	for (unsigned int i = 0; i < FILENAMES_WAYS; i++)
		if (set[i].inode == inode && set[i].dev == dev)
			return set[i].path;
	return NULL;
}

void filenames_free(struct filenames *f)
{
	for (size_t i = 0; f->ways && i < FILENAMES_SETS * FILENAMES_WAYS; i++)
		free(f->ways[i].path);
	free(f->ways);
	*f = (struct filenames){ 0 };
}
