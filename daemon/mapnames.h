/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Names the mappings that the module's faults records point at: the path and
 * size of the mapping that starts at an address, as /proc/PID/maps said when
 * pfprofd last read it. A process's maps is read again only when a record
 * names a mapping it does not have (or with another inode), and at most once
 * per pass (one drain of the ring): a process that maps and unmaps all the
 * time costs one read per drain, not one per record. A file mapping that a
 * process no longer has (it is gone, or unmapped it before pfprofd looked)
 * takes the name another process's maps gave the same file at the same
 * address, as a forked worker has its parent's, while pfprofd keeps that
 * process's maps, or the path any maps read gave the file (filenames.h);
 * its size stays unknown. A file is its inode on its device
 * (the device from ring version 9 on; before, the inode alone). Once a
 * process left (its MP3_RECORD_LEFT record), its number may be another
 * process's: its maps is not read again, until a process with that number
 * is registered (its MP3_RECORD_COMM record).
 */
#ifndef PFPROF_MAPNAMES_H
#define PFPROF_MAPNAMES_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "filenames.h"

struct mapping_name;
struct maps_snapshot;

struct mapnames {
	const char *proc;		/* "/proc", or a test's directory laid out like it */
	struct filenames files;		/* every file the maps read named */
	struct maps_snapshot *procs;	/* sorted by tgid */
	size_t count, cap;
	uint64_t pass;			/* mapnames_begin_pass() calls */
	uint64_t reads;			/* maps read: a name may be found elsewhere since */
	char fallback[48];		/* a name made from the kind and inode */
};

/* What a lookup found; name stays valid until the next lookup or sweep. */
struct mapping_found {
	const char *name;	/* path, "[heap]", "[anon]", ... (never NULL) */
	uint64_t size;		/* bytes; 0: unknown (the mapping is gone) */
};

/* A new drain of the ring: each process's maps may be read once more. */
void mapnames_begin_pass(struct mapnames *m);

/* The file of a faults record: its inode, and its device (0: not known, before version 9). */
struct mapping_file {
	uint64_t inode;
	uint64_t dev;		/* makedev(), as st_dev */
};

/*
 * Names the mapping of kind (MP3_MAPPING_*) starting at start, of file, in
 * process tgid. Never fails: what /proc cannot tell (a mapping or a
 * process gone, no memory) is named from another process's maps (the same
 * file at that address), or from the kind and inode alone.
 */
struct mapping_found mapnames_lookup(struct mapnames *m, pid_t tgid, uint32_t kind,
				     uint64_t start, const struct mapping_file *file);
/* Process tgid left (MP3_RECORD_LEFT): its maps is not read again. */
void mapnames_process_left(struct mapnames *m, pid_t tgid);
/* A process numbered tgid was named (MP3_RECORD_COMM): one that left is forgotten. */
void mapnames_process_named(struct mapnames *m, pid_t tgid);

/* Forgets the processes no lookup asked about in the last passes passes. */
void mapnames_sweep(struct mapnames *m, uint64_t passes);

void mapnames_free(struct mapnames *m);

#endif /* PFPROF_MAPNAMES_H */
