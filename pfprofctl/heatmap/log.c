// SPDX-License-Identifier: GPL-2.0
#include "log.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "procmaps.h"

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

/* One line of /proc/PID/maps as a map line: its range and its name, empty if it has none. */
static int log_map_line(FILE *f, uint64_t wall_ns, const char *line, size_t len)
{
	struct procmaps_line m;
	char text[512];

	if (len >= sizeof(text))
		len = sizeof(text) - 1;
	memcpy(text, line, len);
	text[len] = '\0';
	if (!procmaps_parse_line(text, &m))
		return -EPROTO;
	fprintf(f, "map\t%" PRIu64 "\t%" PRIx64 "\t%" PRIx64 "\t%.*s\n", wall_ns, m.start, m.end,
		(int)m.name_len, m.name);
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

/* "# pid 1234 comm NAME sample_us 5000 aggr_us 100000": the name may hold spaces. */
static bool read_header(const char *line, struct heatmap_log_line *out)
{
	const char *tail = strstr(line, " sample_us ");
	unsigned long long sample, aggr;
	int pid, comm_at = 0;

	if (sscanf(line, "# pid %d comm %n", &pid, &comm_at) != 1 || !comm_at || !tail ||
	    tail < line + comm_at ||
	    sscanf(tail, " sample_us %llu aggr_us %llu", &sample, &aggr) != 2)
		return false;
	out->pid = pid;
	out->comm = line + comm_at;
	out->comm_len = (int)(tail - line - comm_at);
	out->sample_us = sample;
	out->aggr_us = aggr;
	return true;
}

static bool read_map(const char *line, struct heatmap_log_line *out)
{
	unsigned long long ns, start, end;
	int name_at = 0;

	if (sscanf(line, "map\t%llu\t%llx\t%llx\t%n", &ns, &start, &end, &name_at) != 3 ||
	    !name_at || start >= end)
		return false;
	out->wall_ns = ns;
	out->start = start;
	out->end = end;
	out->name = line + name_at;
	out->name_len = (int)strcspn(out->name, "\n");
	return true;
}

static bool read_region(const char *line, struct heatmap_log_line *out)
{
	unsigned long long t, s, e;
	unsigned int nr, age;

	if (sscanf(line, "region\t%llu\t%llx\t%llx\t%u\t%u", &t, &s, &e, &nr, &age) != 5 ||
	    s >= e)
		return false;
	out->wall_ns = t;
	out->start = s;
	out->end = e;
	out->accesses = nr;
	return true;
}

bool heatmap_log_read_line(const char *line, unsigned long line_no, struct heatmap_log_line *out)
{
	*out = (struct heatmap_log_line){ 0 };
	if (line_no == 1) {
		out->kind = HEATMAP_LOG_MAGIC_LINE;
		return !strncmp(line, HEATMAP_LOG_MAGIC "\n", strlen(HEATMAP_LOG_MAGIC) + 1);
	}
	if (!strncmp(line, "# pid ", 6)) {
		out->kind = HEATMAP_LOG_HEADER;
		return read_header(line, out);
	}
	if (line[0] == '#') {
		out->kind = HEATMAP_LOG_COMMENT;
		return true;
	}
	if (!strncmp(line, "map\t", 4)) {
		out->kind = HEATMAP_LOG_MAP;
		return read_map(line, out);
	}
	out->kind = HEATMAP_LOG_REGION;
	return read_region(line, out);
}
