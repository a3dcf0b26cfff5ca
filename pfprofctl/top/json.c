// SPDX-License-Identifier: GPL-2.0
/* pfprofctl top --json: a snapshot as one JSON object (its fields: pfprofctl(8)). */
#include <limits.h>

#include "ctljson.h"
#include "psi.h"
#include "json.h"

/* A wait's share, or null while the waits are unknown (delay accounting off). */
static void add_wait(struct json_object *object, const char *key,
		     const struct top_snapshot *snap, double percent)
{
	if (snap->stalls)
		ctl_json_add_double(object, key, percent);
	else
		ctl_json_add(object, key, NULL);
}

/* The rates of p (a process, or a target's sum) into object. */
static void add_rates(struct json_object *object, const struct top_snapshot *snap,
		      const struct proc_entry *p)
{
	ctl_json_add_double(object, "minor_faults_per_s", top_rate(snap, p->minor));
	ctl_json_add_double(object, "major_faults_per_s", top_rate(snap, p->major));
	ctl_json_add_double(object, "cpu_percent", top_cpu_percent(snap, p));
	add_wait(object, "memory_stall_percent", snap, top_stall_percent(snap, p));
	add_wait(object, "io_wait_percent", snap, top_io_wait_percent(snap, p));
	if (p->timed)
		ctl_json_add_double(object, "fault_time_percent", top_fault_percent(snap, p));
	else
		ctl_json_add(object, "fault_time_percent", NULL);
}

/* "unit:NAME" and the like, or null for none. */
static void add_target(struct json_object *object, const struct target_list *targets,
		       uint32_t number)
{
	char label[PATH_MAX + 32];

	ctl_json_add_string(object, "target", number ?
			    target_label(targets, number, label, sizeof(label)) : NULL);
}

static struct json_object *system_object(const struct top_snapshot *snap)
{
	struct json_object *system = ctl_json_object(), *pressure = NULL;
	struct psi_memory psi;

	ctl_json_add_double(system, "major_faults_per_s", top_rate(snap, snap->pgmajfault));
	ctl_json_add_double(system, "swap_in_pages_per_s", top_rate(snap, snap->pswpin));
	ctl_json_add_double(system, "swap_out_pages_per_s", top_rate(snap, snap->pswpout));
	if (!psi_read(PSI_MEMORY_PATH, &psi)) {
		pressure = ctl_json_object();
		ctl_json_add_double(pressure, "some_avg10_percent", psi.some_avg10);
		ctl_json_add_double(pressure, "full_avg10_percent", psi.full_avg10);
	}
	ctl_json_add(system, "memory_pressure", pressure);
	return system;
}

bool top_print_json(const struct top_snapshot *snap, const struct target_list *targets)
{
	struct json_object *o = ctl_json_object(), *procs = ctl_json_array();
	struct json_object *groups = ctl_json_array();

	ctl_json_add_uint(o, "first_sample", snap->first);
	ctl_json_add_uint(o, "last_sample", snap->end - 1);
	ctl_json_add_double(o, "seconds", snap->seconds);
	ctl_json_add_uint(o, "missed_samples", snap->missed);
	ctl_json_add_uint(o, "lost_records", snap->lost);
	ctl_json_add(o, "system", system_object(snap));
	for (size_t i = 0; i < snap->nr_procs; i++) {
		const struct proc_entry *p = &snap->procs[i];
		struct json_object *proc = ctl_json_object();

		ctl_json_add_int(proc, "pid", p->tgid);
		ctl_json_add_string(proc, "comm", p->comm);
		add_target(proc, targets, p->target);
		add_rates(proc, snap, p);
		ctl_json_add(procs, NULL, proc);
	}
	ctl_json_add(o, "processes", procs);
	for (size_t i = 0; i < snap->nr_groups; i++) {
		const struct top_group *g = &snap->groups[i];
		struct json_object *group = ctl_json_object();

		add_target(group, targets, g->sum.target);
		ctl_json_add_uint(group, "processes", g->count);
		add_rates(group, snap, &g->sum);
		ctl_json_add(groups, NULL, group);
	}
	ctl_json_add(o, "targets", groups);
	return ctl_json_print(o);
}
