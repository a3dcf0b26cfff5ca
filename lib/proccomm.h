/* SPDX-License-Identifier: GPL-2.0 */
/* A process's command name, as /proc/PID/comm has it. */
#ifndef PFPROF_PROCCOMM_H
#define PFPROF_PROCCOMM_H

#include <stddef.h>
#include <sys/types.h>

/*
 * pid's command name, without the newline, into comm: 0, or -errno with
 * "?" in comm (-ENOENT: no such process).
 */
int proccomm_read(pid_t pid, char *comm, size_t size);

#endif /* PFPROF_PROCCOMM_H */
