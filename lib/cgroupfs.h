/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Cgroup v2 directories and systemd units as targets: checking a path given
 * by a user or a config file, a cgroup's id (what the module's "C" command
 * takes) and where a unit's cgroup is.
 *
 * Units are found as systemd places them: a unit's cgroup is a directory of
 * the unit's name in a slice's directory ("system.slice/nginx.service",
 * "user.slice/user-1000.slice"), created when the unit starts and removed
 * when it stops; only system units are looked for (not those of a user's
 * own systemd, below user@UID.service).
 */
#ifndef PFPROF_CGROUPFS_H
#define PFPROF_CGROUPFS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define CGROUPFS_ROOT "/sys/fs/cgroup"

/*
 * Checks that path names a directory below root as it is: absolute, without
 * symbolic links, "." or ".." components or doubled slashes. Returns 0 or
 * -errno with *why saying what is wrong: -EINVAL (outside root, or not in
 * that form), -ELOOP (a symbolic link on the way), -ENOENT, -ENOTDIR.
 */
int cgroupfs_check_path(const char *root, const char *path, const char **why);

/*
 * The id of the cgroup v2 directory at path (its inode number, which is what
 * the kernel's cgroup ids are); -ENOTSUP if path is not on a cgroup2 file
 * system, or -errno.
 */
int cgroupfs_id(const char *path, uint64_t *id);

/*
 * Checks a unit's name as systemd spells them: letters, digits and ":-_.\@",
 * at most 255 bytes, ending in ".service", ".scope" or ".slice" (the units
 * that have a cgroup). 0 or -EINVAL with *why.
 */
int cgroupfs_check_unit_name(const char *name, const char **why);

/* The unit's cgroup below root now, into path; -ENOENT if it has none (not running). */
int cgroupfs_find_unit(const char *root, const char *name, char *path, size_t size);

/*
 * The directory a unit's cgroup appears in when it starts, as systemd places
 * units by default: a slice in its parent slice ("a-b.slice" in
 * "a.slice/"), any other unit in "system.slice/". -ENAMETOOLONG or 0.
 */
int cgroupfs_unit_parent(const char *root, const char *name, char *path, size_t size);

/*
 * The cgroup v2 directory of process pid now (its /proc/PID/cgroup "0::"
 * line below CGROUPFS_ROOT), into path. 0, -ENOENT (no such line), or -errno
 * (-ESRCH as ENOENT of /proc/PID: the process is gone).
 */
int cgroupfs_of_process(pid_t pid, char *path, size_t size);

/* Whether systemd has a unit file of that name (or its template) in its system directories. */
bool cgroupfs_unit_file_exists(const char *name);

#endif /* PFPROF_CGROUPFS_H */
