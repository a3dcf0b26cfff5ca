/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A child registered with "maps" that touches pages when told, and the
 * faults records of its samples added up: the fault tests' common ground.
 */
#ifndef PFPROF_GUEST_MAPSCHILD_H
#define PFPROF_GUEST_MAPSCHILD_H

#include "harness.h"

/* What the records of one process say, per kind of record. */
struct fault_sums {
	pid_t tgid;
	uint64_t counts_minor, counts_major;	/* MP3_RECORD_COUNTS */
	uint64_t faults_minor, faults_major;	/* MP3_RECORD_FAULTS, every mapping */
	uint64_t region_minor, region_major;	/* those of the mapping at region_start */
	uint64_t region_start;
	unsigned int unresolved;		/* MP3_MAPPING_UNRESOLVED records */
	uint64_t unresolved_faults;		/* their minor and major faults */
	/*
	 * Faults the module dropped meanwhile (the ring's faults_dropped:
	 * past a CPU's 8192 between two ticks, as when a tick is late), which
	 * no record has; maps_child_records() sets it.
	 */
	uint64_t dropped;
	unsigned int fault_records;
	uint32_t region_kind;
	uint64_t kind_minor[MP3_MAPPING_SHMEM + 1];	/* every mapping's, by kind */
	/* The first records of files: where, which inode, which device they say. */
	struct fault_file { uint64_t start, inode; uint32_t dev; } files[32];
	unsigned int nr_files;
};

/* mp3ring_for_each_record()'s callback: r added to the struct fault_sums ctx if it is its process's. */
void add_fault_record(void *ctx, const struct mp3_proc_record *r);

/* "R <pid> maps", as root; fails the test if refused. */
void register_maps(pid_t pid);

/*
 * Faults exec takes without registers (the arguments and environment
 * written into the new stack through get_user_pages()), at most: the task
 * counts them, no perf event sees them (docs/design/faults.md).
 */
#define EXEC_GUP_FAULTS_MAX 16

/* A child of the faults tests registered with maps, and the ring it is read from. */
struct maps_child {
	pid_t pid;
	int go, back;		/* tells it to go; hears from it */
	int fd;
	struct mp3ring ring;
	uint64_t from;		/* the first sample after its registration */
	uint64_t dropped_from;	/* the ring's faults_dropped at its registration */
};

/*
 * Starts fn as a child (spawn_piped()) and registers it with maps once it
 * has said size bytes into ready (none if ready is NULL); from then on the
 * ring's samples count.
 */
void maps_child_start(struct maps_child *c, void (*fn)(int, int), void *ready,
		      size_t size);

/* Tells the child to go on, with bytes (one or more) it reads. */
void maps_child_go(struct maps_child *c, const char *bytes);

/*
 * The child's counters from /proc, once it sleeps again: after writing to
 * its parent it may still fault on its way to its next wait (the first run
 * of pause()'s code), which the module counts and a read made before would
 * not. Every thread of it, if it has several.
 */
void maps_child_stat(struct maps_child *c, struct proc_stat *st);

/* What the child says back, size bytes into what. */
void maps_child_hear(struct maps_child *c, void *what, size_t size);

/*
 * Adds the child's records from its registration on to sums, three samples
 * from now: faults are placed at the tick after the one that counted them.
 * Returns the end of the samples read.
 */
uint64_t maps_child_records(struct maps_child *c, struct fault_sums *sums);

/* The child killed and reaped, the ring unmapped. */
void maps_child_end(struct maps_child *c);

/*
 * Every fault in a faults record once, but those the module dropped (and
 * counted): as many as the counts records and /proc say.
 */
void expect_all_recorded(const char *test, const struct fault_sums *sums,
			 const struct proc_stat *before, const struct proc_stat *after);

#endif /* PFPROF_GUEST_MAPSCHILD_H */
