/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The log writer's FIFO of lines not yet written. Entries keep the values,
 * not the text: a sample is smaller than its line and the text is only
 * needed when it is written. The queue grows as needed, up to LOGQUEUE_MAX.
 */
#ifndef PFPROF_LOGQUEUE_H
#define PFPROF_LOGQUEUE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "logformat.h"

#define LOGQUEUE_MAX 65536	/* lines held while the disk refuses them */

enum logentry_kind { LOGENTRY_SAMPLE, LOGENTRY_MISSED, LOGENTRY_STREAM, LOGENTRY_PROC,
		     LOGENTRY_LOST, LOGENTRY_FAULT, LOGENTRY_PAGE, LOGENTRY_MEMORY };

struct logentry {
	enum logentry_kind kind;
	union {
		struct {
			struct mp3_ring_sample s;
			uint64_t wall_ns;
			struct log_context context;
		} sample;
		struct {
			uint64_t first, count;
		} missed;
		struct log_stream stream;
		struct log_proc proc;
		struct {
			uint64_t seq, count;
		} lost;
		struct {
			/* Its comm and name are these, set when formatted: entries move. */
			struct log_fault f;
			char comm[24];
			char *name;		/* the entry's own: freed when popped */
		} fault;
		struct {
			struct log_page pg;	/* its comm is this, set when formatted */
			char comm[24];
		} page;
		struct log_memory memory;
	};
};

/* Whether the entry is a data line (sample, process, fault, page or memory): a file holding one may rotate. */
bool logentry_is_data(enum logentry_kind kind);

/* A ring of cap slots holding count entries from head. */
struct logqueue {
	struct logentry *slots;
	size_t cap, head, count;
};

/* Makes room for n more entries; false if that would pass LOGQUEUE_MAX (or no memory). */
bool logqueue_reserve(struct logqueue *q, size_t n);
/* Appends an entry of this kind for the caller to fill; room was reserved. */
struct logentry *logqueue_push(struct logqueue *q, enum logentry_kind kind);
/* The i-th entry from the front, or NULL. */
const struct logentry *logqueue_at(const struct logqueue *q, size_t i);
void logqueue_pop(struct logqueue *q);
void logqueue_free(struct logqueue *q);

/* The entry's line, as snprintf() returns. */
int logentry_format(char *buf, size_t size, const struct logentry *e);

#endif /* PFPROF_LOGQUEUE_H */
