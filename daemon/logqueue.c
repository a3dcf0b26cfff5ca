// SPDX-License-Identifier: GPL-2.0
#include "logqueue.h"

#include <stdlib.h>

#define QUEUE_FIRST 64

bool logqueue_reserve(struct logqueue *q, size_t n)
{
	size_t cap = q->cap ? q->cap : QUEUE_FIRST;
	struct logentry *slots;

	if (q->count + n > LOGQUEUE_MAX)
		return false;
	if (q->count + n <= q->cap)
		return true;
	while (cap < q->count + n)
		cap *= 2;
	if (cap > LOGQUEUE_MAX)
		cap = LOGQUEUE_MAX;
	slots = malloc(cap * sizeof(*slots));
	if (!slots)
		return false;
	/* Copy the ring's two runs in order so that the new one starts at 0. */
	for (size_t i = 0; i < q->count; i++)
		slots[i] = q->slots[(q->head + i) % q->cap];
	free(q->slots);
	q->slots = slots;
	q->cap = cap;
	q->head = 0;
	return true;
}

struct logentry *logqueue_push(struct logqueue *q, enum logentry_kind kind)
{
	struct logentry *e = &q->slots[(q->head + q->count) % q->cap];

	q->count++;
	e->kind = kind;
	return e;
}

const struct logentry *logqueue_at(const struct logqueue *q, size_t i)
{
	return i < q->count ? &q->slots[(q->head + i) % q->cap] : NULL;
}

static void release(struct logentry *e)
{
	if (e->kind == LOGENTRY_FAULT)
		free(e->fault.name);
}

void logqueue_pop(struct logqueue *q)
{
	release(&q->slots[q->head]);
	q->head = (q->head + 1) % q->cap;
	q->count--;
}

void logqueue_free(struct logqueue *q)
{
	for (size_t i = 0; i < q->count; i++)
		release(&q->slots[(q->head + i) % q->cap]);
	free(q->slots);
	*q = (struct logqueue){ 0 };
}

int logentry_format(char *buf, size_t size, const struct logentry *e)
{
	switch (e->kind) {
	case LOGENTRY_SAMPLE:
		return logformat_sample(buf, size, &e->sample.s, e->sample.wall_ns,
					&e->sample.context);
	case LOGENTRY_MISSED:
		return logformat_missed(buf, size, e->missed.first, e->missed.count);
	case LOGENTRY_STREAM:
		return logformat_stream(buf, size, &e->stream);
	case LOGENTRY_PROC:
		return logformat_proc(buf, size, &e->proc);
	case LOGENTRY_LOST:
		return logformat_lost(buf, size, e->lost.seq, e->lost.count);
	case LOGENTRY_FAULT: {
		struct log_fault f = e->fault.f;

		f.comm = e->fault.comm;
		f.name = e->fault.name;
		return logformat_fault(buf, size, &f);
	}
	case LOGENTRY_PAGE: {
		struct log_page pg = e->page.pg;

		pg.comm = e->page.comm;
		return logformat_page(buf, size, &pg);
	}
	case LOGENTRY_MEMORY:
		return logformat_memory(buf, size, &e->memory);
	}
	return -1;
}

bool logentry_is_data(enum logentry_kind kind)
{
	return kind == LOGENTRY_SAMPLE || kind == LOGENTRY_PROC || kind == LOGENTRY_FAULT ||
	       kind == LOGENTRY_PAGE || kind == LOGENTRY_MEMORY;
}
