/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Who turns delay accounting on for pfprofd (delayacct.h), and says so:
 * pfprofd.service, whose pfprofd may not write /proc/sys, with the one-shot
 * pfprofd --delay-accounting=start and =stop run with full privileges
 * around it; pfprofd itself when it may write the sysctl (root, by hand).
 */
#ifndef PFPROF_DELAYACCT_MODE_H
#define PFPROF_DELAYACCT_MODE_H

#include <stdbool.h>

#include "config.h"

/* pfprofd --delay-accounting=start (start true) or =stop: the exit status. */
int delayacct_command(const struct pfprof_config *config, bool start);

/*
 * At pfprofd's start, once it holds the lock of runtime_dir: turns delay
 * accounting on if the configuration asks for it and this process may
 * write the sysctl, else warns if it is off. True if
 * delayacct_daemon_exit() must restore it when pfprofd stops.
 */
bool delayacct_daemon_start(const struct pfprof_config *config);
void delayacct_daemon_exit(const struct pfprof_config *config);

#endif /* PFPROF_DELAYACCT_MODE_H */
