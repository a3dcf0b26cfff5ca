/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The paths of the files pfprofd has seen mapped, by device and inode: what
 * names a faults record's file once no process it keeps the maps of maps
 * it (the process gone, its snapshot swept: a server's helpers, workers
 * retired, modules a graceful reload loaded at other addresses). Filled
 * from every /proc/PID/maps pfprofd reads, of the processes it follows
 * only. A bounded cache: FILENAMES_WAYS ways of FILENAMES_SETS sets, the
 * least recently noted way of a set replaced. One device and inode is one
 * file while it exists; a file deleted and its inode number given to
 * another may be named by the old path (docs/design/faults.md).
 */
#ifndef PFPROF_FILENAMES_H
#define PFPROF_FILENAMES_H

#include <stdint.h>

#define FILENAMES_SETS 1024
#define FILENAMES_WAYS 4

struct filename {
	uint64_t dev, inode;	/* inode 0: a free way */
	uint64_t noted;		/* the cache's clock when last noted */
	char *path;
};

struct filenames {
	struct filename *ways;	/* FILENAMES_SETS * FILENAMES_WAYS, made at the first note */
	uint64_t clock;
};

/* The file dev:inode is at path (copied); without memory, nothing. */
void filenames_note(struct filenames *f, uint64_t dev, uint64_t inode, const char *path);

/* The path noted for dev:inode, valid until the next note; NULL if none. */
const char *filenames_find(const struct filenames *f, uint64_t dev, uint64_t inode);

void filenames_free(struct filenames *f);

#endif /* PFPROF_FILENAMES_H */
