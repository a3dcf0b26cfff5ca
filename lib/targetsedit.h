/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Changing the targets file (targetsfile.h): under an exclusive flock() on
 * "<path>.lock", written atomically (a temporary file in the same directory,
 * fsync, rename), comments and every other line kept as they are.
 */
#ifndef PFPROF_TARGETSEDIT_H
#define PFPROF_TARGETSEDIT_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "targetsfile.h"

/* Appends the PIDs not yet in the file (creating it and its lock file). */
int targetsfile_add_pids(const char *path, const pid_t *pids, size_t count);
int targetsfile_add_trees(const char *path, const pid_t *roots, size_t count);

/* Removes every line holding one of these PIDs (trees: roots). A missing file is fine. */
int targetsfile_remove_pids(const char *path, const pid_t *pids, size_t count);
int targetsfile_remove_trees(const char *path, const pid_t *roots, size_t count);
/* The same for the lines of kind (PID, tree, maps or maps tree). */
int targetsfile_edit_pids(const char *path, enum targetsfile_kind kind, bool add, const pid_t *pids,
			  size_t count);

/*
 * The same for the lines that "maps" may precede (plain: PID, tree, cgroup,
 * unit or comm): adding with maps writes the line with "maps" and removes
 * the one without; adding without leaves a value that has the line with
 * "maps" as it is; removing removes both.
 */
int targetsfile_edit_maps(const char *path, enum targetsfile_kind plain, bool maps, bool add,
			  const char *const *values, size_t count);
int targetsfile_edit_maps_pids(const char *path, enum targetsfile_kind plain, bool maps, bool add,
			       const pid_t *pids, size_t count);

/*
 * Adds the lines of these values not yet in the file, or removes every line
 * holding one of them. -EINVAL, changing nothing, if a value cannot be a
 * line's (empty, white space, '#', too long, a PID not in decimal).
 */
int targetsfile_edit_values(const char *path, enum targetsfile_kind kind, bool add,
			    const char *const *values, size_t count);

#endif /* PFPROF_TARGETSEDIT_H */
