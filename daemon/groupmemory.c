// SPDX-License-Identifier: GPL-2.0
#include "groupmemory.h"

#include <limits.h>
#include <time.h>

#include "targetsfile.h"

static bool followed(const struct target *t)
{
	return (t->kind == TARGET_CGROUP || t->kind == TARGET_UNIT) &&
	       (t->options & TARGETSFILE_OPT_PAGES);
}

/* Queues t's line; false when the log's queue is full. */
static bool log_target(const struct target *t, struct logwriter *log, uint64_t seq,
		       uint64_t wall_ns)
{
	struct log_memory lm = { .seq = seq, .wall_ns = wall_ns, .target = t->number };
	char cgroup[PATH_MAX];

	/* A unit that is not running, a cgroup removed: nothing to say this second. */
	if (!target_cgroup(t, cgroup, sizeof(cgroup)) || cgroup_memory_read(cgroup, &lm.m))
		return true;
	return logwriter_add_memory(log, &lm);
}

void groupmemory_log(struct groupmemory *g, const struct target_list *targets,
		     struct logwriter *log, uint64_t seq, uint64_t now_usec)
{
	struct timespec wall;
	uint64_t wall_ns;

	if (now_usec < g->next_usec)
		return;
	g->next_usec = now_usec + GROUPMEMORY_USEC;
	clock_gettime(CLOCK_REALTIME, &wall);
	wall_ns = (uint64_t)wall.tv_sec * 1000000000ULL + (uint64_t)wall.tv_nsec;
	for (size_t i = 0; i < targets->count; i++)
		if (followed(&targets->targets[i]) &&
		    !log_target(&targets->targets[i], log, seq, wall_ns))
			return;
}
