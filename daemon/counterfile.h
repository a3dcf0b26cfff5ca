/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pfprofd's counters (counters.h) kept across its restarts, in its own
 * state directory: COUNTERFILE_NAME, "key value" lines, replaced atomically.
 * Only pfprofd reads it, at start, to count on from where it stopped, so
 * that no exported counter goes backwards when it restarts.
 */
#ifndef PFPROF_COUNTERFILE_H
#define PFPROF_COUNTERFILE_H

#include <stdbool.h>
#include <stdio.h>

#include "counters.h"

#define COUNTERFILE_NAME "counters"

/* Writes the counters to out. 0 or -errno. */
int counterfile_render(FILE *out, const struct counters *c);

/* Replaces dir/COUNTERFILE_NAME; durable: on disk when it returns. 0 or -errno. */
int counterfile_save(const char *dir, const struct counters *c, bool durable);

/*
 * Sets the counters of an empty *c from dir/COUNTERFILE_NAME; lines it does
 * not know are skipped. 0, or -errno (-ENOENT: no file, nothing to go on from).
 */
int counterfile_load(const char *dir, struct counters *c);

#endif /* PFPROF_COUNTERFILE_H */
