/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The PID file: what pfprofd keeps registered, one per line: a PID (that
 * process), "maps PID" (that process, its faults placed in its mappings:
 * "R <pid> maps"), "tree PID" (the process and every process it starts), "cgroup
 * PATH" (a cgroup v2 directory), "unit NAME" (a systemd unit) or "comm
 * NAME" (every process of that command name); a target's line may start with
 * "maps" too ("maps unit NAME": its processes' faults placed, "M <target>");
 * '#' comments and blank lines allowed. Changes are made under an exclusive
 * flock() on "<path>.lock" and written atomically (temporary file in the same
 * directory, fsync, rename), keeping comments and every other line as they are.
 */
#ifndef PFPROF_PIDLIST_H
#define PFPROF_PIDLIST_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

/*
 * The kinds of lines; the words before the value are "", "tree", "cgroup",
 * "unit", "comm", "maps", then "maps" and one of the targets' words.
 */
enum pidlist_kind { PIDLIST_PID, PIDLIST_TREE, PIDLIST_CGROUP, PIDLIST_UNIT, PIDLIST_COMM,
		    PIDLIST_MAPS, PIDLIST_MAPS_TREE, PIDLIST_MAPS_CGROUP, PIDLIST_MAPS_UNIT,
		    PIDLIST_MAPS_COMM };

/* A value is one word (no white space, no '#') shorter than this. */
#define PIDLIST_VALUE_MAX 4096

struct pidlist {
	pid_t *pids;
	size_t count;
};

/* pidlist_read_values()'s kinds: a mask of these. */
#define PIDLIST_KIND(kind) (1u << (kind))

struct pidlist_values {
	char **values;
	enum pidlist_kind *kinds;	/* of each value's line */
	size_t count;
};

/* Called for each line that is none of the kinds, a comment nor blank. */
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
/* The same for the PIDs of the lines of kind (PID, tree, maps or maps tree), reporting nothing. */
int pidlist_read_kind(const char *path, enum pidlist_kind kind, struct pidlist *list);

/* Appends the PIDs not yet in the file (creating it and its lock file). */
int pidlist_add(const char *path, const pid_t *pids, size_t count);
int pidlist_add_trees(const char *path, const pid_t *roots, size_t count);

/* Removes every line holding one of these PIDs (trees: roots). A missing file is fine. */
int pidlist_remove(const char *path, const pid_t *pids, size_t count);
int pidlist_remove_trees(const char *path, const pid_t *roots, size_t count);
/* The same for the lines of kind (PID, tree, maps or maps tree). */
int pidlist_edit_pids(const char *path, enum pidlist_kind kind, bool add, const pid_t *pids,
		      size_t count);

/*
 * The same for the lines that "maps" may precede (plain: PID, tree, cgroup,
 * unit or comm): adding with maps writes the line with "maps" and removes
 * the one without; adding without leaves a value that has the line with
 * "maps" as it is; removing removes both.
 */
int pidlist_edit_maps(const char *path, enum pidlist_kind plain, bool maps, bool add,
		      const char *const *values, size_t count);
int pidlist_edit_maps_pids(const char *path, enum pidlist_kind plain, bool maps, bool add,
			   const pid_t *pids, size_t count);

void pidlist_free(struct pidlist *list);

/*
 * The values of the lines of the kinds in the mask kinds (PIDLIST_KIND()), in
 * file order, duplicate lines removed (PIDs as decimal text), in one read;
 * bad lines go to report if not NULL. 0 or -errno.
 */
int pidlist_read_values(const char *path, unsigned int kinds, struct pidlist_values *list,
			pidlist_report_fn *report, void *ctx);
void pidlist_values_free(struct pidlist_values *list);

/*
 * Adds the lines of these values not yet in the file, or removes every line
 * holding one of them. -EINVAL, changing nothing, if a value cannot be a
 * line's (empty, white space, '#', too long, a PID not in decimal).
 */
int pidlist_edit_values(const char *path, enum pidlist_kind kind, bool add,
			const char *const *values, size_t count);

#endif /* PFPROF_PIDLIST_H */
