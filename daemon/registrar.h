/* SPDX-License-Identifier: GPL-2.0 */
/* Keeps the processes and trees listed in the targets file registered with the module. */
#ifndef PFPROF_REGISTRAR_H
#define PFPROF_REGISTRAR_H

#include "config.h"

/*
 * Registers every listed PID and tree whose process is alive (one already
 * registered is fine; a tree's number is its root's PID) and removes those
 * whose process no longer exists from the file, logging each change.
 * Returns how many listed processes and trees are registered.
 */
int registrar_sync(const struct pfprof_config *config);

#endif /* PFPROF_REGISTRAR_H */
