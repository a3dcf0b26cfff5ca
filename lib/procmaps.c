// SPDX-License-Identifier: GPL-2.0
#include "procmaps.h"

#include <stdio.h>
#include <string.h>
#include <sys/sysmacros.h>

bool procmaps_parse_line(const char *line, struct procmaps_line *out)
{
	unsigned long long start, end, inode;
	unsigned int major, minor;
	int name_at = 0;

	if (sscanf(line, "%llx-%llx %*s %*s %x:%x %llu %n", &start, &end, &major, &minor, &inode,
		   &name_at) != 5 || !name_at)
		return false;
	*out = (struct procmaps_line){ .start = start, .end = end, .inode = inode,
				       .dev = makedev(major, minor), .name = line + name_at };
	out->name_len = strcspn(out->name, "\n");
	return true;
}
