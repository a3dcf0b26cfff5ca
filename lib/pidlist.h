/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The PID file: the processes pfprofd keeps registered, one PID per line,
 * and the process trees, "tree" and the root's PID per line ("tree 1234":
 * the process and every process it starts); '#' comments and blank lines
 * allowed. Changes are made under an exclusive
 * flock() on "<path>.lock" and written atomically (temporary file in the same
 * directory, fsync, rename), keeping comments and every other line as they are.
 */
#ifndef PFPROF_PIDLIST_H
#define PFPROF_PIDLIST_H

#include <stddef.h>
#include <sys/types.h>

struct pidlist {
	pid_t *pids;
	size_t count;
};

/* Called for each line that is neither a PID, a tree, a comment nor blank. */
typedef void pidlist_report_fn(void *ctx, const char *file, unsigned int line,
			       const char *message);

/*
 * Reads path's PIDs into *list (in file order, duplicates removed). A missing
 * file is an empty list. Returns 0 or -errno.
 */
int pidlist_read(const char *path, struct pidlist *list,
		 pidlist_report_fn *report, void *ctx);
/* The same for the trees' roots (bad lines are pidlist_read()'s to report). */
int pidlist_read_trees(const char *path, struct pidlist *roots);

/* Appends the PIDs not yet in the file (creating it and its lock file). */
int pidlist_add(const char *path, const pid_t *pids, size_t count);
int pidlist_add_trees(const char *path, const pid_t *roots, size_t count);

/* Removes every line holding one of these PIDs (trees: roots). A missing file is fine. */
int pidlist_remove(const char *path, const pid_t *pids, size_t count);
int pidlist_remove_trees(const char *path, const pid_t *roots, size_t count);

void pidlist_free(struct pidlist *list);

#endif /* PFPROF_PIDLIST_H */
