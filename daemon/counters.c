// SPDX-License-Identifier: GPL-2.0
#include "counters.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "growarray.h"

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

struct target_total *counters_find_target(struct counters *c, uint32_t number)
{
	for (size_t i = 0; i < c->nr_targets; i++)
		if (c->targets[i].number == number)
			return &c->targets[i];
	return NULL;
}

struct target_total *counters_target(struct counters *c, uint32_t number)
{
	struct target_total *t = counters_find_target(c, number);

	if (t)
		return t;
	t = grow_array(c->targets, &c->targets_cap, c->nr_targets, sizeof(*t), 16);
	if (!t)
		return NULL;
	c->targets = t;
	t = &c->targets[c->nr_targets++];
	*t = (struct target_total){ .number = number };
	return t;
}

/* A swap record's pages and stall, into its target's totals. */
static void add_swap(struct target_total *t, const struct mp3_proc_record *r)
{
	t->paged = true;
	if (r->swap.event == MP3_SWAP_OUT) {
		t->swap_out += r->swap_time.pages;
		return;
	}
	if (r->swap.event & MP3_SWAP_READ)
		t->swap_in_read += r->swap_time.pages;
	else
		t->swap_in_cached += r->swap_time.pages;
	t->swap_stall_ns += r->swap_time.stall_ns;
}

/*
 * The pages out whose slots each replay remembers, at most: 64 MiB of its
 * memory (32-byte slots, at most half full) for 4 GiB of 4 KiB pages out;
 * two replays, one a clock.
 */
#define REPLAY_PAGES_MAX (1UL << 20)

/*
 * A page read back at rf's distance, into *window, made at its first page
 * (most targets never read one back); not without memory.
 */
static void window_add(struct refault_window **window, const struct refault *rf)
{
	struct refault_window *w = *window;

	if (!w) {
		w = calloc(1, sizeof(*w));
		*window = w;
	}
	if (w)
		refaultwindow_add(w, rf->at_ns / 1000000000ULL, rf->distance, rf->pages);
}

static void count_refault(void *ctx, const struct refault_owner *o, const struct refault *rf)
{
	struct target_total *t = counters_target(ctx, o->target);

	if (!t)
		return;
	refaultdist_add(&t->refaults, rf->distance * (uint64_t)sysconf(_SC_PAGESIZE), rf->pages);
	window_add(&t->recent, rf);
}

static void count_machine_refault(void *ctx, const struct refault_owner *o,
				  const struct refault *rf)
{
	struct target_total *t = counters_target(ctx, o->target);

	if (t)
		window_add(&t->machine_recent, rf);
}

/* pg replayed in *replay, made at the first with the sink and clock given. */
static int replay_add(struct refault_replay **replay, refault_sink *sink, void *ctx,
		      bool machine_clock, const struct log_page *pg)
{
	if (!*replay) {
		*replay = malloc(sizeof(**replay));
		if (!*replay)
			return -ENOMEM;
		refaults_init(*replay, 0, UINT64_MAX);
		(*replay)->sink = sink;
		(*replay)->sink_ctx = ctx;
		(*replay)->slots_max = REPLAY_PAGES_MAX;
		(*replay)->machine_clock = machine_clock;
	}
	return refaults_add(*replay, pg);
}

int counters_add_page(struct counters *c, const struct log_page *pg)
{
	int err, machine_err;

	if (!pg->target)
		return 0;
	err = replay_add(&c->replay, count_refault, c, false, pg);
	machine_err = replay_add(&c->machine_replay, count_machine_refault, c, true, pg);
	return err ? err : machine_err;
}

bool counters_add_target_record(struct counters *c, const struct mp3_proc_record *r)
{
	struct target_total *t;

	if (!r->target)
		return true;
	/* A name record too: the process counts among the target's before its first counts. */
	t = counters_target(c, r->target);
	if (!t)
		return false;
	t->records++;
	if (r->type == MP3_RECORD_COUNTS) {
		t->minor += r->counts.minor_faults;
		t->major += r->counts.major_faults;
		t->cpu_ns += r->counts.cpu_ns;
		if (c->stalls_known) {
			stalls_add(t->stall_us, &r->stalls);
			t->stalls = true;
		}
	} else if (r->type == MP3_RECORD_LATENCY) {
		latency_add_record(t->latency, r);
		t->timed = true;
	} else if (r->type == MP3_RECORD_SWAP || r->type == MP3_RECORD_CGROUP_SWAP) {
		add_swap(t, r);
	} else if (r->type == MP3_RECORD_REFAULT) {
		t->paged = true;
		t->file_refaults += r->swap_time.pages;
	}
	return true;
}

struct proc_entry *counters_add_record(struct counters *c, const struct mp3_proc_record *r)
{
	struct proc_entry *e = proctable_find_or_add(&c->procs, r->tgid);
	struct mp3_proc_record unmeasured;

	if (!e)
		return NULL;
	/* Another name is another series: its counters start from 0. */
	if (r->type == MP3_RECORD_COMM && e->comm[0] && !same_comm(e->comm, r->comm)) {
		proctable_entry_zero(e);
		e->marks &= ~SERIES_STALLS;
	}
	if (r->type == MP3_RECORD_COUNTS && c->stalls_known) {
		e->marks |= SERIES_STALLS;
	} else if (r->type == MP3_RECORD_COUNTS) {
		/* Waits not measured mean nothing (mp3.h): none is added. */
		unmeasured = *r;
		memset(&unmeasured.stalls, 0, sizeof(unmeasured.stalls));
		r = &unmeasured;
	}
	proctable_entry_apply(e, r);
	return counters_add_target_record(c, r) ? e : NULL;
}

void counters_forget_targets(struct counters *c, const struct target_list *listed)
{
	size_t kept = 0;

	for (size_t i = 0; i < c->nr_targets; i++) {
		struct target_total *t = &c->targets[i];

		if (!t->processes && !t->records && !target_list_find(listed, t->number)) {
			free(t->recent);
			free(t->machine_recent);
			continue;
		}
		t->records = 0;
		c->targets[kept++] = *t;
	}
	c->nr_targets = kept;
}

static bool still_registered(struct proc_entry *e, void *ctx)
{
	bool kept = e->samples != 0 || proctable_entry_idle(e, *(const bool *)ctx);

	e->samples = 0;
	return kept;
}

void counters_sweep(struct counters *c, bool active_only)
{
	/* Without memory nothing is forgotten this time. */
	proctable_retain(&c->procs, still_registered, &active_only);
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

void counters_set_unfollowed(struct counters *c, uint64_t load_id, uint64_t skipped,
			     uint64_t missed)
{
	load_counter_set(&c->follow_skipped, load_id, skipped);
	load_counter_set(&c->follow_missed, load_id, missed);
}

void counters_set_latency_missed(struct counters *c, uint64_t load_id, uint64_t missed)
{
	load_counter_set(&c->latency_missed, load_id, missed);
}

void counters_set_swap_dropped(struct counters *c, uint64_t load_id, uint64_t dropped)
{
	load_counter_set(&c->swap_dropped, load_id, dropped);
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

/* Each target's registered processes, among those the table knows. */
static void count_target_processes(struct counters *c, const struct pidlist *sorted)
{
	for (size_t i = 0; i < c->nr_targets; i++)
		c->targets[i].processes = 0;
	for (size_t i = 0; i < c->procs.cap; i++) {
		const struct proc_entry *e = &c->procs.slots[i];
		struct target_total *t;

		if (!e->tgid || !e->target || !in_sorted(sorted, e->tgid))
			continue;
		/* Its records added the target, unless memory ran out then. */
		t = counters_target(c, e->target);
		if (t)
			t->processes++;
	}
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
	count_target_processes(c, &sorted);
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

static void replay_free(struct refault_replay **replay)
{
	if (*replay)
		refaults_free(*replay);
	free(*replay);
	*replay = NULL;
}

void counters_free(struct counters *c)
{
	proctable_free(&c->procs);
	for (size_t i = 0; i < c->nr_targets; i++) {
		free(c->targets[i].recent);
		free(c->targets[i].machine_recent);
	}
	free(c->targets);
	c->targets = NULL;
	c->nr_targets = c->targets_cap = 0;
	ownerbudget_free(&c->owners);
	replay_free(&c->replay);
	replay_free(&c->machine_replay);
}
