/* SPDX-License-Identifier: GPL-2.0 */
/* Reading the targets file (targetsline.h): its PIDs, or its lines' values. */
#ifndef PFPROF_TARGETSREAD_H
#define PFPROF_TARGETSREAD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <sys/types.h>

#include "targetsline.h"

struct pidlist {
	pid_t *pids;
	size_t count;
};

struct targetsfile_values {
	char **values;
	enum targetsfile_kind *kinds;	/* of each value's line */
	size_t count;
};

/* Called for each line that is none of the kinds, a comment nor blank. */
typedef void targetsfile_report_fn(void *ctx, const char *file, unsigned int line,
				   const char *message);

/*
 * Reads path's PIDs into *list (in file order, duplicates removed). A missing
 * file is an empty list. Returns 0 or -errno.
 */
int targetsfile_read_pids(const char *path, struct pidlist *list,
			  targetsfile_report_fn *report, void *ctx);
/* The same for the trees' roots (bad lines are targetsfile_read_pids()'s to report). */
int targetsfile_read_trees(const char *path, struct pidlist *roots);
/* The same for the PIDs of the lines of kind (PID, tree, maps or maps tree), reporting nothing. */
int targetsfile_read_kind(const char *path, enum targetsfile_kind kind, struct pidlist *list);

void pidlist_free(struct pidlist *list);

/*
 * The values of the lines of the kinds in the mask kinds (TARGETSFILE_KIND()), in
 * file order, duplicate lines removed (PIDs as decimal text), in one read;
 * bad lines go to report if not NULL. 0 or -errno.
 */
int targetsfile_read_values(const char *path, unsigned int kinds, struct targetsfile_values *list,
			    targetsfile_report_fn *report, void *ctx);
void targetsfile_values_free(struct targetsfile_values *list);


/* Whether list has the line of kind with that value. */
bool targetsfile_values_hold(const struct targetsfile_values *list, enum targetsfile_kind kind,
			     const char *value);

/* After getline() returned -1: 0 at the end of f, or the error (-errno) that stopped it. */
int targetsfile_read_error(FILE *f);

#endif /* PFPROF_TARGETSREAD_H */
