// SPDX-License-Identifier: GPL-2.0
#include "prommemory.h"

#include <stdbool.h>

#include "promtext.h"

/* A series of a target's cgroup: a field of its reading, under a metric, with a label or none. */
static const struct memory_series {
	const char *name, *type, *help;
	enum cgroup_memory_field field;
	const char *label;	/* "name=\"value\"", or NULL */
	bool microseconds;	/* the field is in us, exported in seconds */
} series[] = {
	{ "pfprof_target_memory_bytes", "gauge",
	  "The memory a unit or cgroup added with pages uses (its memory.current).",
	  CGMEM_CURRENT, NULL, false },
	{ "pfprof_target_memory_max_bytes", "gauge",
	  "The memory limit of a unit or cgroup added with pages (its memory.max; none without one).",
	  CGMEM_MAX, NULL, false },
	{ "pfprof_target_memory_swap_bytes", "gauge",
	  "The swap a unit or cgroup added with pages uses (its memory.swap.current).",
	  CGMEM_SWAP, NULL, false },
	{ "pfprof_target_memory_refaults_total", "counter",
	  "Pages a unit or cgroup added with pages faulted back soon after their eviction (memory.stat "
	  "workingset_refault_anon and _file), since its cgroup was made.",
	  CGMEM_REFAULT_ANON, "type=\"anon\"", false },
	{ "pfprof_target_memory_refaults_total", "counter", NULL,
	  CGMEM_REFAULT_FILE, "type=\"file\"", false },
	{ "pfprof_target_memory_pressure_seconds_total", "counter",
	  "The time some or all tasks of a unit or cgroup added with pages were stalled on memory "
	  "(its memory.pressure), since its cgroup was made.",
	  CGMEM_SOME_US, "stalled=\"some\"", true },
	{ "pfprof_target_memory_pressure_seconds_total", "counter", NULL,
	  CGMEM_FULL_US, "stalled=\"full\"", true },
};

/* Whether the total has this series: read, the field known, a limit set. */
static bool has_series(const struct target_total *t, const struct memory_series *s)
{
	return t->memory_read && cgroup_memory_has(&t->memory, s->field) &&
	       t->memory.value[s->field] != CGROUP_MEMORY_NO_LIMIT;
}

void prommemory_put(FILE *out, const struct counters *counts, const struct target_list *targets)
{
	const char *help = NULL;
	bool header = false;

	for (size_t i = 0; i < sizeof(series) / sizeof(series[0]); i++) {
		const struct memory_series *s = &series[i];

		/* A metric's later series (a help of NULL) go under its first's header. */
		if (s->help) {
			help = s->help;
			header = false;
		}
		for (size_t j = 0; j < counts->nr_targets; j++) {
			const struct target_total *t = &counts->targets[j];

			if (!has_series(t, s))
				continue;
			prom_put_header_once(out, &header, s->name, s->type, help);
			fprintf(out, "%s{", s->name);
			prom_put_target_label(out, targets, t->number);
			fprintf(out, "%s%s}", s->label ? "," : "", s->label ? s->label : "");
			if (s->microseconds)
				prom_put_microseconds(out, t->memory.value[s->field]);
			else
				prom_put_value(out, t->memory.value[s->field], false);
		}
	}
}
