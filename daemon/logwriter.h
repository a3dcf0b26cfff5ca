/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Writes the sample logs (format and names: logformat.h) and rotates them.
 *
 * Lines are queued in memory (logqueue.h) and written whole: a line that
 * cannot be written completely (ENOSPC, EIO) is cut off again with
 * ftruncate() and stays queued, so no file ever holds a torn or duplicated
 * line. Rotation (logrotate.h) happens between lines, so none is lost or
 * repeated across files.
 */
#ifndef PFPROF_LOGWRITER_H
#define PFPROF_LOGWRITER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "logformat.h"
#include "logresume.h"
#include "logrotate.h"

struct logwriter;

/* Creates a writer of one log in dir; nothing is opened yet. NULL with errno on failure. */
struct logwriter *logwriter_new(const char *dir, enum log_kind kind,
				const struct logrotate_policy *policy);
void logwriter_free(struct logwriter *w);

/*
 * Opens the current file for appending, creating the directory entry and the
 * header if needed. A last line without its newline (the daemon was killed
 * while writing it) is cut off first. Returns 0 or -errno; on failure the
 * writer keeps queueing and logwriter_flush() retries the open.
 */
int logwriter_open(struct logwriter *w, uint64_t now_s);

/* Where the writer's logs end (logresume_last_position()). */
int logwriter_last_position(const struct logwriter *w, struct log_position *pos);

/* Samples after this call belong to stream (a load_id line is queued when it changes). */
void logwriter_set_stream(struct logwriter *w, const struct log_stream *stream);

/*
 * Whether n more lines (and a pending load_id line) fit in the queue: the
 * caller of several adds that must go in together asks first.
 */
bool logwriter_reserve(struct logwriter *w, size_t n);

/* Queues lines; false if the queue is full (the caller stops draining). */
bool logwriter_add_sample(struct logwriter *w, const struct mp3_ring_sample *s,
			  uint64_t wall_ns, const struct log_context *context);
bool logwriter_add_missed(struct logwriter *w, uint64_t first_seq, uint64_t count);
/* The per-process log's lines: one process in a sample, and records lost of it. */
bool logwriter_add_proc(struct logwriter *w, const struct log_proc *p);
bool logwriter_add_lost(struct logwriter *w, uint64_t seq, uint64_t count);
/* The faults log's line: one process's faults in one mapping (false also without memory). */
bool logwriter_add_fault(struct logwriter *w, const struct log_fault *f);
/* The pages log's line: one page sent to swap or taken back. */
bool logwriter_add_page(struct logwriter *w, const struct log_page *pg);
/* The memory log's line: a target's cgroup's memory. */
bool logwriter_add_memory(struct logwriter *w, const struct log_memory *lm);

/*
 * Opens the file if needed and writes the queued lines, rotating by size and
 * age (now_s is the wall clock). Returns 0 when the queue is empty, else
 * -errno of what stopped it (the lines stay queued).
 */
int logwriter_flush(struct logwriter *w, uint64_t now_s);

/* Sample lines written to the file since the last call (missed, load_id lines not counted). */
uint64_t logwriter_take_samples_written(struct logwriter *w);

size_t logwriter_queued(const struct logwriter *w);
/* Wall-clock second at which the current file reaches its rotation age; 0: none. */
uint64_t logwriter_rotation_due(const struct logwriter *w);
/* Path of the current file. */
const char *logwriter_path(const struct logwriter *w);

#endif /* PFPROF_LOGWRITER_H */
