/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A table of processes by tgid, for readers of the per-process records
 * (pfprofctl top, pfprofd): each process's last known name and counters
 * its user adds up. Open addressing, kept at most half full.
 */
#ifndef PFPROF_PROCTABLE_H
#define PFPROF_PROCTABLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include <linux/mp3.h>

#include "latency.h"
#include "stalls.h"

/*
 * What a major fault in a mapping was, for the few series a process has of
 * them: a swap-in (anonymous memory: heap, stack and the rest), a read from
 * a file, or a swap-in of shared memory (tmpfs, memfd, SysV, shared
 * anonymous).
 */
enum mapping_group { MAPPING_GROUP_ANON, MAPPING_GROUP_FILE, MAPPING_GROUP_SHMEM,
		     MAPPING_GROUPS };

/* The group of a mapping kind (MP3_MAPPING_*); MAPPING_GROUPS for faults not placed. */
enum mapping_group proctable_mapping_group(uint32_t mapping);
/* "anon", "file", "shmem". */
const char *proctable_mapping_group_word(enum mapping_group group);

struct proc_entry {
	pid_t tgid;			/* 0: a free slot */
	char comm[24];			/* "" until a record or /proc names it */
	uint64_t minor, major, cpu_ns;	/* what the user adds up */
	uint64_t stall_us[STALL_KINDS];	/* its waits (ring version 7), added up too */
	uint64_t samples;
	uint64_t major_in[MAPPING_GROUPS];	/* from its faults records */
	bool placed;			/* a faults record came: registered with "maps" */
	/* How long its faults took (ring version 8), added up too. */
	struct latency_hist latency[LATENCY_KINDS];
	bool timed;			/* a latency record came: registered with "latency" */
	uint32_t target;		/* the record's target (targets.h); 0: none */
	bool left;			/* an MP3_RECORD_LEFT record came after its last name */
	unsigned int marks;		/* the user's own flags, kept by sweeps */
};

struct proc_table {
	struct proc_entry *slots;
	size_t cap, used;
};

/* The entry of tgid; NULL if it has none. */
struct proc_entry *proctable_find(const struct proc_table *t, pid_t tgid);
/*
 * The entry of tgid, added if new; NULL without memory. Adding one may move
 * them all: an entry found before is then no longer valid.
 */
struct proc_entry *proctable_find_or_add(struct proc_table *t, pid_t tgid);
void proctable_free(struct proc_table *t);

/*
 * Forgets the processes no counts record came for since the last sweep,
 * unless their marks have one of keep_marks (which are cleared), and
 * zeroes the others' counters: the table holds the live processes only.
 */
void proctable_sweep(struct proc_table *t, unsigned int keep_marks);

/*
 * Whether the process of an entry no record came for lately is still
 * registered: in a ring with MP3_RING_ACTIVE_ONLY, a sleeping process has
 * no records, and it is registered until its MP3_RECORD_LEFT record, or,
 * if that was lost, until it is gone from /proc.
 */
bool proctable_entry_idle(const struct proc_entry *e, bool active_only);

/*
 * Keeps the entries keep() returns true for, which it may also change, and
 * forgets the others. Without memory for the new table it forgets nothing
 * (keep() has still seen every entry) and returns -ENOMEM.
 */
int proctable_retain(struct proc_table *t, bool (*keep)(struct proc_entry *e, void *ctx),
		     void *ctx);

/* Zeroes what the user adds up but samples: for a new round, or a new name's series. */
void proctable_entry_zero(struct proc_entry *e);

/*
 * Applies a record: a name becomes the entry's comm, counts are added to
 * it, a faults record's major faults to its mapping's group, a latency
 * record to its kind's histogram, its target becomes the entry's, and a
 * LEFT record marks it. Returns the process's
 * entry, or NULL without memory. Only for records of a process
 * (mp3ring_record_of_process()).
 */
struct proc_entry *proctable_apply(struct proc_table *t, const struct mp3_proc_record *r);
/* The same, on the entry of r's process, found already. */
void proctable_entry_apply(struct proc_entry *e, const struct mp3_proc_record *r);

/* The entry's comm, from /proc/<tgid>/comm if no record named it ("?" if gone). */
const char *proctable_name(struct proc_entry *e);

#endif /* PFPROF_PROCTABLE_H */
