// SPDX-License-Identifier: GPL-2.0
#include "atomicfile.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "privfile.h"

#define TEMP_SUFFIX ".XXXXXX"

int atomic_file_begin(struct atomic_file *f, const char *path)
{
	size_t len = strlen(path);
	int fd;

	if (len + sizeof(TEMP_SUFFIX) > sizeof(f->temp))
		return -ENAMETOOLONG;
	memcpy(f->path, path, len + 1);
	memcpy(f->temp, path, len);
	memcpy(f->temp + len, TEMP_SUFFIX, sizeof(TEMP_SUFFIX));
	fd = mkostemp(f->temp, O_CLOEXEC);
	if (fd < 0)
		return -errno;
	f->out = fdopen(fd, "w");
	if (!f->out) {
		int err = -errno;

		close(fd);
		unlink(f->temp);
		return err;
	}
	return 0;
}

void atomic_file_abort(struct atomic_file *f)
{
	fclose(f->out);
	unlink(f->temp);
}

/* Makes a rename() in path's directory durable. */
static int sync_directory(const char *path)
{
	char dir[PATH_MAX];
	char *slash;
	int fd, err = 0;

	strcpy(dir, path);
	slash = strrchr(dir, '/');
	if (!slash)
		strcpy(dir, ".");
	else if (slash == dir)
		dir[1] = '\0';
	else
		*slash = '\0';
	fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (fsync(fd))
		err = -errno;
	close(fd);
	return err;
}

int atomic_file_commit(struct atomic_file *f, mode_t mode, bool durable)
{
	int err = 0;

	if (fflush(f->out) || fchmod(fileno(f->out), mode) || (durable && fsync(fileno(f->out))))
		err = -errno;
	if (fclose(f->out) && !err)
		err = -errno;
	if (!err && rename(f->temp, f->path))
		err = -errno;
	if (err) {
		unlink(f->temp);
		return err;
	}
	return durable ? sync_directory(f->path) : 0;
}

int atomic_file_commit_private(struct atomic_file *f, bool durable)
{
	int err = private_fix(fileno(f->out), PRIVATE_FILE_MODE);

	if (err) {
		atomic_file_abort(f);
		return err;
	}
	return atomic_file_commit(f, PRIVATE_FILE_MODE, durable);
}
