/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The kernel's Data Access MONitor through its sysfs interface
 * (docs/design/damon.md): a kdamond per process, each with one "vaddr" context on
 * it and one "stat" scheme over every region, whose tried regions are a
 * snapshot of how often each part of the process's address space was
 * accessed. A kdamond each, not one with many targets: tried regions do
 * not say whose they are. The admin directory is a parameter, so that the
 * unit tests drive a tree of plain files; every function returns 0 or
 * -errno.
 */
#ifndef PFPROF_DAMON_H
#define PFPROF_DAMON_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define DAMON_ADMIN "/sys/kernel/mm/damon/admin"
/* 7.x's damon_stat, whose kdamond (exclusive, on from boot) makes ours EBUSY. */
#define DAMON_STAT_ENABLED "/sys/module/damon_stat/parameters/enabled"

/* How DAMON samples: intervals in microseconds, and the bounds on its regions. */
struct damon_attrs {
	uint64_t sample_us, aggr_us, update_us;
	uint32_t min_regions, max_regions;
};

/* What pfprof asks for: 5 ms samples, 100 ms aggregations, 10 to 1000 regions. */
#define DAMON_ATTRS_DEFAULT { .sample_us = 5000, .aggr_us = 100000, .update_us = 1000000, \
			      .min_regions = 10, .max_regions = 1000 }

/* One region of a snapshot: [start, end), accessed nr_accesses samples of an aggregation. */
struct damon_region {
	uint64_t start, end;
	uint32_t nr_accesses;
	uint32_t age;		/* aggregation intervals without a change */
};

/*
 * Whether the admin directory can take our kdamond: 0, -ENOENT without
 * DAMON's sysfs interface (a kernel without CONFIG_DAMON_SYSFS, such as
 * Debian 12's), -EBUSY if a kdamond of that interface is on (someone
 * else's: never rewritten).
 */
int damon_check(const char *admin);

/*
 * Whether damon_stat's kdamond runs (1), does not (0), or the kernel has
 * no damon_stat (-ENOENT); and turning it on or off.
 */
int damon_stat_enabled(const char *path);
int damon_stat_set(const char *path, int enabled);

/* The most processes one start watches: a kernel thread each, sampling every sample_us. */
#define DAMON_MAX_PROCESSES 32

/*
 * Sets up kdamonds 0 to nr - 1, kdamond n on pids[n], and turns them on;
 * on failure, those turned on are turned off. -EBUSY: another exclusive
 * kdamond runs (damon_stat, damon_reclaim...); -EINVAL: no such process,
 * no or more than DAMON_MAX_PROCESSES of them, or attributes DAMON refuses.
 */
int damon_start(const char *admin, const pid_t *pids, size_t nr, const struct damon_attrs *attrs);

/* Updates a snapshot asks for before it gives up on one with no region. */
#define DAMON_SNAPSHOT_TRIES 4

/*
 * The regions kdamond n's scheme was tried on in the last apply interval, into
 * *regions (free() it) and *count. It blocks about one aggregation
 * interval; up to DAMON_SNAPSHOT_TRIES times that while updates try no
 * region (6.12 when the kdamond falls behind), and *count may then be 0.
 * -ESRCH once the process has exited and the kdamond stopped (EINVAL on
 * 6.12, ECANCELED on 7.x, or success with the state off).
 */
int damon_snapshot(const char *admin, size_t n, struct damon_region **regions, size_t *count);

/*
 * Turns every kdamond of the interface off; one that stopped by itself (its
 * process exited), or that was never made, is fine. The first failure.
 */
int damon_stop(const char *admin);

#endif /* PFPROF_DAMON_H */
