// SPDX-License-Identifier: GPL-2.0
#include "logwriter.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "logqueue.h"
#include "privfile.h"

#define HEADER_BUF (LOGFORMAT_HEADER_MAX + LOGFORMAT_LINE_MAX)	/* header and load_id line */
#define BATCH_BUF (64 * 1024)	/* lines written with one write() */

struct logwriter {
	char *dir;
	enum log_kind kind;
	char path[PATH_MAX];		/* dir/pfprof.log */
	struct logrotate_policy policy;
	struct logqueue queue;
	uint64_t samples_written;	/* sample lines written since the last take */

	struct log_stream stream;	/* the last one set */
	bool stream_set;
	bool stream_pending;		/* changed while the queue was full: queue its line later */
	struct log_stream out_stream;	/* stream of the lines written last */
	bool out_stream_set;

	/* The current file; fd < 0 while it is not open. */
	int fd;
	uint64_t size;			/* bytes in it, tracked by us */
	uint64_t created;		/* its "# created" second */
	bool has_sample;		/* holds a data line: only then is it rotated */
	struct log_stream file_stream;	/* its last load_id line written by us */
	bool file_stream_set;
};

/*
 * Reserves room for n entries plus the load_id line of a stream set while
 * the queue was full, and queues that line: it must precede them.
 */
static bool reserve_after_stream(struct logwriter *w, size_t n)
{
	if (!logqueue_reserve(&w->queue, n + w->stream_pending))
		return false;
	if (w->stream_pending)
		logqueue_push(&w->queue, LOGENTRY_STREAM)->stream = w->stream;
	w->stream_pending = false;
	return true;
}

static void close_file(struct logwriter *w)
{
	if (w->fd >= 0)
		close(w->fd);
	w->fd = -1;
}

/*
 * Writes text with one write(). Anything less is cut off again, so the file
 * never holds part of it; if even that fails the file is closed, and the
 * reopen cuts the torn line as after a crash.
 */
static int write_text(struct logwriter *w, const char *text, size_t len)
{
	ssize_t n = write(w->fd, text, len);
	int err;

	if (n >= 0 && (size_t)n == len) {
		w->size += len;
		return 0;
	}
	err = n < 0 ? errno : ENOSPC;
	if (ftruncate(w->fd, w->size))
		close_file(w);
	return -err;
}

/* The stream of the next line to write: a new file starts with its load_id line. */
static const struct log_stream *top_stream(const struct logwriter *w)
{
	const struct logentry *e = logqueue_at(&w->queue, 0);

	if (e && e->kind == LOGENTRY_STREAM)
		return &e->stream;
	return w->out_stream_set ? &w->out_stream : NULL;
}

/* Writes the header and the load_id line into the empty current file, in one write. */
static int write_header(struct logwriter *w, uint64_t now_s)
{
	const struct log_stream *st = top_stream(w);
	char buf[HEADER_BUF];
	int len, more = 0, err;

	len = logformat_header(buf, LOGFORMAT_HEADER_MAX, w->kind, now_s);
	if (st && len > 0 && len < LOGFORMAT_HEADER_MAX)
		more = logformat_stream(buf + len, sizeof(buf) - len, st);
	if (len < 0 || more < 0 || (size_t)len + more >= sizeof(buf))
		return -EOVERFLOW;	/* cannot happen: HEADER_BUF has room */
	err = write_text(w, buf, len + more);
	if (err) {
		/* Leave the empty file: the next open writes the header again. */
		close_file(w);
		return err;
	}
	w->created = now_s;
	w->has_sample = false;
	w->file_stream_set = st != NULL;
	if (st)
		w->file_stream = *st;
	return 0;
}

/* Takes over an existing file: a line the writer died in is cut off. */
static int adopt_file(struct logwriter *w, const struct stat *st)
{
	struct log_adopted found;
	int err = logresume_adopt(w->path, st, &found);

	if (!err && found.end < w->size && ftruncate(w->fd, found.end))
		err = -errno;
	if (err)
		return err;
	w->size = found.end;
	w->created = found.created;
	w->has_sample = found.has_sample;
	return 0;
}

int logwriter_open(struct logwriter *w, uint64_t now_s)
{
	struct stat st;
	int err;

	if (w->fd >= 0)
		return 0;
	w->fd = private_open(w->path, O_WRONLY | O_APPEND);
	if (w->fd < 0) {
		err = w->fd;
		w->fd = -1;
		return err;
	}
	if (fstat(w->fd, &st)) {
		err = -errno;
		close_file(w);
		return err;
	}
	w->size = st.st_size;
	/* What the file's last load_id line says is unknown: write ours again. */
	w->file_stream_set = false;
	err = w->size ? adopt_file(w, &st) : 0;
	if (!err && !w->size)
		err = write_header(w, now_s);
	if (err)
		close_file(w);
	return err;
}

static bool rotation_needed(const struct logwriter *w, uint64_t now_s)
{
	return logrotate_due(&w->policy, w->created, w->size, w->has_sample, now_s);
}

static int rotate(struct logwriter *w, uint64_t now_s)
{
	int err;

	close_file(w);
	err = logrotate_shift(w->dir, w->kind, w->policy.keep);
	/* On failure the next flush reopens whatever is there and tries again. */
	return err ? err : logwriter_open(w, now_s);
}

struct logwriter *logwriter_new(const char *dir, enum log_kind kind,
				const struct logrotate_policy *policy)
{
	struct logwriter *w = calloc(1, sizeof(*w));
	int err = -ENOMEM;

	if (!w)
		return NULL;
	w->fd = -1;
	w->kind = kind;
	w->policy = *policy;
	w->dir = strdup(dir);
	if (w->dir)
		err = logformat_path(w->path, sizeof(w->path), dir, kind, 0);
	if (err) {
		logwriter_free(w);
		errno = -err;
		return NULL;
	}
	return w;
}

void logwriter_free(struct logwriter *w)
{
	if (!w)
		return;
	close_file(w);
	logqueue_free(&w->queue);
	free(w->dir);
	free(w);
}

int logwriter_last_position(const struct logwriter *w, struct log_position *pos)
{
	return logresume_last_position(w->dir, w->kind, w->policy.keep, pos);
}

void logwriter_set_stream(struct logwriter *w, const struct log_stream *stream)
{
	if (w->stream_set && logformat_same_stream(&w->stream, stream))
		return;
	w->stream = *stream;
	w->stream_set = true;
	w->stream_pending = true;
	/* Queue its line now if there is room, else before the next line added. */
	reserve_after_stream(w, 0);
}

/* A new entry of this kind at the queue's end, after a pending load_id line; NULL if full. */
static struct logentry *push(struct logwriter *w, enum logentry_kind kind)
{
	return reserve_after_stream(w, 1) ? logqueue_push(&w->queue, kind) : NULL;
}

bool logwriter_add_sample(struct logwriter *w, const struct mp3_ring_sample *s,
			  uint64_t wall_ns, const struct log_context *context)
{
	struct logentry *e = push(w, LOGENTRY_SAMPLE);

	if (!e)
		return false;
	e->sample.s = *s;
	e->sample.wall_ns = wall_ns;
	e->sample.context = *context;
	return true;
}

bool logwriter_reserve(struct logwriter *w, size_t n)
{
	return logqueue_reserve(&w->queue, n + w->stream_pending);
}

bool logwriter_add_proc(struct logwriter *w, const struct log_proc *p)
{
	struct logentry *e = push(w, LOGENTRY_PROC);

	if (!e)
		return false;
	e->proc = *p;
	return true;
}

bool logwriter_add_fault(struct logwriter *w, const struct log_fault *f)
{
	char *name = strdup(f->name);
	struct logentry *e = name ? push(w, LOGENTRY_FAULT) : NULL;

	if (!e) {
		free(name);
		return false;
	}
	e->fault.f = *f;
	e->fault.f.comm = e->fault.f.name = NULL;
	snprintf(e->fault.comm, sizeof(e->fault.comm), "%s", f->comm);
	e->fault.name = name;
	return true;
}

bool logwriter_add_page(struct logwriter *w, const struct log_page *pg)
{
	struct logentry *e = push(w, LOGENTRY_PAGE);

	if (!e)
		return false;
	e->page.pg = *pg;
	e->page.pg.comm = NULL;
	snprintf(e->page.comm, sizeof(e->page.comm), "%s", pg->comm);
	return true;
}

bool logwriter_add_memory(struct logwriter *w, const struct log_memory *lm)
{
	struct logentry *e = push(w, LOGENTRY_MEMORY);

	if (!e)
		return false;
	e->memory = *lm;
	return true;
}

bool logwriter_add_lost(struct logwriter *w, uint64_t seq, uint64_t count)
{
	struct logentry *e = push(w, LOGENTRY_LOST);

	if (!e)
		return false;
	e->lost.seq = seq;
	e->lost.count = count;
	return true;
}

bool logwriter_add_missed(struct logwriter *w, uint64_t first_seq, uint64_t count)
{
	struct logentry *e;

	if (!count)
		return true;
	e = push(w, LOGENTRY_MISSED);
	if (!e)
		return false;
	e->missed.first = first_seq;
	e->missed.count = count;
	return true;
}

static int write_line(struct logwriter *w, const struct logentry *e)
{
	char buf[LOGFORMAT_LINE_MAX];
	int len = logentry_format(buf, sizeof(buf), e);

	if (len < 0 || (size_t)len >= sizeof(buf))
		return -EOVERFLOW;	/* cannot happen: names are cut to fit */
	return write_text(w, buf, len);
}

/* The queue's first entry is in the file: off the queue, and counted if a sample. */
static void pop_written(struct logwriter *w)
{
	w->samples_written += logqueue_at(&w->queue, 0)->kind == LOGENTRY_SAMPLE;
	logqueue_pop(&w->queue);
}

/* Writes entry e, the queue's first, rotating first if the file is due. */
static int write_entry(struct logwriter *w, const struct logentry *e, uint64_t now_s)
{
	bool is_stream = e->kind == LOGENTRY_STREAM;
	int err;

	if (rotation_needed(w, now_s)) {
		err = rotate(w, now_s);
		if (err)
			return err;
	}
	/* A new file may already start with this load_id line (see top_stream()). */
	if (!is_stream || !w->file_stream_set ||
	    !logformat_same_stream(&w->file_stream, &e->stream)) {
		err = write_line(w, e);
		if (err)
			return err;
	}
	if (is_stream) {
		w->out_stream = w->file_stream = e->stream;
		w->out_stream_set = w->file_stream_set = true;
	} else if (logentry_is_data(e->kind)) {
		w->has_sample = true;
	}
	return 0;
}

/*
 * Formats the sample and missed lines at the front of the queue into buf, as
 * many as write_entry() would write one by one into the current file: up to
 * a load_id line, the line after which the file is due for rotation, or a
 * full buf. Returns how many entries buf holds (0: the front is none of them).
 */
static size_t gather_lines(const struct logwriter *w, uint64_t now_s, char *buf, size_t size,
			   size_t *len)
{
	bool has_sample = w->has_sample;
	const struct logentry *e;
	size_t n = 0;

	*len = 0;
	while ((e = logqueue_at(&w->queue, n)) && e->kind != LOGENTRY_STREAM) {
		int line;

		if (logrotate_due(&w->policy, w->created, w->size + *len, has_sample, now_s) ||
		    size - *len < LOGFORMAT_LINE_MAX)
			break;
		line = logentry_format(buf + *len, LOGFORMAT_LINE_MAX, e);
		if (line < 0 || line >= LOGFORMAT_LINE_MAX)
			break;	/* cannot happen: names are cut to fit */
		*len += line;
		has_sample |= logentry_is_data(e->kind);
		n++;
	}
	return n;
}

/*
 * Writes a run of lines with one write(); all or none of it reaches the file
 * (write_text()). Returns how many entries went out, or -errno.
 */
static int write_lines(struct logwriter *w, uint64_t now_s)
{
	char buf[BATCH_BUF];
	size_t len, n = gather_lines(w, now_s, buf, sizeof(buf), &len);
	int err;

	if (!n)
		return 0;
	err = write_text(w, buf, len);
	if (err)
		return err;
	for (size_t i = 0; i < n; i++) {
		enum logentry_kind kind = logqueue_at(&w->queue, 0)->kind;

		w->has_sample |= logentry_is_data(kind);
		pop_written(w);
	}
	return n;
}

int logwriter_flush(struct logwriter *w, uint64_t now_s)
{
	int err = logwriter_open(w, now_s);

	if (err)
		return err;
	for (;;) {
		const struct logentry *e;

		/* A stream that changed while the queue was full goes in once there is room. */
		if (w->stream_pending)
			reserve_after_stream(w, 0);
		/* Rotation, load_id lines and full-buffer ends go one entry at a time. */
		if (w->fd >= 0 && !rotation_needed(w, now_s)) {
			err = write_lines(w, now_s);
			if (err > 0)
				continue;
			/* A refused run is retried line by line: as much as fits goes in. */
			if (err < 0 && w->fd < 0)
				return err;
		}
		e = logqueue_at(&w->queue, 0);
		if (!e)
			return 0;
		err = write_entry(w, e, now_s);
		if (err)
			return err;
		pop_written(w);
	}
}

uint64_t logwriter_take_samples_written(struct logwriter *w)
{
	uint64_t n = w->samples_written;

	w->samples_written = 0;
	return n;
}

size_t logwriter_queued(const struct logwriter *w)
{
	/* A pending load_id line will take a slot too. */
	return w->queue.count + w->stream_pending;
}

uint64_t logwriter_rotation_due(const struct logwriter *w)
{
	return w->fd < 0 ? 0 : logrotate_due_at(&w->policy, w->created);
}

const char *logwriter_path(const struct logwriter *w)
{
	return w->path;
}
