// SPDX-License-Identifier: GPL-2.0
/*
 * daemon/groupmemory: a line a second for each cgroup target added with
 * pages whose cgroup exists, none for the others, and its last reading kept
 * for the metrics.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "groupmemory.h"
#include "targetsfile.h"
#include "unit.h"

#define SECOND GROUPMEMORY_USEC

/* A cgroup's directory in the test's, with its memory.current; its absolute path into path. */
static void make_cgroup(const char *name, const char *current, char *path, size_t size)
{
	char file[64];

	expect(!mkdir(name, 0755), "mkdir %s: %s", name, strerror(errno));
	snprintf(file, sizeof(file), "%s/memory.current", name);
	unit_write_file(file, current);
	expect(snprintf(path, size, "%s/%s", unit_dir(), name) < (int)size, "path too long");
}

/* The data lines of the memory log, parsed into lines; how many. */
static size_t read_log(struct log_memory *lines, size_t max)
{
	char *text = unit_read_file("logs/" LOGFORMAT_MEMORY_FILE), *save = NULL;
	size_t n = 0;

	for (char *line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save))
		if (line[0] != '#')
			expect(n < max && logformat_parse_memory(line, &lines[n++]),
			       "line '%s'", line);
	free(text);
	return n;
}

static void test_once_a_second(void)
{
	char paged[PATH_MAX], plain[PATH_MAX], gone[PATH_MAX];
	struct target t[] = {
		{ .kind = TARGET_CGROUP, .name = paged, .number = 1073741825,
		  .options = TARGETSFILE_OPT_PAGES },
		{ .kind = TARGET_CGROUP, .name = plain, .number = 1073741826,
		  .options = TARGETSFILE_OPT_MAPS },
		{ .kind = TARGET_CGROUP, .name = gone, .number = 1073741827,
		  .options = TARGETSFILE_OPT_PAGES },
		{ .kind = TARGET_COMM, .name = "postgres", .number = 1073741828,
		  .options = TARGETSFILE_OPT_PAGES },
	};
	struct target_list list = { .targets = t, .count = sizeof(t) / sizeof(t[0]) };
	struct logrotate_policy policy = { 0, 0, 2 };
	struct groupmemory g = { 0 };
	struct counters counts = { 0 };
	const struct target_total *total;
	struct log_memory lines[8];
	struct logwriter *w;
	size_t n;

	make_cgroup("paged", "4096\n", paged, sizeof(paged));
	make_cgroup("plain", "8192\n", plain, sizeof(plain));
	snprintf(gone, sizeof(gone), "%s/gone", unit_dir());
	expect(!mkdir("logs", 0755), "mkdir: %s", strerror(errno));
	w = logwriter_new("logs", LOGKIND_MEMORY, &policy);
	expect(w, "logwriter_new: %s", strerror(errno));
	groupmemory_log(&g, &list, &counts, w, 41, 10 * SECOND);
	unit_write_file("paged/memory.current", "12288\n");
	groupmemory_log(&g, &list, &counts, w, 42, 11 * SECOND - 1);	/* within the second: nothing */
	groupmemory_log(&g, &list, &counts, w, 61, 11 * SECOND);
	expect(!logwriter_flush(w, 100), "flush failed");
	logwriter_free(w);
	n = read_log(lines, 8);
	expect(n == 2, "%zu lines", n);
	expect(lines[0].seq == 41 && lines[0].target == 1073741825 &&
	       lines[0].m.value[CGMEM_CURRENT] == 4096 && lines[1].seq == 61 &&
	       lines[1].target == 1073741825 && lines[1].m.value[CGMEM_CURRENT] == 12288,
	       "lines otherwise: seq %llu %llu",
	       (unsigned long long)lines[0].seq, (unsigned long long)lines[1].seq);
	expect(lines[1].wall_ns >= lines[0].wall_ns, "time went back");
	/* The last reading, for the metrics; none for the targets not read. */
	total = counters_find_target(&counts, 1073741825);
	expect(total && total->memory_read && total->memory.value[CGMEM_CURRENT] == 12288,
	       "the paged cgroup's reading not kept");
	expect(!counters_find_target(&counts, 1073741826) &&
	       !counters_find_target(&counts, 1073741827), "a total made for a target not read");
	counters_free(&counts);
}

UNIT_TESTS(
	UNIT_TEST(once_a_second),
);
