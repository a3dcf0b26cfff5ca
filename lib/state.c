// SPDX-License-Identifier: GPL-2.0
#include "state.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <unistd.h>

#include "atomicfile.h"
#include "privfile.h"

#define LOCK_FILE "pfprofd.pid"
#define STATE_FILE "state"

static void path_in(char *buf, size_t size, const char *dir, const char *name)
{
	snprintf(buf, size, "%s/%s", dir, name);
}

int state_write_pid(int lock_fd)
{
	char pid[32];
	int len = snprintf(pid, sizeof(pid), "%d\n", (int)getpid());

	if (ftruncate(lock_fd, 0) || pwrite(lock_fd, pid, len, 0) != len)
		return -errno;
	return 0;
}

int state_lock(const char *runtime_dir, int *lock_fd)
{
	char path[PATH_MAX];
	int fd, err;

	path_in(path, sizeof(path), runtime_dir, LOCK_FILE);
	fd = private_open(path, O_RDWR);
	if (fd < 0)
		return fd;
	err = flock(fd, LOCK_EX | LOCK_NB) ? -errno : state_write_pid(fd);
	if (err) {
		close(fd);
		return err;
	}
	*lock_fd = fd;
	return 0;
}

int state_daemon_pid(const char *runtime_dir, pid_t *pid)
{
	char path[PATH_MAX];
	int fd, err = 0;

	path_in(path, sizeof(path), runtime_dir, LOCK_FILE);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return errno == ENOENT ? -ESRCH : -errno;
	/* A shared lock we can take means nobody holds the exclusive one. */
	if (!flock(fd, LOCK_SH | LOCK_NB)) {
		err = -ESRCH;
	} else if (errno != EWOULDBLOCK) {
		err = -errno;
	} else {
		char buf[32];
		ssize_t n = pread(fd, buf, sizeof(buf) - 1, 0);

		buf[n > 0 ? n : 0] = '\0';
		*pid = (pid_t)atoi(buf);
		if (*pid <= 0)
			err = -ESRCH;
	}
	close(fd);
	return err;
}

int state_write(const char *runtime_dir, const struct pfprof_state *st)
{
	struct atomic_file f;
	char path[PATH_MAX];
	int err;

	path_in(path, sizeof(path), runtime_dir, STATE_FILE);
	err = atomic_file_begin(&f, path);
	if (err)
		return err;
	fprintf(f.out, "pid %d\nload_id %016" PRIx64 "\nhead %" PRIu64 "\nlogged %" PRIu64
		"\nmissed %" PRIu64 "\nqueued %" PRIu64 "\nupdated %" PRIu64
		"\nlog_file %s\nlog_error %s\n",
		(int)st->pid, st->load_id, st->head, st->logged, st->missed, st->queued,
		st->updated_s, st->log_file, st->log_error);
	/* Rewritten every two seconds: not worth a sync. */
	return atomic_file_commit_private(&f, false);
}

/* Copies the rest of a "key value" line, without its newline. */
static void copy_value(char *dst, size_t size, const char *value)
{
	snprintf(dst, size, "%.*s", (int)strcspn(value, "\n"), value);
}

int state_read(const char *runtime_dir, struct pfprof_state *st)
{
	char path[PATH_MAX], *line = NULL;
	size_t cap = 0;
	FILE *f;
	int pid;

	memset(st, 0, sizeof(*st));
	path_in(path, sizeof(path), runtime_dir, STATE_FILE);
	f = fopen(path, "re");
	if (!f)
		return -errno;
	while (getline(&line, &cap, f) > 0) {
		if (sscanf(line, "pid %d", &pid) == 1)
			st->pid = pid;
		sscanf(line, "load_id %" SCNx64, &st->load_id);
		sscanf(line, "head %" SCNu64, &st->head);
		sscanf(line, "logged %" SCNu64, &st->logged);
		sscanf(line, "missed %" SCNu64, &st->missed);
		sscanf(line, "queued %" SCNu64, &st->queued);
		sscanf(line, "updated %" SCNu64, &st->updated_s);
		if (!strncmp(line, "log_file ", 9))
			copy_value(st->log_file, sizeof(st->log_file), line + 9);
		if (!strncmp(line, "log_error ", 10))
			copy_value(st->log_error, sizeof(st->log_error), line + 10);
	}
	free(line);
	fclose(f);
	return 0;
}
