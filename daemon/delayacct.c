// SPDX-License-Identifier: GPL-2.0
#include "delayacct.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Said in the marker, for whoever finds it. */
#define MARKER_TEXT "pfprofd turned kernel.task_delayacct on; " \
	"pfprofd --delay-accounting=stop turns it off again\n"

/* Writes "1\n" or "0\n" to the sysctl; 0 or -errno. */
static int write_sysctl(const char *path, bool on)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC);
	ssize_t n;
	int err;

	if (fd < 0)
		return -errno;
	n = write(fd, on ? "1\n" : "0\n", 2);
	err = n == 2 ? 0 : n < 0 ? -errno : -EIO;
	if (close(fd) && !err)
		err = -errno;
	return err;
}

/* A new file: whatever appeared at path since (a FIFO would block the open) is refused. */
static int make_marker(const char *path)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
	ssize_t n;
	int err;

	if (fd < 0)
		return -errno;
	n = write(fd, MARKER_TEXT, strlen(MARKER_TEXT));
	err = n == (ssize_t)strlen(MARKER_TEXT) ? 0 : n < 0 ? -errno : -EIO;
	if (close(fd) && !err)
		err = -errno;
	if (err)
		unlink(path);
	return err;
}

/*
 * Whether the marker exists: 1, 0, or -errno; -EINVAL if something else
 * is there (a FIFO, a directory, a symbolic link), which pfprofd did not make.
 */
static int marker_exists(const char *path)
{
	struct stat st;

	if (lstat(path, &st))
		return errno == ENOENT ? 0 : -errno;
	return S_ISREG(st.st_mode) ? 1 : -EINVAL;
}

/* err (-errno), after setting *failed to path. */
static int failure(int err, const char *path, const char **failed)
{
	*failed = path;
	return err;
}

int delayacct_start(const char *sysctl, const char *marker, const char **failed)
{
	int ours = marker_exists(marker), on, err;

	*failed = NULL;
	if (ours < 0)
		return failure(ours, marker, failed);
	on = delayacct_read(sysctl);
	if (on < 0)
		return failure(on, sysctl, failed);
	if (on)
		return ours ? DELAYACCT_STILL_OURS : DELAYACCT_WAS_ON;
	/* The marker first: a crash before the write leaves it, and the next stop writes 0 again. */
	if (!ours) {
		err = make_marker(marker);
		if (err)
			return failure(err, marker, failed);
	}
	err = write_sysctl(sysctl, true);
	if (err) {
		if (!ours)
			unlink(marker);
		return failure(err, sysctl, failed);
	}
	return ours ? DELAYACCT_STILL_OURS : DELAYACCT_TURNED_ON;
}

int delayacct_stop(const char *sysctl, const char *marker, const char **failed)
{
	int ours = marker_exists(marker), err;

	*failed = NULL;
	if (ours < 0)
		return failure(ours, marker, failed);
	if (!ours)
		return DELAYACCT_NOT_OURS;
	/* The marker last: if the write fails, a later stop tries again. */
	err = write_sysctl(sysctl, false);
	if (err)
		return failure(err, sysctl, failed);
	if (unlink(marker) && errno != ENOENT)
		return failure(-errno, marker, failed);
	return DELAYACCT_TURNED_OFF;
}
