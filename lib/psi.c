// SPDX-License-Identifier: GPL-2.0
#include "psi.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

int psi_parse(const char *text, struct psi_memory *out)
{
	struct psi_memory m;
	const char *full = strstr(text, "full ");

	if (strncmp(text, "some ", 5) || !full ||
	    sscanf(text, "some avg10=%lf avg60=%*f avg300=%*f total=%" SCNu64,
		   &m.some_avg10, &m.some_total_us) != 2 ||
	    sscanf(full, "full avg10=%lf avg60=%*f avg300=%*f total=%" SCNu64,
		   &m.full_avg10, &m.full_total_us) != 2)
		return -EPROTO;
	*out = m;
	return 0;
}

/* Reads the open file from offset 0: the kernel formats it afresh for each read. */
static int psi_read_fd(int fd, struct psi_memory *out)
{
	char text[256];
	ssize_t len = pread(fd, text, sizeof(text) - 1, 0);

	/* With psi=0 the file exists and reading it fails with EOPNOTSUPP. */
	if (len < 0)
		return -errno;
	text[len] = '\0';
	return psi_parse(text, out);
}

int psi_read(const char *path, struct psi_memory *out)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC), err;

	if (fd < 0)
		return -errno;
	err = psi_read_fd(fd, out);
	close(fd);
	return err;
}

int psi_read_cgroup(const char *cgroup, struct psi_memory *out)
{
	char path[PATH_MAX];
	int len = snprintf(path, sizeof(path), "%s/memory.pressure", cgroup);

	if (len < 0 || (size_t)len >= sizeof(path))
		return -ENAMETOOLONG;
	return psi_read(path, out);
}

void psi_cache_close(struct psi_cache *c)
{
	if (c->fd >= 0)
		close(c->fd);
	c->fd = -1;
}

/* A reading through the file kept open; closed after an error reading it. */
static int psi_reread(struct psi_cache *c, const char *path)
{
	int err;

	if (c->fd < 0) {
		c->fd = open(path, O_RDONLY | O_CLOEXEC);
		if (c->fd < 0)
			return -errno;
	}
	err = psi_read_fd(c->fd, &c->value);
	if (err && err != -EPROTO)
		psi_cache_close(c);
	return err;
}

bool psi_cache_refresh(struct psi_cache *c, const char *path, uint64_t now_ns)
{
	if (c->read_ns && now_ns < c->read_ns + PSI_CACHE_NS)
		return false;
	c->read_ns = now_ns ? now_ns : 1;
	c->err = psi_reread(c, path);
	return true;
}

const struct psi_memory *psi_cache_value(const struct psi_cache *c)
{
	return c->read_ns && !c->err ? &c->value : NULL;
}
