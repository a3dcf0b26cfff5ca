/* SPDX-License-Identifier: GPL-2.0 */
/* The module's control file, /proc/mp3/status. */
#ifndef PFPROF_PROCSTATUS_H
#define PFPROF_PROCSTATUS_H

#include <stddef.h>
#include <sys/types.h>

/* Writes "R <pid>" or "U <pid>" in one write(); 0 or -errno. */
int procstatus_command(const char *status_file, char command, pid_t pid);

/* Reads the registered PIDs (at most max); their number, or -errno. */
int procstatus_list(const char *status_file, pid_t *pids, size_t max);

#endif /* PFPROF_PROCSTATUS_H */
