/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Reads a log file backwards, line by line, a chunk at a time: what resuming
 * after the last sample needs, however large the file has grown. And reads
 * a log's files forwards, oldest first, for the readers of whole logs.
 */
#ifndef PFPROF_LOGSCAN_H
#define PFPROF_LOGSCAN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "logformat.h"

/* Called per line (without its '\n'), last line first; returns true to stop. */
typedef bool (*logscan_line_fn)(const char *line, size_t len, void *arg);

/* Exactly len bytes at off; 0, -errno, or -EIO if the file is shorter. */
int logscan_read_at(int fd, char *buf, size_t len, uint64_t off);

/* Sets *end just past the last '\n' in the first size bytes of fd (0: none); 0 or -errno. */
int logscan_complete_end(int fd, uint64_t size, uint64_t *end);

/*
 * Calls fn on the lines of fd's first end bytes (end is just past a '\n'),
 * from the last one back. Lines longer than 4 KiB are none of ours and are
 * skipped. 0 or -errno.
 */
int logscan_backward(int fd, uint64_t end, logscan_line_fn fn, void *arg);

/*
 * Calls fn on every line of the log of kind in dir, its rotated files
 * first, oldest (keep) first, then the current one; a missing file is
 * none. Each line comes without its '\n', NUL-terminated, in a buffer fn
 * may cut up; a line longer than 4 KiB comes in pieces. 0 or -errno.
 */
int logscan_forward(const char *dir, enum log_kind kind, unsigned int keep,
		    void (*fn)(char *line, void *ctx), void *ctx);

#endif /* PFPROF_LOGSCAN_H */
