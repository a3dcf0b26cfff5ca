/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The sample logs: text files in one directory that gnuplot, awk and
 * spreadsheets read directly. The current file is "pfprof.log"; rotation
 * renames it to "pfprof.log.1" (older ones move up to .2 ... .keep, the
 * oldest is deleted) and starts a new one.
 *
 * Every file starts with this header (all '#' lines are comments to gnuplot):
 *   # pfprof log format 1
 *   # created <unix seconds>
 *   # columns: seq wall_time_s monotonic_s jiffies minor_faults major_faults cpu_ms processes minor_total major_total cpu_total_ms
 *   # units: ...one line describing each column...
 * and "# load_id <16 hex digits> hz <HZ> period_ns <ns>" precedes the first
 * sample of every module load (again at the top of every new file).
 * A sample line: "%llu %.6f %.6f %llu %llu %llu %.3f %u %llu %llu %.3f\n".
 * Samples the reader could not get: "# missed <N> samples (seq <A>..<B>)".
 *
 * Lines are queued in memory and written whole: a line that cannot be written
 * completely (ENOSPC, EIO) is cut off again with ftruncate() and stays queued,
 * so no file ever holds a torn or duplicated line. Rotation happens between
 * lines, so none is lost or repeated across files.
 */
#ifndef PFPROF_LOGWRITER_H
#define PFPROF_LOGWRITER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <linux/mp3.h>

#define LOGWRITER_FILE "pfprof.log"
#define LOGWRITER_QUEUE_MAX 65536	/* lines held while the disk refuses them */
#define LOGWRITER_LINE_MAX 256		/* any sample or marker line, with its NUL */
#define LOGWRITER_COLUMNS "# columns: seq wall_time_s monotonic_s jiffies minor_faults " \
	"major_faults cpu_ms processes minor_total major_total cpu_total_ms"

struct logwriter_config {
	const char *dir;
	uint64_t rotate_size;	/* bytes; 0: never */
	uint64_t rotate_age_s;	/* seconds since the file was created; 0: never */
	unsigned int keep;	/* rotated files kept */
};

/* Identifies the module load the samples come from. */
struct log_stream {
	uint64_t load_id;
	uint32_t hz;
	uint64_t period_ns;
};

/* Where the logs end: what a restarted daemon resumes after. */
struct log_position {
	uint64_t load_id;
	uint64_t next_seq;	/* the seq after the last one logged */
};

struct logwriter;

/* Creates a writer; nothing is opened yet. NULL with errno on failure. */
struct logwriter *logwriter_new(const struct logwriter_config *config);
void logwriter_free(struct logwriter *w);

/*
 * Opens the current file for appending, creating the directory entry and the
 * header if needed. A last line without its newline (the daemon was killed
 * while writing it) is cut off first. Returns 0 or -errno; on failure the
 * writer keeps queueing and logwriter_flush() retries the open.
 */
int logwriter_open(struct logwriter *w, uint64_t now_s);

/*
 * Reads the logs (current file, then pfprof.log.1, ...) for the last sample
 * line and the load_id it belongs to. Returns 0, or -ENOENT if no file holds
 * a sample, or another -errno.
 */
int logwriter_last_position(const struct logwriter *w, struct log_position *pos);

/* Samples after this call belong to stream (a load_id line is queued when it changes). */
void logwriter_set_stream(struct logwriter *w, const struct log_stream *stream);

/* Queues lines; false if the queue is full (the caller stops draining). */
bool logwriter_add_sample(struct logwriter *w, const struct mp3_ring_sample *s,
			  uint64_t wall_ns);
bool logwriter_add_missed(struct logwriter *w, uint64_t first_seq, uint64_t count);

/*
 * Writes the queued lines, rotating by size and age (now_s is the wall
 * clock). Returns 0 when the queue is empty, else -errno of what stopped it
 * (the lines stay queued).
 */
int logwriter_flush(struct logwriter *w, uint64_t now_s);

/* The text of a sample line and of a missed marker (for other printers too). */
int logwriter_format_sample(char *buf, size_t size, const struct mp3_ring_sample *s,
			    uint64_t wall_ns);
int logwriter_format_missed(char *buf, size_t size, uint64_t first_seq, uint64_t count);

size_t logwriter_queued(const struct logwriter *w);
/* Wall-clock second at which the current file reaches rotate_age; 0: none. */
uint64_t logwriter_rotation_due(const struct logwriter *w);
/* Path of the current file. */
const char *logwriter_path(const struct logwriter *w);

#endif /* PFPROF_LOGWRITER_H */
