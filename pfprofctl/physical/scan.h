/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pfprofctl physical's data: every page frame of the machine, read from the
 * kernel's /proc/kpagecgroup (the memory cgroup each page is charged to, by
 * its directory's inode) and /proc/kpageflags (what the page is), summed by
 * owner: the target (a unit or cgroup of the targets file) whose cgroup
 * holds the page's, else the cgroup two levels down ("system.slice/
 * ssh.service"), else no cgroup at all (the kernel's own, free memory).
 * Also where each owner's pages lie, in blocks of frames, for the picture.
 */
#ifndef PFPROF_PHYSICALSCAN_H
#define PFPROF_PHYSICALSCAN_H

#include <stddef.h>
#include <stdint.h>

#include "targets.h"

/* The kinds of page counted apart, by their flags (kernel-page-flags.h). */
enum physical_kind {
	PHYSICAL_ANON,		/* a process's private memory */
	PHYSICAL_FILE,		/* the page cache */
	PHYSICAL_SHMEM,		/* shared memory, tmpfs */
	PHYSICAL_SWAPCACHE,	/* in the swap cache too */
	PHYSICAL_ACTIVE,	/* on an active LRU list */
	PHYSICAL_KINDS
};

struct physical_owner {
	char label[256];
	uint64_t pages, kind[PHYSICAL_KINDS];
};

struct physical_scan {
	struct physical_owner *owners;	/* [0] is the pages of no memory cgroup */
	size_t nr_owners, owners_cap;
	uint64_t frames;		/* page frames read */
	/* Each block of frames_per_block frames: the owner with most pages in it. */
	uint32_t *block_owner;
	size_t nr_blocks, frames_per_block;
};

/* Where the scan reads: the kernel's files and the cgroup2 root (the tests' own). */
struct physical_sources {
	const char *kpagecgroup, *kpageflags, *cgroup_root;
};

extern const struct physical_sources physical_system;

/*
 * Scans every frame of sources, the owners labelled by targets, into s,
 * with blocks of frames_per_block frames. 0, or -errno (-EACCES: the files
 * are root's), with *what the file that failed.
 */
int physical_scan(struct physical_scan *s, const struct physical_sources *sources,
		  const struct target_list *targets, size_t frames_per_block, const char **what);
void physical_scan_free(struct physical_scan *s);

#endif /* PFPROF_PHYSICALSCAN_H */
