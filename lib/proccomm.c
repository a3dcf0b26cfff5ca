// SPDX-License-Identifier: GPL-2.0
#include "proccomm.h"
#include "printable.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

int proccomm_read(pid_t pid, char *comm, size_t size)
{
	char path[64];
	int err = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/comm", (int)pid);
	f = fopen(path, "re");
	if (!f || !fgets(comm, (int)size, f)) {
		err = f ? -EIO : -errno;
		snprintf(comm, size, "?");
	}
	comm[strcspn(comm, "\n")] = '\0';
	printable(comm);
	if (f)
		fclose(f);
	return err;
}
