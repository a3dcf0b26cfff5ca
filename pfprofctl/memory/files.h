/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pfprofctl memory --files: which files each owner read again after
 * reclaim dropped their pages (the pages log's refault lines), and how many
 * of their pages.
 */
#ifndef PFPROF_MEMORYFILES_H
#define PFPROF_MEMORYFILES_H

#include <stdint.h>

#include "logformat.h"

/* One owner's refaults in one file. */
struct refault_file {
	uint32_t target, pid;		/* the owner, as lib/refaults.h numbers it */
	uint32_t dev;			/* makedev(3) of the file's device */
	uint64_t inode;
	uint64_t pages;			/* read again, large folios' pages each */
	uint64_t distinct;		/* of them, pages told apart (below FILES_INDEX_MAX) */
	uint64_t beyond;		/* pages past FILES_INDEX_MAX or FILES_FOLIO_MAX: not told apart */
	uint8_t *seen;			/* a bit per page of the file read again */
	uint64_t seen_bytes;
};

/* Pages a file's bitmap tells apart, at most: 2^28 (1 TiB of 4 KiB pages, 32 MiB of bits). */
#define FILES_INDEX_MAX (1ULL << 28)
/*
 * Pages of one line told apart, at most: a folio's, 1 GiB of 4 KiB pages;
 * a line that says more (not pfprofd's) is counted, its pages not told apart.
 */
#define FILES_FOLIO_MAX (1ULL << 18)

struct refault_files {
	struct refault_file *files;
	size_t nr, cap;
	/* Open addressing over files: index + 1, 0 free; a power of two, at most half full. */
	size_t *slots;
	size_t slots_cap;
};

/* A refault line into its owner's file. 0, or -ENOMEM. */
int refault_files_add(struct refault_files *f, const struct log_page *pg);
/* Sorts the files, most pages first. */
void refault_files_sort(struct refault_files *f);
void refault_files_free(struct refault_files *f);

#endif /* PFPROF_MEMORYFILES_H */
