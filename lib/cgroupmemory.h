/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A cgroup v2 directory's memory at one moment: what it holds, its limits,
 * how long its tasks stalled on memory and how many of its evicted pages it
 * faulted back (the kernel's refaults, mm/workingset.c), read from the
 * directory's memory.* files. pfprofd logs it once a second for the targets
 * added with pages (pfprof-memory.log, logformat.h): the thrash timeline's
 * limit, pressure and file refaults.
 */
#ifndef PFPROF_CGROUPMEMORY_H
#define PFPROF_CGROUPMEMORY_H

#include <stdint.h>

/* Each field, in the order of the memory log's columns. */
enum cgroup_memory_field {
	CGMEM_CURRENT,		/* memory.current, bytes */
	CGMEM_MAX,		/* memory.max, bytes; CGROUP_MEMORY_NO_LIMIT for "max" */
	CGMEM_HIGH,		/* memory.high, the same */
	CGMEM_SWAP,		/* memory.swap.current, bytes */
	CGMEM_SOME_US,		/* memory.pressure: some tasks stalled, total us */
	CGMEM_FULL_US,		/* memory.pressure: all tasks stalled, total us */
	CGMEM_REFAULT_ANON,	/* memory.stat workingset_refault_anon, pages since creation */
	CGMEM_REFAULT_FILE,	/* memory.stat workingset_refault_file, the same */
	CGMEM_FIELDS
};

#define CGROUP_MEMORY_NO_LIMIT UINT64_MAX

struct cgroup_memory {
	uint64_t value[CGMEM_FIELDS];
	unsigned int known;	/* 1 << field: read; a file missing or not understood leaves it out */
};

static inline int cgroup_memory_has(const struct cgroup_memory *m, enum cgroup_memory_field f)
{
	return !!(m->known & (1U << f));
}

/* Whether field f is a limit: "max" (CGROUP_MEMORY_NO_LIMIT) is one of its values. */
static inline int cgroup_memory_is_limit(enum cgroup_memory_field f)
{
	return f == CGMEM_MAX || f == CGMEM_HIGH;
}

/*
 * Reads what the directory's files give into m: 0 when it read at least its
 * memory.current, else the -errno of that (-ENOENT: the cgroup is gone, or
 * has no memory controller).
 */
int cgroup_memory_read(const char *cgroup, struct cgroup_memory *m);

/* memory.max's (or memory.high's) text: its bytes, CGROUP_MEMORY_NO_LIMIT for "max". 0 or -EINVAL. */
int cgroup_memory_parse_limit(const char *text, uint64_t *bytes);

/* memory.stat's text: the refault fields it has go into m. */
void cgroup_memory_parse_stat(const char *text, struct cgroup_memory *m);

/* memory.max of the cgroup: 0 or -errno, as cgroup_memory_read() sees it. */
int cgroup_memory_limit(const char *cgroup, uint64_t *bytes);

#endif /* PFPROF_CGROUPMEMORY_H */
