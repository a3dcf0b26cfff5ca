// SPDX-License-Identifier: GPL-2.0
#include "privfile.h"

#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/*
 * The group's id from /etc/group itself, not through NSS (getgrnam()): the
 * package makes it a system group there, and the programs linked
 * statically (the guests' tests and benchmarks) have no NSS to load.
 */
static bool group_file_id(const char *name, gid_t *gid)
{
	FILE *f = fopen("/etc/group", "re");
	const struct group *g;
	bool found = false;

	if (!f)
		return false;
	while (!found && (g = fgetgrent(f)))
		if (!strcmp(g->gr_name, name)) {
			*gid = g->gr_gid;
			found = true;
		}
	fclose(f);
	return found;
}

gid_t private_group(void)
{
	static bool looked;
	static gid_t gid;
	gid_t found;

	if (looked)
		return gid;
	/* Only root, or a member, may give a file the group. */
	gid = group_file_id(PRIVATE_GROUP, &found) && (!geteuid() || group_member(found)) ?
	      found : getegid();
	looked = true;
	return gid;
}

/*
 * A failed fchown() or fchmod(): EPERM on someone else's file is not ours
 * to fix (pfprofd opening the lock file root's pfprofctl created), and its
 * 0750 directory keeps it from others anyway.
 */
static int fix_error(const struct stat *st)
{
	return errno == EPERM && st->st_uid != geteuid() ? 0 : -errno;
}

int private_fix(int fd, mode_t mode)
{
	gid_t gid = private_group();
	struct stat st;

	if (fstat(fd, &st))
		return -errno;
	/* The group first: chown() may clear set-ID bits, chmod() then sets the mode. */
	if (st.st_gid != gid && fchown(fd, (uid_t)-1, gid))
		return fix_error(&st);
	if ((st.st_mode & 07777) != mode && fchmod(fd, mode))
		return fix_error(&st);
	return 0;
}

int private_open(const char *path, int flags)
{
	int fd = open(path, flags | O_CREAT | O_NOFOLLOW | O_CLOEXEC, PRIVATE_FILE_MODE);
	int err;

	if (fd < 0)
		return -errno;
	err = private_fix(fd, PRIVATE_FILE_MODE);
	if (err) {
		close(fd);
		return err;
	}
	return fd;
}

int private_mkdir(const char *path)
{
	int fd, err;

	if (mkdir(path, PRIVATE_DIR_MODE))
		return -errno;
	fd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	err = private_fix(fd, PRIVATE_DIR_MODE);
	close(fd);
	return err;
}
