/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A line of /proc/PID/maps, "start-end perms offset dev inode [name]": what
 * pfprofd names fault mappings with and pfprofctl heatmap --record logs.
 */
#ifndef PFPROF_PROCMAPS_H
#define PFPROF_PROCMAPS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct procmaps_line {
	uint64_t start, end, inode;
	uint64_t dev;		/* makedev(3) of the "major:minor" field, as st_dev */
	/*
	 * In the line: what follows the inode and its spaces, to the newline
	 * or the end; name_len 0 for an anonymous mapping.
	 */
	const char *name;
	size_t name_len;
};

/* line (one line, NUL-terminated) into *out; false if it is no maps line. */
bool procmaps_parse_line(const char *line, struct procmaps_line *out);

#endif /* PFPROF_PROCMAPS_H */
