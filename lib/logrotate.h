/* SPDX-License-Identifier: GPL-2.0 */
/*
 * When the current log is rotated, and how: pfprof.log.N moves to .N+1, the
 * current file to .1, and the oldest beyond keep is deleted. pfprofd's logs,
 * and pfprofctl heatmap --record's (any file: logrotate_shift_path()).
 */
#ifndef PFPROF_LOGROTATE_H
#define PFPROF_LOGROTATE_H

#include <stdbool.h>
#include <stdint.h>

#include "logformat.h"

struct logrotate_policy {
	uint64_t size;		/* bytes; 0: never */
	uint64_t age_s;		/* seconds since the file was created; 0: never */
	unsigned int keep;	/* rotated files kept */
};

/* Whether a file created at created_s with size bytes is due; one without samples never is. */
bool logrotate_due(const struct logrotate_policy *p, uint64_t created_s, uint64_t size,
		   bool has_sample, uint64_t now_s);

/* The wall-clock second at which a file created at created_s is due by age; 0: never. */
uint64_t logrotate_due_at(const struct logrotate_policy *p, uint64_t created_s);

/* Moves the file at path out of the way, to path.1 (keep 0: deletes it); 0 or -errno. */
int logrotate_shift_path(const char *path, unsigned int keep);

/* The same, for the current file of a log of kind in dir. */
int logrotate_shift(const char *dir, enum log_kind kind, unsigned int keep);

/*
 * Which files of the log whose current file is path exist, from one read of
 * its directory: present[n] (keep + 1 of them) for path.n, 0 for path
 * itself. So that a reader looking for them costs what there is, not keep
 * lookups. 0 or -errno (-ENOENT: no such directory).
 */
int logrotate_present(const char *path, unsigned int keep, bool *present);

/* The order in which logrotate_each() hands out a log's files. */
enum logrotate_order {
	LOGROTATE_NEWEST_FIRST,		/* the current file, then .1, .2 ... */
	LOGROTATE_OLDEST_FIRST,		/* .keep ... .1, then the current file */
};

/*
 * Calls fn with the path of each file of the log of kind in dir that
 * exists (logrotate_present()), in order, skipping the gaps a crash during
 * rotation leaves. Stops at fn's first non-zero return and returns it; 0
 * once every file was handed out, or -errno (-ENOENT: no such directory).
 * fn may still find a file gone: rotated away since the listing.
 */
int logrotate_each(const char *dir, enum log_kind kind, unsigned int keep,
		   enum logrotate_order order, int (*fn)(const char *path, void *ctx), void *ctx);

#endif /* PFPROF_LOGROTATE_H */
