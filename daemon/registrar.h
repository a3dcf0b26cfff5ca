/* SPDX-License-Identifier: GPL-2.0 */
/* Keeps the processes and trees listed in the targets file registered with the module. */
#ifndef PFPROF_REGISTRAR_H
#define PFPROF_REGISTRAR_H

#include "config.h"
#include "targets.h"

/*
 * Registers every process and tree of targets, the targets file as read
 * now, whose process is alive: again at each reading, so that one refused
 * before is tried again (one registered already is fine; a tree's number is
 * its root's PID); removes those whose process no longer exists from the
 * file; logs each change.
 */
void registrar_apply(const struct pfprof_config *config, const struct target_list *targets);

#endif /* PFPROF_REGISTRAR_H */
