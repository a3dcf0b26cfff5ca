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
 * to fix, and is left alone if it lets nobody more than @mode does (root's
 * run by hand left it 0640 with root's group): what we write reaches nobody
 * else. One that others may read (an older version's 0644) is refused.
 */
static int fix_error(const struct stat *st, mode_t mode)
{
	if (errno != EPERM || st->st_uid == geteuid())
		return -errno;
	return (st->st_mode & 07777 & ~mode) ? -EPERM : 0;
}

static int fix(int fd, mode_t mode, bool only_read)
{
	gid_t gid = private_group();
	struct stat st;
	int err = 0;

	if (fstat(fd, &st))
		return -errno;
	/* The group first: chown() may clear set-ID bits, chmod() then sets the mode. */
	if (st.st_gid != gid && fchown(fd, (uid_t)-1, gid))
		err = fix_error(&st, mode);
	if (!err && (st.st_mode & 07777) != mode && fchmod(fd, mode))
		err = fix_error(&st, mode);
	/* Nothing of ours goes into a file we only read (a lock file). */
	return only_read ? 0 : err;
}

int private_fix(int fd, mode_t mode)
{
	return fix(fd, mode, false);
}

int private_open(const char *path, int flags)
{
	int fd = open(path, flags | O_CREAT | O_NOFOLLOW | O_CLOEXEC, PRIVATE_FILE_MODE);
	int err;

	if (fd < 0)
		return -errno;
	err = fix(fd, PRIVATE_FILE_MODE, (flags & O_ACCMODE) == O_RDONLY);
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
