// SPDX-License-Identifier: GPL-2.0
#include "data.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

int top_reader_init(struct top_reader *r, const struct mp3ring *ring)
{
	uint64_t head = mp3ring_head(ring), missed = 0;

	memset(r, 0, sizeof(*r));
	r->ring = ring;
	r->next = head ? head - 1 : 0;
	r->have_prev = head && mp3ring_read(ring, &r->next, &r->prev, &missed) == MP3RING_SAMPLE;
	r->next = head;
	return 0;
}

void top_reader_free(struct top_reader *r)
{
	proctable_free(&r->procs);
	memset(r, 0, sizeof(*r));
}

static void apply_record(void *procs, const struct mp3_proc_record *rec)
{
	if (mp3ring_record_of_process(rec))
		proctable_apply(procs, rec);
}

static void add_sample(struct top_reader *r, const struct mp3_ring_sample *s,
		       struct top_snapshot *snap)
{
	snap->lost += mp3ring_for_each_record(r->ring, s, apply_record, &r->procs);
	if (r->have_prev) {
		snap->pgmajfault += s->pgmajfault - r->prev.pgmajfault;
		snap->pswpin += s->pswpin - r->prev.pswpin;
		snap->pswpout += s->pswpout - r->prev.pswpout;
		snap->seconds += (s->time_ns - r->prev.time_ns) / 1e9;
	}
	r->prev = *s;
	r->have_prev = true;
}

static int by_faults(const void *a, const void *b)
{
	const struct proc_entry *p = a, *q = b;

	if (p->major != q->major)
		return p->major < q->major ? 1 : -1;
	if (p->minor != q->minor)
		return p->minor < q->minor ? 1 : -1;
	if (p->cpu_ns != q->cpu_ns)
		return p->cpu_ns < q->cpu_ns ? 1 : -1;
	return p->tgid < q->tgid ? -1 : p->tgid > q->tgid;
}

/* By target, then as by_faults() within one. */
static int by_target(const void *a, const void *b)
{
	const struct proc_entry *p = a, *q = b;

	if (p->target != q->target)
		return p->target < q->target ? -1 : 1;
	return by_faults(a, b);
}

static int by_group_faults(const void *a, const void *b)
{
	const struct top_group *g = a, *h = b;
	int order = by_faults(&g->sum, &h->sum);

	/* Equal sums: by target number, so that rows do not swap from one snapshot to the next. */
	return order ? order : (g->sum.target > h->sum.target) - (g->sum.target < h->sum.target);
}

/* proc_entry.marks: registered at this snapshot. */
#define TOP_REGISTERED 1u

/* The registered processes join the table, marked: shown even without records. */
static int add_registered(struct top_reader *r, const struct pidlist *registered)
{
	for (size_t i = 0; registered && i < registered->count; i++) {
		struct proc_entry *e = proctable_find_or_add(&r->procs, registered->pids[i]);

		if (!e)
			return -ENOMEM;
		e->marks |= TOP_REGISTERED;
	}
	return 0;
}

/* Copies out the processes counted or registered in this snapshot; the table keeps only them. */
static int collect(struct top_reader *r, struct top_snapshot *snap)
{
	snap->procs = calloc(r->procs.used ? r->procs.used : 1, sizeof(*snap->procs));
	if (!snap->procs)
		return -ENOMEM;
	for (size_t i = 0; i < r->procs.cap; i++) {
		struct proc_entry *p = &r->procs.slots[i];

		if (!p->tgid || (!p->samples && !(p->marks & TOP_REGISTERED)))
			continue;
		proctable_name(p);
		snap->procs[snap->nr_procs++] = *p;
	}
	proctable_sweep(&r->procs, TOP_REGISTERED);
	qsort(snap->procs, snap->nr_procs, sizeof(*snap->procs), by_faults);
	return 0;
}

int top_take(struct top_reader *r, struct top_snapshot *snap, const struct pidlist *registered)
{
	struct mp3_ring_sample s;
	bool read_any = false;
	int err;

	memset(snap, 0, sizeof(*snap));
	snap->first = r->next;
	while (mp3ring_read(r->ring, &r->next, &s, &snap->missed) == MP3RING_SAMPLE) {
		if (!read_any)
			snap->first = s.seq;	/* after any it missed */
		read_any = true;
		add_sample(r, &s, snap);
	}
	snap->end = r->next;
	err = add_registered(r, registered);
	return err ? err : collect(r, snap);
}

void top_snapshot_free(struct top_snapshot *snap)
{
	free(snap->procs);
	free(snap->groups);
	snap->procs = NULL;
	snap->groups = NULL;
	snap->nr_procs = snap->nr_groups = 0;
}

/* Adds process i, the next in target order, to the last group or a new one. */
static void add_to_group(struct top_snapshot *snap, size_t i)
{
	const struct proc_entry *p = &snap->procs[i];
	struct top_group *g = snap->nr_groups ? &snap->groups[snap->nr_groups - 1] : NULL;

	if (!g || g->sum.target != p->target) {
		g = &snap->groups[snap->nr_groups++];
		*g = (struct top_group){ .sum.target = p->target, .first = i };
	}
	g->sum.minor += p->minor;
	g->sum.major += p->major;
	g->sum.cpu_ns += p->cpu_ns;
	for (int k = 0; k < STALL_KINDS; k++)
		g->sum.stall_us[k] += p->stall_us[k];
	for (int k = 0; k < LATENCY_KINDS; k++)
		latency_add(&g->sum.latency[k], &p->latency[k]);
	g->sum.timed |= p->timed;
	g->count++;
}

int top_group(struct top_snapshot *snap)
{
	/* At most one group per process. */
	snap->groups = calloc(snap->nr_procs ? snap->nr_procs : 1, sizeof(*snap->groups));
	if (!snap->groups)
		return -ENOMEM;
	/* qsort() may not be given NULL, which procs is when there are none. */
	if (!snap->nr_procs)
		return 0;
	qsort(snap->procs, snap->nr_procs, sizeof(*snap->procs), by_target);
	for (size_t i = 0; i < snap->nr_procs; i++)
		add_to_group(snap, i);
	qsort(snap->groups, snap->nr_groups, sizeof(*snap->groups), by_group_faults);
	return 0;
}

double top_rate(const struct top_snapshot *snap, uint64_t count)
{
	return snap->seconds > 0 ? count / snap->seconds : 0;
}

double top_cpu_percent(const struct top_snapshot *snap, const struct proc_entry *p)
{
	return snap->seconds > 0 ? p->cpu_ns / 1e7 / snap->seconds : 0;
}

static double percent_of_time(const struct top_snapshot *snap, uint64_t us)
{
	return snap->seconds > 0 ? us / 1e4 / snap->seconds : 0;
}

double top_stall_percent(const struct top_snapshot *snap, const struct proc_entry *p)
{
	return percent_of_time(snap, stalls_memory_us(p->stall_us));
}

double top_io_wait_percent(const struct top_snapshot *snap, const struct proc_entry *p)
{
	return percent_of_time(snap, p->stall_us[STALL_BLKIO]);
}

double top_fault_percent(const struct top_snapshot *snap, const struct proc_entry *p)
{
	uint64_t ns = p->latency[LATENCY_MINOR].time_ns + p->latency[LATENCY_MAJOR].time_ns;

	return snap->seconds > 0 ? ns / 1e7 / snap->seconds : 0;
}
