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

/*
 * Adds the lines of these values (with options: TARGETSFILE_OPT_*) that the
 * file does not have yet, or removes every line holding one of them. A
 * value keeps one line of kind, whose options are those given and those its
 * lines had (adding never takes an option away: removing does, and adding
 * again): lines of it that lack one give way to the line with all. -EINVAL,
 * changing nothing, if a value cannot be a line's (empty, white space, '#',
 * too long, a PID not in decimal).
 */
int targetsfile_edit_values(const char *path, enum target_kind kind, unsigned int options,
			    bool add, const char *const *values, size_t count);
/*
 * The same for the "comm" lines of one user's processes ("user=USER"; NULL:
 * the lines without): -EINVAL for a user that cannot be a line's, or
 * another kind.
 */
int targetsfile_edit_user_values(const char *path, enum target_kind kind,
				 unsigned int options, const char *user, bool add,
				 const char *const *values, size_t count);
/* The same for the lines of kind PID or tree. */
int targetsfile_edit_pids(const char *path, enum target_kind kind, unsigned int options,
			  bool add, const pid_t *pids, size_t count);

/* Appends the PIDs not yet in the file (creating it and its lock file), without options. */
int targetsfile_add_pids(const char *path, const pid_t *pids, size_t count);
int targetsfile_add_trees(const char *path, const pid_t *roots, size_t count);

/* Removes every line holding one of these PIDs (trees: roots). A missing file is fine. */
int targetsfile_remove_pids(const char *path, const pid_t *pids, size_t count);
int targetsfile_remove_trees(const char *path, const pid_t *roots, size_t count);

#endif /* PFPROF_TARGETSEDIT_H */
