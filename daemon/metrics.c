// SPDX-License-Identifier: GPL-2.0
#include "metrics.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

void metrics_add_sample(struct metrics *m, const struct mp3_ring_sample *s, bool has_system)
{
	m->minor += s->minor_faults;
	m->major += s->major_faults;
	m->cpu_ns += s->cpu_ns;
	m->samples_written++;
	if (has_system) {
		m->have_system = true;
		m->pgmajfault = s->pgmajfault;
		m->pswpin = s->pswpin;
		m->pswpout = s->pswpout;
	}
}

void metrics_add_lost(struct metrics *m, uint64_t count)
{
	m->samples_lost += count;
}

static bool same_comm(const char *a, const char *b)
{
	return !strncmp(a, b, sizeof(((struct proc_entry *)0)->comm) - 1);
}

int metrics_add_record(struct metrics *m, const struct mp3_proc_record *r)
{
	struct proc_entry *e = proctable_find(&m->procs, r->tgid);

	if (!e)
		return -ENOMEM;
	/* Another name is another series: its counters start from 0. */
	if (r->type == MP3_RECORD_COMM && e->comm[0] && !same_comm(e->comm, r->comm))
		e->minor = e->major = e->cpu_ns = 0;
	proctable_entry_apply(e, r);
	return 0;
}

void metrics_set_psi(struct metrics *m, const struct psi_memory *psi)
{
	m->have_psi = psi != NULL;
	if (psi)
		m->psi = *psi;
}

static void load_counter_set(struct load_counter *c, uint64_t load_id, uint64_t value)
{
	if (load_id != c->load_id) {
		c->before += c->current;
		c->load_id = load_id;
	} else if (value < c->current) {
		/* Not the module's doing; never go backwards for it. */
		return;
	}
	c->current = value;
}

uint64_t load_counter_total(const struct load_counter *c)
{
	return c->before + c->current;
}

void load_counter_resume(struct load_counter *c, uint64_t load_id, uint64_t current)
{
	c->load_id = load_id;
	c->current = current < c->before ? current : c->before;
	c->before -= c->current;
}

void metrics_set_sampler(struct metrics *m, uint64_t load_id, uint64_t ns_total, uint64_t runs)
{
	load_counter_set(&m->sampler_ns, load_id, ns_total);
	load_counter_set(&m->sampler_runs, load_id, runs);
}

static int compare_pids(const void *a, const void *b)
{
	pid_t x = *(const pid_t *)a, y = *(const pid_t *)b;

	return (x > y) - (x < y);
}

static bool is_registered(struct proc_entry *e, void *ctx)
{
	const struct pidlist *sorted = ctx;

	return bsearch(&e->tgid, sorted->pids, sorted->count, sizeof(pid_t), compare_pids) != NULL;
}

/* Forgets the processes not in registered. 0 or -ENOMEM. */
static int keep_registered(struct metrics *m, const struct pidlist *registered)
{
	size_t bytes = registered->count * sizeof(pid_t);
	struct pidlist sorted = { .pids = malloc(bytes ? bytes : 1), .count = registered->count };
	int err;

	if (!sorted.pids)
		return -ENOMEM;
	/* registered->pids may be NULL when count is 0. */
	if (bytes)
		memcpy(sorted.pids, registered->pids, bytes);
	qsort(sorted.pids, sorted.count, sizeof(pid_t), compare_pids);
	err = proctable_retain(&m->procs, is_registered, &sorted);
	pidlist_free(&sorted);
	return err;
}

/* Marks up to max processes as exported, those that were first; returns how many are. */
static unsigned int keep_exported(struct proc_table *t, unsigned int max)
{
	unsigned int count = 0;

	for (size_t i = 0; i < t->cap; i++) {
		struct proc_entry *e = &t->slots[i];

		if (!e->tgid || !(e->marks & METRICS_EXPORTED))
			continue;
		if (count < max)
			count++;
		else
			e->marks &= ~METRICS_EXPORTED;
	}
	return count;
}

int metrics_select(struct metrics *m, const struct pidlist *registered, unsigned int max)
{
	unsigned int count;
	int err = keep_registered(m, registered);

	if (err)
		return err;
	m->registered = registered->count;
	count = keep_exported(&m->procs, max);
	for (size_t i = 0; i < m->procs.cap; i++) {
		struct proc_entry *e = &m->procs.slots[i];

		if (!e->tgid || (e->marks & METRICS_EXPORTED))
			continue;
		if (count < max) {
			e->marks |= METRICS_EXPORTED;
			count++;
		} else if (!(e->marks & METRICS_OMITTED)) {
			e->marks |= METRICS_OMITTED;
			m->omitted++;
		}
	}
	return 0;
}

void metrics_free(struct metrics *m)
{
	proctable_free(&m->procs);
}
