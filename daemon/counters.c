// SPDX-License-Identifier: GPL-2.0
#include "counters.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

void counters_add_sample(struct counters *c, const struct mp3_ring_sample *s, bool has_system)
{
	c->minor += s->minor_faults;
	c->major += s->major_faults;
	c->cpu_ns += s->cpu_ns;
	if (has_system) {
		c->have_system = true;
		c->pgmajfault = s->pgmajfault;
		c->pswpin = s->pswpin;
		c->pswpout = s->pswpout;
	}
}

void counters_add_lost(struct counters *c, uint64_t count)
{
	c->samples_lost += count;
}

static bool same_comm(const char *a, const char *b)
{
	return !strncmp(a, b, sizeof(((struct proc_entry *)0)->comm) - 1);
}

struct proc_entry *counters_add_record(struct counters *c, const struct mp3_proc_record *r)
{
	struct proc_entry *e = proctable_find_or_add(&c->procs, r->tgid);

	if (!e)
		return NULL;
	/* Another name is another series: its counters start from 0. */
	if (r->type == MP3_RECORD_COMM && e->comm[0] && !same_comm(e->comm, r->comm))
		e->minor = e->major = e->cpu_ns = 0;
	proctable_entry_apply(e, r);
	return e;
}

static bool recorded_since_sweep(struct proc_entry *e, void *ctx)
{
	bool recorded = e->samples != 0;

	(void)ctx;
	e->samples = 0;
	return recorded;
}

void counters_sweep(struct counters *c)
{
	/* Without memory nothing is forgotten this time. */
	proctable_retain(&c->procs, recorded_since_sweep, NULL);
}

static void load_counter_set(struct load_counter *lc, uint64_t load_id, uint64_t value)
{
	if (load_id != lc->load_id) {
		lc->before += lc->current;
		lc->load_id = load_id;
	} else if (value < lc->current) {
		/* Not the module's doing; never go backwards for it. */
		return;
	}
	lc->current = value;
}

uint64_t load_counter_total(const struct load_counter *lc)
{
	return lc->before + lc->current;
}

void counters_set_sampler(struct counters *c, uint64_t load_id, uint64_t ns_total, uint64_t runs)
{
	load_counter_set(&c->sampler_ns, load_id, ns_total);
	load_counter_set(&c->sampler_runs, load_id, runs);
}

static int compare_pids(const void *a, const void *b)
{
	pid_t x = *(const pid_t *)a, y = *(const pid_t *)b;

	return (x > y) - (x < y);
}

static bool in_sorted(const struct pidlist *sorted, pid_t tgid)
{
	return bsearch(&tgid, sorted->pids, sorted->count, sizeof(pid_t), compare_pids) != NULL;
}

/*
 * Keeps the series of up to max registered processes that have one, and
 * takes it from the others; returns how many have one.
 */
static unsigned int keep_series(struct proc_table *t, const struct pidlist *sorted,
				unsigned int max)
{
	unsigned int count = 0;

	for (size_t i = 0; i < t->cap; i++) {
		struct proc_entry *e = &t->slots[i];

		if (!e->tgid || !(e->marks & SERIES_EXPORTED))
			continue;
		if (count < max && in_sorted(sorted, e->tgid))
			count++;
		else
			e->marks &= ~SERIES_EXPORTED;
	}
	return count;
}

int counters_select_series(struct counters *c, const struct pidlist *registered,
			   unsigned int max)
{
	size_t bytes = registered->count * sizeof(pid_t);
	struct pidlist sorted = { .pids = malloc(bytes ? bytes : 1), .count = registered->count };
	unsigned int count;

	if (!sorted.pids)
		return -ENOMEM;
	/* registered->pids may be NULL when count is 0. */
	if (bytes)
		memcpy(sorted.pids, registered->pids, bytes);
	qsort(sorted.pids, sorted.count, sizeof(pid_t), compare_pids);
	c->registered = registered->count;
	count = keep_series(&c->procs, &sorted, max);
	for (size_t i = 0; i < c->procs.cap; i++) {
		struct proc_entry *e = &c->procs.slots[i];

		if (!e->tgid || (e->marks & SERIES_EXPORTED) || !in_sorted(&sorted, e->tgid))
			continue;
		if (count < max) {
			e->marks |= SERIES_EXPORTED;
			count++;
		} else if (!(e->marks & SERIES_OMITTED)) {
			e->marks |= SERIES_OMITTED;
			c->omitted++;
		}
	}
	pidlist_free(&sorted);
	return 0;
}

void counters_free(struct counters *c)
{
	proctable_free(&c->procs);
}
