/* SPDX-License-Identifier: GPL-2.0 */
/* The module's control file, /proc/mp3/status. */
#ifndef PFPROF_PROCSTATUS_H
#define PFPROF_PROCSTATUS_H

#include <stdint.h>
#include <sys/types.h>

#include "targetsfile.h"

/* Writes "R <pid>\n" or "U <pid>\n" in one write(); 0 or -errno (-EIO: short write). */
int procstatus_command(const char *status_file, char command, pid_t pid);

/* The same without the '\n': "R <pid>" alone, the bytes work(1) documents. */
int procstatus_command_bare(const char *status_file, char command, pid_t pid);

/*
 * Writes "R <pid> maps\n": registers pid, its records saying in which
 * mapping each fault was. 0 or -errno (-EINVAL from a module before
 * version 5).
 */
int procstatus_register_maps(const char *status_file, pid_t pid);

/*
 * Writes "T <pid> <target>\n": registers pid and its tree, present and
 * future descendants, their records marked with target. 0 or -errno
 * (-EINVAL from a module that has no trees: before version 3).
 */
int procstatus_tree(const char *status_file, pid_t pid, unsigned int target);

/*
 * Writes "C <cgroup-id> <target>\n": the target follows the processes of
 * that cgroup v2 directory and below it, now and later, instead of what it
 * followed ("X" first on -EBUSY: a restarted unit). 0 if registered now, 1
 * if it was already, or -errno (-ENOENT: no such cgroup).
 */
int procstatus_follow_cgroup(const char *status_file, uint64_t cgroup_id, unsigned int target);

/*
 * The same for a command name ("N <target> <comm>\n"): the target follows
 * the processes of that name. -EINVAL also from a module without names.
 */
int procstatus_follow_comm(const char *status_file, const char *comm, unsigned int target);

/*
 * Writes "M <target>\n": the records of the target's processes, now and
 * later, say in which mapping each fault was. 0 or -errno (-EINVAL from a
 * module that cannot: before version 5 of its ring, or built before "M").
 */
int procstatus_maps_target(const char *status_file, unsigned int target);

/* Writes "X <target>\n": unregisters the target's processes and its cgroup; -ENOENT if none. */
int procstatus_untarget(const char *status_file, unsigned int target);

/* Reads every registered PID into *list (pidlist_free() it); 0 or -errno. */
int procstatus_list(const char *status_file, struct pidlist *list);

#endif /* PFPROF_PROCSTATUS_H */
