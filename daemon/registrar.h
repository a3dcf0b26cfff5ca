/* SPDX-License-Identifier: GPL-2.0 */
/* Keeps the processes listed in the PID file registered with the module. */
#ifndef PFPROF_REGISTRAR_H
#define PFPROF_REGISTRAR_H

#include "config.h"

/*
 * Registers every listed PID that is alive (one already registered is fine)
 * and removes the PIDs of processes that no longer exist from the file,
 * logging each change. Returns how many listed processes are registered.
 */
int registrar_sync(const struct pfprof_config *config);

#endif /* PFPROF_REGISTRAR_H */
