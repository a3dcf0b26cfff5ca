// SPDX-License-Identifier: GPL-2.0
#include "procmaps.h"

#include <stdio.h>
#include <string.h>

bool procmaps_parse_line(const char *line, struct procmaps_line *out)
{
	unsigned long long start, end, inode;
	int name_at = 0;

	if (sscanf(line, "%llx-%llx %*s %*s %*s %llu %n", &start, &end, &inode, &name_at) != 3 ||
	    !name_at)
		return false;
	*out = (struct procmaps_line){ .start = start, .end = end, .inode = inode,
				       .name = line + name_at };
	out->name_len = strcspn(out->name, "\n");
	return true;
}
