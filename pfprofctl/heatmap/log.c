// SPDX-License-Identifier: GPL-2.0
#include "log.h"

#include <errno.h>
#include <inttypes.h>
#include <string.h>

static int written(FILE *f)
{
	return ferror(f) ? -EIO : 0;
}

int heatmap_log_header(FILE *f, pid_t pid, const char *comm, const struct damon_attrs *attrs)
{
	fprintf(f, HEATMAP_LOG_MAGIC "\n# pid %d comm %s sample_us %" PRIu64 " aggr_us %" PRIu64 "\n",
		(int)pid, comm, attrs->sample_us, attrs->aggr_us);
	return written(f);
}

int heatmap_log_regions(FILE *f, uint64_t wall_ns, const struct damon_region *regions,
			size_t count)
{
	for (size_t i = 0; i < count; i++)
		fprintf(f, "region\t%" PRIu64 "\t%" PRIx64 "\t%" PRIx64 "\t%" PRIu32 "\t%" PRIu32 "\n",
			wall_ns, regions[i].start, regions[i].end, regions[i].nr_accesses,
			regions[i].age);
	return written(f);
}

/*
 * One line of /proc/PID/maps: "start-end perms offset dev inode [name]".
 * Its name is what follows the inode and its spaces, to the end of the line.
 */
static int log_map_line(FILE *f, uint64_t wall_ns, const char *line, size_t len)
{
	unsigned long long start, end;
	int name_at = 0;
	char text[512];

	if (len >= sizeof(text))
		len = sizeof(text) - 1;
	memcpy(text, line, len);
	text[len] = '\0';
	if (sscanf(text, "%llx-%llx %*s %*s %*s %*s %n", &start, &end, &name_at) < 2 || !name_at)
		return -EPROTO;
	fprintf(f, "map\t%" PRIu64 "\t%llx\t%llx\t%s\n", wall_ns, start, end, text + name_at);
	return written(f);
}

int heatmap_log_maps(FILE *f, uint64_t wall_ns, const char *maps_text)
{
	int err = 0;

	for (const char *line = maps_text; *line && !err;) {
		const char *nl = strchr(line, '\n');
		size_t len = nl ? (size_t)(nl - line) : strlen(line);

		err = log_map_line(f, wall_ns, line, len);
		line += len + (nl != NULL);
	}
	return err;
}
