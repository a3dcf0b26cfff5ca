// SPDX-License-Identifier: GPL-2.0
#include "procstatus.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

int procstatus_command(const char *status_file, char command, pid_t pid)
{
	char cmd[32];
	int fd, len, err = 0;

	len = snprintf(cmd, sizeof(cmd), "%c %d\n", command, (int)pid);
	fd = open(status_file, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (write(fd, cmd, len) != len)
		err = errno ? -errno : -EIO;
	close(fd);
	return err;
}

int procstatus_list(const char *status_file, pid_t *pids, size_t max)
{
	FILE *f = fopen(status_file, "re");
	size_t n = 0;
	int pid;

	if (!f)
		return -errno;
	while (n < max && fscanf(f, "%d", &pid) == 1)
		pids[n++] = pid;
	fclose(f);
	return (int)n;
}
