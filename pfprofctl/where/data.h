/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pfprofctl where's data: a process's lines of the faults logs (logformat.h)
 * added up per mapping, newest first, back to a given time; or a target's,
 * added up per mapping of the same kind and name over its processes (every
 * process's copy of a library in one row).
 */
#ifndef PFPROF_WHEREDATA_H
#define PFPROF_WHEREDATA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "latency.h"
#include "logformat.h"

/* The time faults of one kind took, over the lines that know it (logformat.h). */
struct where_time {
	uint64_t ns;			/* summed over those lines */
	uint64_t faults;		/* those lines' faults of the kind: the ones timed */
	bool known;			/* a line knew it */
};

/* One mapping's faults over the lines read (a target's: pid, start and size 0). */
struct where_row {
	pid_t pid;			/* its process */
	char comm[24];			/* the process's name, from its newest line */
	uint32_t mapping;		/* MP3_MAPPING_* */
	uint64_t start, inode;
	uint64_t size;			/* from its newest line; 0: unknown */
	uint64_t minor, major;
	struct where_time time[LATENCY_KINDS];
	char *name;			/* from its newest line */
};

struct where_table {
	pid_t pid;			/* the process whose lines are read; 0: every one */
	uint32_t target;		/* or, if not 0, the target's (pid 0) */
	char comm[24];			/* from the newest line */
	double first_s, last_s;		/* wall-clock seconds of the oldest and newest line */
	uint64_t lines;			/* lines of pid added */
	uint64_t minor, major;		/* summed over the rows */
	struct where_time time[LATENCY_KINDS];
	pid_t *pids;			/* the processes of the lines added, sorted */
	size_t nr_pids, pids_cap;
	struct where_row *rows;		/* in the order first seen, until where_sort() */
	size_t *order;			/* the rows' indexes by mapping, to find them */
	size_t count, cap;
};

/* Adds a line of the table's process to its mapping's row (not after where_sort()); 0 or -ENOMEM. */
int where_add(struct where_table *t, const struct log_fault *l);

/*
 * Adds the lines of t->pid (or t->target) from the faults logs in dir (the current file,
 * then its rotated ones up to keep), newest first, that are at or after
 * since_s (0: all). 0 (a missing file is none, a gap is skipped) or -errno
 * (-EPROTO: a file of that name is not a faults log).
 */
int where_read_logs(struct where_table *t, const char *dir, unsigned int keep, double since_s);

/*
 * Both kinds' time together: false if no line knew either; else *ns and the
 * faults timed (the mean's divisor).
 */
bool where_time_total(const struct where_time time[LATENCY_KINDS], uint64_t *ns,
		      uint64_t *faults);

/* Orders the rows by major faults, then minor, most first. */
void where_sort(struct where_table *t);

void where_table_free(struct where_table *t);

#endif /* PFPROF_WHEREDATA_H */
