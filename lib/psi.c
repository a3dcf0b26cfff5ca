// SPDX-License-Identifier: GPL-2.0
#include "psi.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>

int psi_read(const char *path, struct psi_memory *out)
{
	FILE *f = fopen(path, "re");
	char line[256];
	int found = 0;

	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f)) {
		found += sscanf(line, "some avg10=%lf avg60=%*f avg300=%*f total=%" SCNu64,
				&out->some_avg10, &out->some_total_us) == 2;
		found += sscanf(line, "full avg10=%lf avg60=%*f avg300=%*f total=%" SCNu64,
				&out->full_avg10, &out->full_total_us) == 2;
	}
	/* With psi=0 the file exists and reading it fails with EOPNOTSUPP. */
	if (ferror(f))
		found = -errno;
	fclose(f);
	if (found < 0)
		return found;
	return found == 2 ? 0 : -EPROTO;
}

bool psi_cache_refresh(struct psi_cache *c, const char *path, uint64_t now_ns)
{
	if (c->read_ns && now_ns < c->read_ns + PSI_CACHE_NS)
		return false;
	c->read_ns = now_ns ? now_ns : 1;
	c->err = psi_read(path, &c->value);
	return true;
}

const struct psi_memory *psi_cache_value(const struct psi_cache *c)
{
	return c->read_ns && !c->err ? &c->value : NULL;
}
