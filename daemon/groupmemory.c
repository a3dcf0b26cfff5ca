// SPDX-License-Identifier: GPL-2.0
#include "groupmemory.h"

#include <limits.h>
#include <time.h>

#include "clock.h"
#include "targetsfile.h"

static bool followed(const struct target *t)
{
	return (t->kind == TARGET_CGROUP || t->kind == TARGET_UNIT) &&
	       (t->options & TARGETSFILE_OPT_PAGES);
}

/*
 * Reads t's cgroup into lm and t's total of counts; false if it has none
 * now, and its total (if any) then has no reading to export.
 */
static bool read_target(const struct target *t, struct counters *counts, struct log_memory *lm)
{
	char cgroup[PATH_MAX];
	bool read = target_cgroup(t, cgroup, sizeof(cgroup)) && !cgroup_memory_read(cgroup, &lm->m);
	struct target_total *total = read ? counters_target(counts, t->number) :
				     counters_find_target(counts, t->number);

	if (total) {
		total->memory = lm->m;
		total->memory_read = read;
	}
	return read;
}

void groupmemory_log(struct groupmemory *g, const struct target_list *targets,
		     struct counters *counts, struct logwriter *log, uint64_t seq,
		     uint64_t now_usec)
{
	uint64_t wall_ns;
	bool queue_full = false;

	if (now_usec < g->next_usec)
		return;
	g->next_usec = now_usec + GROUPMEMORY_USEC;
	wall_ns = clock_ns(CLOCK_REALTIME);
	for (size_t i = 0; i < targets->count; i++) {
		const struct target *t = &targets->targets[i];
		struct log_memory lm = {
			.seq = seq, .wall_ns = wall_ns, .target = t->number,
		};

		if (!followed(t) || !read_target(t, counts, &lm) || queue_full)
			continue;
		queue_full = !logwriter_add_memory(log, &lm);
	}
}
