// SPDX-License-Identifier: GPL-2.0
#include "proctable.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "printable.h"
#include "proccomm.h"

#define TABLE_FIRST 256

static struct proc_entry *slot_for(struct proc_entry *slots, size_t cap, pid_t tgid)
{
	size_t i = ((uint32_t)tgid * 2654435761U) & (cap - 1);

	while (slots[i].tgid && slots[i].tgid != tgid)
		i = (i + 1) & (cap - 1);
	return &slots[i];
}

/* Doubles the table, keeping what it holds. */
static int grow(struct proc_table *t)
{
	size_t cap = t->cap ? t->cap * 2 : TABLE_FIRST;
	struct proc_entry *slots = calloc(cap, sizeof(*slots));

	if (!slots)
		return -ENOMEM;
	for (size_t i = 0; i < t->cap; i++)
		if (t->slots[i].tgid)
			*slot_for(slots, cap, t->slots[i].tgid) = t->slots[i];
	free(t->slots);
	t->slots = slots;
	t->cap = cap;
	return 0;
}

struct proc_entry *proctable_find(const struct proc_table *t, pid_t tgid)
{
	struct proc_entry *e = t->cap ? slot_for(t->slots, t->cap, tgid) : NULL;

	return e && e->tgid ? e : NULL;
}

struct proc_entry *proctable_find_or_add(struct proc_table *t, pid_t tgid)
{
	struct proc_entry *e;

	/* 0 marks a free slot: no process is numbered 0. */
	if (tgid <= 0)
		return NULL;
	e = proctable_find(t, tgid);
	if (e)
		return e;
	if ((t->used + 1) * 2 > t->cap && grow(t))
		return NULL;
	e = slot_for(t->slots, t->cap, tgid);
	e->tgid = tgid;
	t->used++;
	return e;
}

void proctable_entry_zero(struct proc_entry *e)
{
	e->minor = e->major = e->cpu_ns = 0;
	memset(e->major_in, 0, sizeof(e->major_in));
	memset(e->stall_us, 0, sizeof(e->stall_us));
	memset(e->latency, 0, sizeof(e->latency));
}

int proctable_retain(struct proc_table *t, bool (*keep)(struct proc_entry *e, void *ctx),
		     void *ctx)
{
	struct proc_table kept = { 0 };
	int err = grow(&kept);

	for (size_t i = 0; i < t->cap; i++) {
		struct proc_entry *e = &t->slots[i], *copy;

		if (!e->tgid || !keep(e, ctx) || err)
			continue;
		copy = proctable_find_or_add(&kept, e->tgid);
		if (!copy)
			err = -ENOMEM;
		else
			*copy = *e;
	}
	if (err) {
		proctable_free(&kept);
		return err;
	}
	proctable_free(t);
	*t = kept;
	return 0;
}

/* Keeps the processes counted since the last sweep or marked so, their counters zeroed. */
static bool seen_since_sweep(struct proc_entry *e, void *ctx)
{
	unsigned int keep_marks = *(const unsigned int *)ctx;
	bool seen = e->samples != 0 || (e->marks & keep_marks);

	e->marks &= ~keep_marks;
	proctable_entry_zero(e);
	e->samples = 0;
	return seen;
}

void proctable_sweep(struct proc_table *t, unsigned int keep_marks)
{
	/* Without memory nothing is forgotten this time; the counters are zeroed all the same. */
	proctable_retain(t, seen_since_sweep, &keep_marks);
}

bool proctable_entry_idle(const struct proc_entry *e, bool active_only)
{
	return active_only && !e->left && (!kill(e->tgid, 0) || errno == EPERM);
}

void proctable_free(struct proc_table *t)
{
	free(t->slots);
	*t = (struct proc_table){ 0 };
}

struct proc_entry *proctable_apply(struct proc_table *t, const struct mp3_proc_record *r)
{
	struct proc_entry *e = proctable_find_or_add(t, r->tgid);

	if (e)
		proctable_entry_apply(e, r);
	return e;
}

void proctable_entry_apply(struct proc_entry *e, const struct mp3_proc_record *r)
{
	/* Every record carries it: a process moved to or from a followed cgroup changes target. */
	e->target = r->target;
	if (r->type == MP3_RECORD_COMM) {
		memcpy(e->comm, r->comm, sizeof(e->comm));
		e->comm[sizeof(e->comm) - 1] = '\0';
		printable(e->comm);
		/* Registered (again: a PID reused, or registered anew). */
		e->left = false;
	} else if (r->type == MP3_RECORD_LEFT) {
		e->left = true;
	} else if (r->type == MP3_RECORD_COUNTS) {
		e->minor += r->counts.minor_faults;
		e->major += r->counts.major_faults;
		e->cpu_ns += r->counts.cpu_ns;
		stalls_add(e->stall_us, &r->stalls);
		e->samples++;
	} else if (r->type == MP3_RECORD_FAULTS) {
		enum mapping_group group = proctable_mapping_group(r->mapping);

		if (group < MAPPING_GROUPS)
			e->major_in[group] += r->faults.major_faults;
		e->placed = true;
	} else if (r->type == MP3_RECORD_LATENCY) {
		latency_add_record(e->latency, r);
		e->timed = true;
	}
}

enum mapping_group proctable_mapping_group(uint32_t mapping)
{
	switch (mapping) {
	case MP3_MAPPING_ANON:
	case MP3_MAPPING_HEAP:
	case MP3_MAPPING_STACK:
		return MAPPING_GROUP_ANON;
	case MP3_MAPPING_FILE:
		return MAPPING_GROUP_FILE;
	case MP3_MAPPING_SHMEM:
		return MAPPING_GROUP_SHMEM;
	}
	return MAPPING_GROUPS;
}

const char *proctable_mapping_group_word(enum mapping_group group)
{
	static const char *const words[] = { "anon", "file", "shmem" };

	return group < MAPPING_GROUPS ? words[group] : "?";
}

const char *proctable_name(struct proc_entry *e)
{
	if (!e->comm[0])
		proccomm_read(e->tgid, e->comm, sizeof(e->comm));
	return e->comm;
}
