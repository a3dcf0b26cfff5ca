/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What a restarted pfprofd reads back from the logs: where they end, so it
 * resumes after the last sample logged, and the state of the current file,
 * which it takes over.
 */
#ifndef PFPROF_LOGRESUME_H
#define PFPROF_LOGRESUME_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/stat.h>

#include "logformat.h"

/* Where the logs end. */
struct log_position {
	uint64_t load_id;	/* of the last sample; 0 if no load_id line precedes it */
	uint64_t next_seq;	/* the seq after the last one logged */
};

/*
 * Reads a log in dir (the current file, then .1 ... .keep) for the last data
 * line and the load_id it belongs to. 0, -ENOENT if no file holds a data
 * line, or another -errno.
 */
int logresume_last_position(const char *dir, enum log_kind kind, unsigned int keep,
			    struct log_position *pos);

/* What logresume_adopt() finds in an existing current file. */
struct log_adopted {
	uint64_t end;		/* just past its last complete line */
	uint64_t created;	/* its header's "# created" second, else its mtime */
	bool has_sample;	/* it holds a sample line */
};

/* Reads the current file at path, of st's size; 0 or -errno. */
int logresume_adopt(const char *path, const struct stat *st, struct log_adopted *out);

#endif /* PFPROF_LOGRESUME_H */
