// SPDX-License-Identifier: GPL-2.0
#include "faulttime.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "growarray.h"
#include "proctable.h"

struct reading {
	struct proc_table procs;
	int err;
};

static void apply_record(void *ctx, const struct mp3_proc_record *r)
{
	struct reading *rd = ctx;

	if (mp3ring_record_of_process(r) && !proctable_apply(&rd->procs, r))
		rd->err = -ENOMEM;
}

/*
 * The records of the samples in the ring when it starts, into rd->procs;
 * returns the time they span: a sample's period ends at its time.
 */
static double read_samples(const struct mp3ring *ring, struct reading *rd)
{
	uint64_t head = mp3ring_head(ring), missed = 0, first_ns = 0, last_ns = 0;
	uint64_t next = head > ring->capacity ? head - ring->capacity : 0;
	struct mp3_ring_sample s;
	bool any = false;

	/* Up to head only: a writer that goes on does not keep it reading. */
	while (next < head && mp3ring_read(ring, &next, &s, &missed) == MP3RING_SAMPLE) {
		if (!any)
			first_ns = s.time_ns - ring->hdr->period_ns;
		any = true;
		last_ns = s.time_ns;
		mp3ring_for_each_record(ring, &s, apply_record, rd);
	}
	return any ? (last_ns - first_ns) / 1e9 : 0;
}

/* The entry of e's target, or a new one of e alone if it has none; NULL without memory. */
static struct fault_time *entry_for(struct fault_times *t, struct proc_entry *e)
{
	struct fault_time *f;

	for (size_t i = 0; e->target && i < t->count; i++)
		if (t->v[i].target == e->target)
			return &t->v[i];
	f = grow_array(t->v, &t->cap, t->count, sizeof(*f), 8);
	if (!f)
		return NULL;
	t->v = f;
	f = &t->v[t->count++];
	*f = (struct fault_time){ .target = e->target };
	if (!e->target) {
		f->pid = e->tgid;
		snprintf(f->comm, sizeof(f->comm), "%s", proctable_name(e));
	}
	return f;
}

/* Targets first, by number, then processes by PID. */
static int compare(const void *a, const void *b)
{
	const struct fault_time *x = a, *y = b;

	if (!x->target != !y->target)
		return x->target ? -1 : 1;
	if (x->target != y->target)
		return x->target < y->target ? -1 : 1;
	return (x->pid > y->pid) - (x->pid < y->pid);
}

int fault_times_read(const struct mp3ring *ring, struct fault_times *t)
{
	struct reading rd = { 0 };

	*t = (struct fault_times){ .seconds = read_samples(ring, &rd) };
	for (size_t i = 0; !rd.err && i < rd.procs.cap; i++) {
		struct proc_entry *e = &rd.procs.slots[i];
		struct fault_time *f;

		if (!e->tgid || !e->timed)
			continue;
		f = entry_for(t, e);
		if (!f) {
			rd.err = -ENOMEM;
			break;
		}
		for (int k = 0; k < LATENCY_KINDS; k++)
			latency_add(&f->latency[k], &e->latency[k]);
	}
	proctable_free(&rd.procs);
	if (rd.err) {
		fault_times_free(t);
		return rd.err;
	}
	if (t->count)
		qsort(t->v, t->count, sizeof(*t->v), compare);
	return 0;
}

void fault_times_free(struct fault_times *t)
{
	free(t->v);
	*t = (struct fault_times){ 0 };
}
