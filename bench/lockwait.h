/* SPDX-License-Identifier: GPL-2.0 */
#ifndef PFPROF_LOCKWAIT_H
#define PFPROF_LOCKWAIT_H

/*
 * lockwait threads|chain N: how long one registration holds the module's
 * lock, and what waits behind it: "R <pid> maps" of a process of N
 * threads, or "T" of a chain of N processes (each the child of the one
 * before). Prints the registration's time, the longest read of
 * /proc/mp3/status meanwhile and the longest gap between two samples.
 */
int cmd_lockwait(const char *kind, unsigned long n);

#endif
