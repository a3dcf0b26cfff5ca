// SPDX-License-Identifier: GPL-2.0
/* lib/privfile: private files among other users' files. */
#include "unit.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "privfile.h"

/*
 * Root's file @path with @mode and group 65534, in a directory everyone may
 * write; then this process is uid and gid 65534. False if not root: only
 * root can make another user's file.
 */
static bool as_nobody_beside_roots_file(const char *path, mode_t mode)
{
	if (geteuid())
		return false;
	unit_write_file(path, "root's\n");
	expect(!chown(path, 0, 65534) && !chmod(path, mode) && !chmod(".", 0777),
	       "chown/chmod: %s", strerror(errno));
	expect(!setresgid(65534, 65534, 65534) && !setresuid(65534, 65534, 65534),
	       "becoming nobody: %s", strerror(errno));
	return true;
}

/*
 * Another user's file that everyone may read (0664, left by an older
 * version, or made by hand) and this process may write but not tighten:
 * written to, it would show everyone what pfprof writes. Before, EPERM from
 * fchmod() was ignored and the file used as it was.
 */
static void test_others_readable_file_refused(void)
{
	int fd;

	if (!as_nobody_beside_roots_file("log", 0664))
		return;
	fd = private_open("log", O_WRONLY | O_APPEND);
	expect(fd == -EPERM, "private_open of root's 0664 file as its group: %d (%s), want -EPERM",
	       fd, fd < 0 ? strerror(-fd) : "opened");
}

/* A file only read (a lock) carries nothing of ours: read whatever its mode. */
static void test_others_file_read(void)
{
	int fd;

	if (!as_nobody_beside_roots_file("pids.lock", 0644))
		return;
	fd = private_open("pids.lock", O_RDONLY);
	expect(fd >= 0, "private_open of root's 0644 file read-only: %s", strerror(-fd));
	close(fd);
}

UNIT_TESTS(UNIT_TEST(others_readable_file_refused), UNIT_TEST(others_file_read));
