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
 * Writes "R <pid>" and the words of options (TARGETSFILE_OPT_*, as
 * targetsfile_option_words() gives them): registers pid, its records saying
 * in which mapping each fault was ("maps"), how long its faults took
 * ("latency") and which of its pages went to swap and back ("pages"). 0 or
 * -errno (-EINVAL from a module before version 5 for maps, 8 for latency,
 * 10 for pages; -EPERM: latency and pages are an administrator's;
 * -EOPNOTSUPP: pages on a kernel without memory cgroups).
 */
int procstatus_register(const char *status_file, pid_t pid, unsigned int options);

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
 * the processes of that name; with a uid other than (uid_t)-1, those of
 * that user alone ("P <target> <uid> <comm>\n"). -EINVAL also from a module
 * without names, or, for a user's, before ring version 9.
 */
int procstatus_follow_comm(const char *status_file, const char *comm, uid_t uid,
			   unsigned int target);

/*
 * Writes the command of one option for a target: "M <target>\n" (maps: the
 * records of the target's processes, now and later, say in which mapping
 * each fault was), "L <target>\n" (latency: how long their faults took) or
 * "S <target>\n" (pages: which of their pages went to swap and back; a
 * cgroup's or unit's "S <target> charged\n": its shared memory that none
 * of its processes maps too, where the module has it, version 13).
 * 0 or -errno (-EINVAL from a module that cannot: before version 5 of its
 * ring for M, 8 for L, 10 for S, or built before "M"; -EPERM: not an
 * administrator).
 */
int procstatus_target_option(const char *status_file, unsigned int option, unsigned int target,
			     enum target_kind kind);

/* The same for each of options in turn; 0 or the first error, the options after it not sent. */
int procstatus_target_options(const char *status_file, unsigned int options, unsigned int target,
			      enum target_kind kind);

/* Writes "X <target>\n": unregisters the target's processes and its cgroup; -ENOENT if none. */
int procstatus_untarget(const char *status_file, unsigned int target);

/* Reads every registered PID into *list (pidlist_free() it); 0 or -errno. */
int procstatus_list(const char *status_file, struct pidlist *list);

#endif /* PFPROF_PROCSTATUS_H */
