// SPDX-License-Identifier: GPL-2.0
#include "logwriter.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Files are read backwards in chunks this big: rotate_size 0 lets them grow without bound. */
#define SCAN_CHUNK (64 * 1024)
/* Longer lines are none of ours (ours are < 1 KiB); the backward scan skips them. */
#define SCAN_LINE_MAX 4096
/* "# created" is the second line; the header is shorter than this. */
#define HEADER_READ 4096
#define LINE_BUF LOGWRITER_LINE_MAX
#define HEADER_BUF 2048	/* the header and a load_id line */
#define BATCH_BUF (64 * 1024)	/* lines written with one write() */
#define QUEUE_FIRST 64		/* the queue grows as needed, up to LOGWRITER_QUEUE_MAX */

static const char header_format[] =
	"# pfprof log format 1\n"
	"# created %" PRIu64 "\n"
	LOGWRITER_COLUMNS "\n"
	"# units: seq = sample number since module load; wall_time_s = seconds since"
	" 1970-01-01 UTC; monotonic_s = CLOCK_MONOTONIC seconds; jiffies = kernel ticks"
	" at hz per second (see load_id); minor_faults, major_faults = faults in the"
	" sample's period; cpu_ms = utime+stime in the period, ms; processes = processes"
	" summed; minor_total, major_total, cpu_total_ms = the same since module load\n";

/*
 * Queue entries keep the values, not the text: a sample is smaller than its
 * line and the text is only needed when it is written.
 */
enum entry_kind { ENTRY_SAMPLE, ENTRY_MISSED, ENTRY_STREAM };

struct entry {
	enum entry_kind kind;
	union {
		struct {
			struct mp3_ring_sample s;
			uint64_t wall_ns;
		} sample;
		struct {
			uint64_t first, count;
		} missed;
		struct log_stream stream;
	};
};

struct logwriter {
	char *path;			/* dir/pfprof.log */
	uint64_t rotate_size, rotate_age_s;
	unsigned int keep;

	/* FIFO ring of pending lines: count entries from head, cap slots allocated. */
	struct entry *queue;
	size_t cap, head, count;

	struct log_stream stream;	/* the last one set */
	bool stream_set;
	bool stream_pending;		/* changed while the queue was full: queue its line later */
	struct log_stream out_stream;	/* stream of the lines written last */
	bool out_stream_set;

	/* The current file; fd < 0 while it is not open. */
	int fd;
	uint64_t size;			/* bytes in it, tracked by us */
	uint64_t created;		/* its "# created" second */
	bool has_sample;		/* holds a sample line: only then is it rotated */
	struct log_stream file_stream;	/* its last load_id line written by us */
	bool file_stream_set;
};

/* ---- small helpers ---- */

static bool same_stream(const struct log_stream *a, const struct log_stream *b)
{
	return a->load_id == b->load_id && a->hz == b->hz && a->period_ns == b->period_ns;
}

/* Rounds to microseconds in integers: a double holds wall-clock ns only to ~0.2 us. */
static uint64_t ns_to_us(uint64_t ns)
{
	return ns / 1000 + (ns % 1000 >= 500);
}

/* Reads exactly len bytes at off; -errno, or -EIO if the file is shorter. */
static int read_at(int fd, char *buf, size_t len, uint64_t off)
{
	while (len) {
		ssize_t n = pread(fd, buf, len, off);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		if (n == 0)
			return -EIO;
		buf += n;
		len -= n;
		off += n;
	}
	return 0;
}

static int rotated_path(const struct logwriter *w, unsigned int n, char *buf, size_t size)
{
	int len = snprintf(buf, size, "%s.%u", w->path, n);

	return len < 0 || (size_t)len >= size ? -ENAMETOOLONG : 0;
}

/* ---- formatting ---- */

/* The text matches "%llu %.6f %.6f %llu %llu %llu %.3f %u %llu %llu %.3f\n". */
int logwriter_format_sample(char *buf, size_t size, const struct mp3_ring_sample *s,
			    uint64_t wall_ns)
{
	uint64_t wall_us = ns_to_us(wall_ns), mono_us = ns_to_us(s->time_ns);
	uint64_t cpu_us = ns_to_us(s->cpu_ns), total_us = ns_to_us(s->cpu_ns_total);

	return snprintf(buf, size,
			"%" PRIu64 " %" PRIu64 ".%06" PRIu64 " %" PRIu64 ".%06" PRIu64
			" %" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64 ".%03" PRIu64
			" %" PRIu32 " %" PRIu64 " %" PRIu64 " %" PRIu64 ".%03" PRIu64 "\n",
			(uint64_t)s->seq, wall_us / 1000000, wall_us % 1000000,
			mono_us / 1000000, mono_us % 1000000, (uint64_t)s->jiffies,
			(uint64_t)s->minor_faults, (uint64_t)s->major_faults,
			cpu_us / 1000, cpu_us % 1000, (uint32_t)s->nr_procs,
			(uint64_t)s->minor_total, (uint64_t)s->major_total,
			total_us / 1000, total_us % 1000);
}

int logwriter_format_missed(char *buf, size_t size, uint64_t first_seq, uint64_t count)
{
	return snprintf(buf, size, "# missed %" PRIu64 " samples (seq %" PRIu64 "..%" PRIu64 ")\n",
			count, first_seq, first_seq + count - 1);
}

static int format_stream(char *buf, size_t size, const struct log_stream *st)
{
	return snprintf(buf, size, "# load_id %016" PRIx64 " hz %" PRIu32 " period_ns %" PRIu64
			"\n", st->load_id, st->hz, st->period_ns);
}

static int format_entry(char *buf, size_t size, const struct entry *e)
{
	switch (e->kind) {
	case ENTRY_SAMPLE:
		return logwriter_format_sample(buf, size, &e->sample.s, e->sample.wall_ns);
	case ENTRY_MISSED:
		return logwriter_format_missed(buf, size, e->missed.first, e->missed.count);
	case ENTRY_STREAM:
		return format_stream(buf, size, &e->stream);
	}
	return -1;
}

/* ---- the queue ---- */

/* Makes room for n more entries; false if that would pass LOGWRITER_QUEUE_MAX. */
static bool queue_reserve(struct logwriter *w, size_t n)
{
	size_t cap = w->cap ? w->cap : QUEUE_FIRST;
	struct entry *q;

	if (w->count + n > LOGWRITER_QUEUE_MAX)
		return false;
	if (w->count + n <= w->cap)
		return true;
	while (cap < w->count + n)
		cap *= 2;
	if (cap > LOGWRITER_QUEUE_MAX)
		cap = LOGWRITER_QUEUE_MAX;
	q = malloc(cap * sizeof(*q));
	if (!q)
		return false;
	/* Copy the ring's two runs in order so that the new one starts at 0. */
	for (size_t i = 0; i < w->count; i++)
		q[i] = w->queue[(w->head + i) % w->cap];
	free(w->queue);
	w->queue = q;
	w->cap = cap;
	w->head = 0;
	return true;
}

/* Appends an entry; the caller reserved room for it. */
static struct entry *queue_push(struct logwriter *w, enum entry_kind kind)
{
	struct entry *e = &w->queue[(w->head + w->count) % w->cap];

	w->count++;
	e->kind = kind;
	return e;
}

static const struct entry *queue_at(const struct logwriter *w, size_t i)
{
	return i < w->count ? &w->queue[(w->head + i) % w->cap] : NULL;
}

static const struct entry *queue_front(const struct logwriter *w)
{
	return queue_at(w, 0);
}

static void queue_pop(struct logwriter *w)
{
	w->head = (w->head + 1) % w->cap;
	w->count--;
}

/*
 * Reserves room for n entries plus the load_id line of a stream set while
 * the queue was full, and queues that line: it must precede them.
 */
static bool reserve_after_stream(struct logwriter *w, size_t n)
{
	if (!queue_reserve(w, n + w->stream_pending))
		return false;
	if (w->stream_pending)
		queue_push(w, ENTRY_STREAM)->stream = w->stream;
	w->stream_pending = false;
	return true;
}

/* ---- reading files backwards ---- */

/* Called per line (without its '\n'), last line first; returns true to stop. */
typedef bool (*line_fn)(const char *line, size_t len, void *arg);

/* Sets *end just past the last '\n' in the first size bytes (0: none). */
static int complete_end(int fd, uint64_t size, uint64_t *end)
{
	char *buf = malloc(SCAN_CHUNK);
	uint64_t pos = size;
	int err = 0;

	if (!buf)
		return -ENOMEM;
	*end = 0;
	while (pos > 0) {
		size_t n = pos < SCAN_CHUNK ? pos : SCAN_CHUNK;
		const char *nl;

		pos -= n;
		err = read_at(fd, buf, n, pos);
		if (err)
			break;
		nl = memrchr(buf, '\n', n);
		if (nl) {
			*end = pos + (uint64_t)(nl - buf) + 1;
			break;
		}
	}
	free(buf);
	return err;
}

/*
 * Calls fn on the lines of the first end bytes (end is just past a '\n'),
 * from the last one back, reading SCAN_CHUNK bytes at a time. A line cut by
 * a chunk boundary is completed with the earlier chunk: the fragment moves
 * behind the chunk read before it.
 */
static int scan_backward(int fd, uint64_t end, line_fn fn, void *arg)
{
	char *buf = malloc(SCAN_CHUNK + SCAN_LINE_MAX);
	size_t carry = 0;	/* buf[0..carry): a line's end whose start is further back */
	bool skipping = false;	/* inside a line longer than SCAN_LINE_MAX: drop it */
	uint64_t pos = end;
	int err = 0;

	if (!buf)
		return -ENOMEM;
	while (pos > 0) {
		size_t n = pos < SCAN_CHUNK ? pos : SCAN_CHUNK;
		size_t e;

		pos -= n;
		memmove(buf + n, buf, carry);
		err = read_at(fd, buf, n, pos);
		if (err)
			goto out;
		e = n + carry;
		if (skipping) {
			const char *nl = memrchr(buf, '\n', n);

			if (!nl)
				continue;
			e = nl - buf + 1;
			skipping = false;
		}
		/* buf[0..e) ends with a '\n': hand out the lines that start in it. */
		for (;;) {
			const char *nl = e > 1 ? memrchr(buf, '\n', e - 1) : NULL;
			size_t start;

			if (!nl)
				break;
			start = nl - buf + 1;
			if (fn(buf + start, e - 1 - start, arg))
				goto out;
			e = start;
		}
		carry = e;
		if (carry > SCAN_LINE_MAX) {
			carry = 0;
			skipping = true;
		}
	}
	if (carry)
		fn(buf, carry - 1, arg);	/* the file's first line */
out:
	free(buf);
	return err;
}

/* A sample line starts with the seq number and a space. */
static bool parse_seq(const char *line, size_t len, uint64_t *seq)
{
	uint64_t v = 0;
	size_t i;

	for (i = 0; i < len && line[i] >= '0' && line[i] <= '9'; i++) {
		if (v > (UINT64_MAX - 9) / 10)
			return false;
		v = v * 10 + (uint64_t)(line[i] - '0');
	}
	if (i == 0 || i == len || line[i] != ' ')
		return false;
	*seq = v;
	return true;
}

static bool parse_load_id(const char *line, size_t len, uint64_t *load_id)
{
	static const char prefix[] = "# load_id ";
	char text[64];

	if (len < sizeof(prefix) - 1 || memcmp(line, prefix, sizeof(prefix) - 1))
		return false;
	if (len >= sizeof(text))
		len = sizeof(text) - 1;
	memcpy(text, line, len);
	text[len] = '\0';
	return sscanf(text, "# load_id %16" SCNx64, load_id) == 1;
}

static bool stop_at_sample(const char *line, size_t len, void *arg)
{
	uint64_t seq;

	*(bool *)arg = parse_seq(line, len, &seq);
	return *(bool *)arg;
}

struct position_scan {
	bool have_seq, have_load_id;
	uint64_t seq, load_id;
};

/* The last sample line, then the last load_id line before it. */
static bool find_position(const char *line, size_t len, void *arg)
{
	struct position_scan *p = arg;

	if (!p->have_seq) {
		p->have_seq = parse_seq(line, len, &p->seq);
		return false;
	}
	p->have_load_id = parse_load_id(line, len, &p->load_id);
	return p->have_load_id;
}

/* ---- the current file ---- */

/* "# created" of the header, else the file's mtime. */
static uint64_t read_created(int fd, uint64_t size, const struct stat *st)
{
	char buf[HEADER_READ + 1];
	size_t n = size < HEADER_READ ? size : HEADER_READ;
	const char *line;
	uint64_t created;

	if (read_at(fd, buf, n, 0))
		return st->st_mtime;
	buf[n] = '\0';
	line = strncmp(buf, "# created ", 10) ? strstr(buf, "\n# created ") : buf;
	if (line && *line == '\n')
		line++;
	if (line && sscanf(line, "# created %" SCNu64, &created) == 1)
		return created;
	return st->st_mtime;
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
	const struct entry *e = queue_front(w);

	if (e && e->kind == ENTRY_STREAM)
		return &e->stream;
	return w->out_stream_set ? &w->out_stream : NULL;
}

/* Writes the header and the load_id line into the empty current file, in one write. */
static int write_header(struct logwriter *w, uint64_t now_s)
{
	const struct log_stream *st = top_stream(w);
	char buf[HEADER_BUF];
	int len, more = 0, err;

	len = snprintf(buf, sizeof(buf), header_format, now_s);
	if (st && len > 0 && (size_t)len < sizeof(buf))
		more = format_stream(buf + len, sizeof(buf) - len, st);
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

/*
 * Takes over an existing file: a line without its '\n' (the writer died in
 * it) is cut off, the age comes from its header, and a file holding samples
 * may be rotated.
 */
static int adopt_file(struct logwriter *w, const struct stat *st)
{
	int rfd = open(w->path, O_RDONLY | O_CLOEXEC);
	uint64_t end;
	int err;

	if (rfd < 0)
		return -errno;
	err = complete_end(rfd, w->size, &end);
	if (!err && end < w->size && ftruncate(w->fd, end))
		err = -errno;
	if (!err) {
		w->size = end;
		w->created = read_created(rfd, end, st);
		w->has_sample = false;
		err = scan_backward(rfd, end, stop_at_sample, &w->has_sample);
	}
	close(rfd);
	return err;
}

int logwriter_open(struct logwriter *w, uint64_t now_s)
{
	struct stat st;
	int err;

	if (w->fd >= 0)
		return 0;
	w->fd = open(w->path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
	if (w->fd < 0)
		return -errno;
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

/* ---- rotation ---- */

/* Whether the current file is due for rotation once it has size bytes. */
static bool rotation_due(const struct logwriter *w, uint64_t size, bool has_sample,
			 uint64_t now_s)
{
	if (!has_sample)
		return false;
	/* Differences, not sums: a huge rotate_age_s must not wrap around. */
	return (w->rotate_size && size >= w->rotate_size) ||
	       (w->rotate_age_s && now_s >= w->created &&
		now_s - w->created >= w->rotate_age_s);
}

static bool rotation_needed(const struct logwriter *w, uint64_t now_s)
{
	return rotation_due(w, w->size, w->has_sample, now_s);
}

/* A crash between renames leaves gaps in .1 ... .keep: missing files are fine. */
static int rename_if_there(const char *from, const char *to)
{
	return rename(from, to) && errno != ENOENT ? -errno : 0;
}

static int unlink_if_there(const char *path)
{
	return unlink(path) && errno != ENOENT ? -errno : 0;
}

/*
 * How many of .1, .2, ... exist without a gap, at most keep; -errno on error.
 * lstat(), as rename() moves a symbolic link, dangling or not.
 */
static int rotated_run(const struct logwriter *w, char *buf, size_t size)
{
	for (unsigned int n = 1; n <= w->keep; n++) {
		struct stat st;
		int err = rotated_path(w, n, buf, size);

		if (err)
			return err;
		if (lstat(buf, &st))
			return errno == ENOENT ? (int)n - 1 : -errno;
	}
	return (int)w->keep;
}

/*
 * Shifts pfprof.log.N to .N+1 and the current file to .1; keep > 0. Only the
 * run of files up to the first gap moves: a crash between two renames leaves
 * a gap, which this fills without touching the older files above it, and a
 * large keep costs no more than the files there are. With all keep
 * files there, .keep is dropped.
 */
static int shift_files(const struct logwriter *w)
{
	size_t size = strlen(w->path) + 16;
	char *from = malloc(size), *to = malloc(size);
	int top, err = -ENOMEM;

	if (!from || !to)
		goto out;
	top = rotated_run(w, to, size);
	err = top < 0 ? top : 0;
	if (!err && (unsigned int)top == w->keep) {
		err = rotated_path(w, w->keep, to, size);
		if (!err)
			err = unlink_if_there(to);
		top--;
	}
	for (int n = top; !err && n >= 1; n--) {
		err = rotated_path(w, n, from, size);
		if (!err)
			err = rotated_path(w, n + 1, to, size);
		if (!err)
			err = rename_if_there(from, to);
	}
	if (!err)
		err = rotated_path(w, 1, to, size);
	if (!err)
		err = rename_if_there(w->path, to);
out:
	free(from);
	free(to);
	return err;
}

static int rotate(struct logwriter *w, uint64_t now_s)
{
	int err;

	close_file(w);
	err = w->keep ? shift_files(w) : unlink_if_there(w->path);
	/* On failure the next flush reopens whatever is there and tries again. */
	return err ? err : logwriter_open(w, now_s);
}

/* ---- the interface ---- */

struct logwriter *logwriter_new(const struct logwriter_config *config)
{
	struct logwriter *w = calloc(1, sizeof(*w));

	if (!w)
		return NULL;
	w->fd = -1;
	if (asprintf(&w->path, "%s/%s", config->dir, LOGWRITER_FILE) < 0) {
		free(w);
		errno = ENOMEM;
		return NULL;
	}
	w->rotate_size = config->rotate_size;
	w->rotate_age_s = config->rotate_age_s;
	w->keep = config->keep;
	return w;
}

void logwriter_free(struct logwriter *w)
{
	if (!w)
		return;
	close_file(w);
	free(w->queue);
	free(w->path);
	free(w);
}

int logwriter_last_position(const struct logwriter *w, struct log_position *pos)
{
	size_t size = strlen(w->path) + 16;
	char *path = malloc(size);
	int err = -ENOENT;

	if (!path)
		return -ENOMEM;
	for (unsigned int n = 0; n <= w->keep && err == -ENOENT; n++) {
		struct position_scan p = { 0 };
		uint64_t end;
		struct stat st;
		int fd;

		if (n == 0)
			snprintf(path, size, "%s", w->path);
		else if (rotated_path(w, n, path, size))
			break;
		fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd < 0) {
			/* Missing files (-ENOENT) are gaps left by a crash during rotation. */
			err = -errno;
			continue;
		}
		err = fstat(fd, &st) ? -errno : complete_end(fd, st.st_size, &end);
		if (!err)
			err = scan_backward(fd, end, find_position, &p);
		close(fd);
		if (!err && !p.have_seq)
			err = -ENOENT;
		if (!err) {
			/* No load_id line before it: 0 matches no module load. */
			pos->load_id = p.have_load_id ? p.load_id : 0;
			pos->next_seq = p.seq + 1;
		}
	}
	free(path);
	return err;
}

void logwriter_set_stream(struct logwriter *w, const struct log_stream *stream)
{
	if (w->stream_set && same_stream(&w->stream, stream))
		return;
	w->stream = *stream;
	w->stream_set = true;
	w->stream_pending = true;
	/* Queue its line now if there is room, else before the next line added. */
	reserve_after_stream(w, 0);
}

bool logwriter_add_sample(struct logwriter *w, const struct mp3_ring_sample *s,
			  uint64_t wall_ns)
{
	struct entry *e;

	if (!reserve_after_stream(w, 1))
		return false;
	e = queue_push(w, ENTRY_SAMPLE);
	e->sample.s = *s;
	e->sample.wall_ns = wall_ns;
	return true;
}

bool logwriter_add_missed(struct logwriter *w, uint64_t first_seq, uint64_t count)
{
	struct entry *e;

	if (!count)
		return true;
	if (!reserve_after_stream(w, 1))
		return false;
	e = queue_push(w, ENTRY_MISSED);
	e->missed.first = first_seq;
	e->missed.count = count;
	return true;
}

static int write_line(struct logwriter *w, const struct entry *e)
{
	char buf[LINE_BUF];
	int len = format_entry(buf, sizeof(buf), e);

	if (len < 0 || (size_t)len >= sizeof(buf))
		return -EOVERFLOW;	/* cannot happen: the longest line is ~240 bytes */
	return write_text(w, buf, len);
}

/* Writes entry e, the queue's first, rotating first if the file is due. */
static int write_entry(struct logwriter *w, const struct entry *e, uint64_t now_s)
{
	bool is_stream = e->kind == ENTRY_STREAM;
	int err;

	if (rotation_needed(w, now_s)) {
		err = rotate(w, now_s);
		if (err)
			return err;
	}
	/* A new file may already start with this load_id line (see top_stream()). */
	if (!is_stream || !w->file_stream_set || !same_stream(&w->file_stream, &e->stream)) {
		err = write_line(w, e);
		if (err)
			return err;
	}
	if (is_stream) {
		w->out_stream = w->file_stream = e->stream;
		w->out_stream_set = w->file_stream_set = true;
	} else if (e->kind == ENTRY_SAMPLE) {
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
	const struct entry *e;
	size_t n = 0;

	*len = 0;
	while ((e = queue_at(w, n)) && e->kind != ENTRY_STREAM) {
		int line;

		if (rotation_due(w, w->size + *len, has_sample, now_s) ||
		    size - *len < LINE_BUF)
			break;
		line = format_entry(buf + *len, LINE_BUF, e);
		if (line < 0 || line >= LINE_BUF)
			break;	/* cannot happen: the longest line is ~240 bytes */
		*len += line;
		has_sample |= e->kind == ENTRY_SAMPLE;
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
		w->has_sample |= queue_front(w)->kind == ENTRY_SAMPLE;
		queue_pop(w);
	}
	return n;
}

int logwriter_flush(struct logwriter *w, uint64_t now_s)
{
	int err = logwriter_open(w, now_s);

	if (err)
		return err;
	for (;;) {
		const struct entry *e;

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
		e = queue_front(w);
		if (!e)
			return 0;
		err = write_entry(w, e, now_s);
		if (err)
			return err;
		queue_pop(w);
	}
}

size_t logwriter_queued(const struct logwriter *w)
{
	/* A pending load_id line will take a slot too. */
	return w->count + w->stream_pending;
}

uint64_t logwriter_rotation_due(const struct logwriter *w)
{
	if (!w->rotate_age_s || w->fd < 0)
		return 0;
	if (w->rotate_age_s > UINT64_MAX - w->created)
		return UINT64_MAX;
	return w->created + w->rotate_age_s;
}

const char *logwriter_path(const struct logwriter *w)
{
	return w->path;
}
