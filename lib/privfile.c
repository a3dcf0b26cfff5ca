// SPDX-License-Identifier: GPL-2.0
#include "privfile.h"

#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <stdbool.h>
#include <sys/stat.h>
#include <unistd.h>

gid_t private_group(void)
{
	static bool looked;
	static gid_t gid;
	const struct group *g;

	if (looked)
		return gid;
	g = getgrnam(PRIVATE_GROUP);
	/* Only root, or a member, may give a file the group. */
	gid = g && (!geteuid() || group_member(g->gr_gid)) ? g->gr_gid : getegid();
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
