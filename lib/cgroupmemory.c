// SPDX-License-Identifier: GPL-2.0
#include "cgroupmemory.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "psi.h"

/* memory.stat is about 60 lines of 30 bytes in 6.1, 70 in 7.x. */
#define STAT_TEXT_MAX 8192

/* The file of the cgroup, whole, NUL-terminated: its length or -errno. */
static ssize_t read_text(const char *cgroup, const char *file, char *text, size_t size)
{
	char path[PATH_MAX];
	ssize_t len;
	int fd;

	if (snprintf(path, sizeof(path), "%s/%s", cgroup, file) >= (int)sizeof(path))
		return -ENAMETOOLONG;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	len = read(fd, text, size - 1);
	if (len < 0)
		len = -errno;
	else
		text[len] = '\0';
	close(fd);
	return len;
}

int cgroup_memory_parse_limit(const char *text, uint64_t *bytes)
{
	char *end;

	if (!strcmp(text, "max\n") || !strcmp(text, "max")) {
		*bytes = CGROUP_MEMORY_NO_LIMIT;
		return 0;
	}
	if (*text < '0' || *text > '9')
		return -EINVAL;
	errno = 0;
	*bytes = strtoull(text, &end, 10);
	if (errno || (*end && strcmp(end, "\n")))
		return -EINVAL;
	return 0;
}

/* A one-value file (a number, or "max" where limit allows it) into field f of m. */
static int read_value(const char *cgroup, const char *file, struct cgroup_memory *m,
		      enum cgroup_memory_field f)
{
	char text[32];
	ssize_t len = read_text(cgroup, file, text, sizeof(text));
	int err = len < 0 ? (int)len : cgroup_memory_parse_limit(text, &m->value[f]);

	if (!err && !cgroup_memory_is_limit(f) && m->value[f] == CGROUP_MEMORY_NO_LIMIT)
		err = -EINVAL;
	if (!err)
		m->known |= 1U << f;
	return err;
}

/* The line after line, or NULL at the text's end. */
static const char *next_line(const char *line)
{
	const char *newline = strchr(line, '\n');

	return newline && newline[1] ? newline + 1 : NULL;
}

void cgroup_memory_parse_stat(const char *text, struct cgroup_memory *m)
{
	static const struct {
		const char *key;
		enum cgroup_memory_field field;
	} keys[] = {
		{ "workingset_refault_anon ", CGMEM_REFAULT_ANON },
		{ "workingset_refault_file ", CGMEM_REFAULT_FILE },
	};

	for (const char *line = *text ? text : NULL; line; line = next_line(line))
		for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
			size_t n = strlen(keys[i].key);

			if (!strncmp(line, keys[i].key, n) &&
			    sscanf(line + n, "%" SCNu64, &m->value[keys[i].field]) == 1)
				m->known |= 1U << keys[i].field;
		}
}

int cgroup_memory_read(const char *cgroup, struct cgroup_memory *m)
{
	char stat[STAT_TEXT_MAX];
	struct psi_memory psi;
	int err;

	m->known = 0;
	err = read_value(cgroup, "memory.current", m, CGMEM_CURRENT);
	if (err)
		return err;
	read_value(cgroup, "memory.max", m, CGMEM_MAX);
	read_value(cgroup, "memory.high", m, CGMEM_HIGH);
	read_value(cgroup, "memory.swap.current", m, CGMEM_SWAP);
	if (!psi_read_cgroup(cgroup, &psi)) {
		m->value[CGMEM_SOME_US] = psi.some_total_us;
		m->value[CGMEM_FULL_US] = psi.full_total_us;
		m->known |= 1U << CGMEM_SOME_US | 1U << CGMEM_FULL_US;
	}
	if (read_text(cgroup, "memory.stat", stat, sizeof(stat)) > 0)
		cgroup_memory_parse_stat(stat, m);
	return 0;
}

int cgroup_memory_limit(const char *cgroup, uint64_t *bytes)
{
	struct cgroup_memory m = { 0 };
	int err = read_value(cgroup, "memory.max", &m, CGMEM_MAX);

	if (!err)
		*bytes = m.value[CGMEM_MAX];
	return err;
}
