/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The files pfprof writes that show what /dev/mp3 shows (the logs, the
 * targets file, the state, the counters) and their directories: readable by the
 * group pfprof, nobody else (README, "Who may profile whom"). Files get
 * mode 0640 and directories 0750 whatever the umask, and the group pfprof
 * if it exists and the process may give it (root, or a member), else the
 * process's own. A file is never opened through a symbolic link, so that
 * one planted in the directory cannot send a write elsewhere; an existing
 * file with another mode or group (an older version's 0644) is set right
 * by its owner or root, and refused by others if it allows more than 0640.
 */
#ifndef PFPROF_PRIVFILE_H
#define PFPROF_PRIVFILE_H

#include <sys/types.h>

#define PRIVATE_FILE_MODE 0640
#define PRIVATE_DIR_MODE 0750
#define PRIVATE_GROUP "pfprof"

/* The group the private files get (looked up once). */
gid_t private_group(void);

/*
 * Gives the open file or directory fd mode and private_group() where it
 * differs; 0 or -errno. Someone else's file that this process may not
 * change is left as it is if it lets nobody more than mode does, else
 * refused (-EPERM).
 */
int private_fix(int fd, mode_t mode);

/*
 * Opens path with flags (O_RDONLY, O_WRONLY | O_APPEND, O_RDWR | O_TRUNC,
 * ...; O_CREAT, O_NOFOLLOW and O_CLOEXEC are added), creating it if
 * missing, as a private file (private_fix(); opened O_RDONLY, someone
 * else's file is read whatever its mode). The descriptor, or -errno:
 * -ELOOP if path is a symbolic link.
 */
int private_open(const char *path, int flags);

/* Creates the directory path (not its parents) as a private directory; 0 or -errno (-EEXIST). */
int private_mkdir(const char *path);

#endif /* PFPROF_PRIVFILE_H */
