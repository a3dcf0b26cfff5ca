// SPDX-License-Identifier: GPL-2.0
#include "logresume.h"

#include <errno.h>
#include <fcntl.h>
#include <unistd.h>

#include "logformat.h"
#include "logrotate.h"
#include "logscan.h"

/* "# created" is the second line; the header is shorter than this. */
#define HEADER_READ 4096

static bool stop_at_sample(const char *line, size_t len, void *arg)
{
	uint64_t seq;

	*(bool *)arg = logformat_parse_seq(line, len, &seq);
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
		p->have_seq = logformat_parse_seq(line, len, &p->seq);
		return false;
	}
	p->have_load_id = logformat_parse_load_id(line, len, &p->load_id);
	return p->have_load_id;
}

/* The position in one file; -ENOENT if it holds no sample. */
static int file_position(const char *path, struct log_position *pos)
{
	struct position_scan p = { 0 };
	struct stat st;
	/* Set by logscan_complete_end(), which gcc's analyzer does not see into. */
	uint64_t end = 0;
	int fd = open(path, O_RDONLY | O_CLOEXEC), err;

	if (fd < 0)
		return -errno;
	err = fstat(fd, &st) ? -errno : logscan_complete_end(fd, st.st_size, &end);
	if (!err)
		err = logscan_backward(fd, end, find_position, &p);
	close(fd);
	if (!err && !p.have_seq)
		err = -ENOENT;
	if (!err) {
		pos->load_id = p.have_load_id ? p.load_id : 0;
		pos->next_seq = p.seq + 1;
	}
	return err;
}

/* logrotate_each()'s fn: 1 at the newest file with a sample, which stops it. */
static int position_in(const char *path, void *pos)
{
	int err = file_position(path, pos);

	/* -ENOENT: it holds no sample, or it was rotated away since the listing. */
	if (err == -ENOENT)
		return 0;
	return err ? err : 1;
}

int logresume_last_position(const char *dir, enum log_kind kind, unsigned int keep,
			    struct log_position *pos)
{
	int err = logrotate_each(dir, kind, keep, LOGROTATE_NEWEST_FIRST, position_in, pos);

	if (err == 1)
		return 0;
	return err ? err : -ENOENT;
}

static uint64_t read_created(int fd, uint64_t size, const struct stat *st)
{
	char buf[HEADER_READ + 1];
	size_t n = size < HEADER_READ ? size : HEADER_READ;
	uint64_t created;

	if (logscan_read_at(fd, buf, n, 0))
		return st->st_mtime;
	buf[n] = '\0';
	return logformat_parse_created(buf, &created) ? created : (uint64_t)st->st_mtime;
}

int logresume_adopt(const char *path, const struct stat *st, struct log_adopted *out)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC), err;

	if (fd < 0)
		return -errno;
	err = logscan_complete_end(fd, st->st_size, &out->end);
	if (!err) {
		out->created = read_created(fd, out->end, st);
		out->has_sample = false;
		err = logscan_backward(fd, out->end, stop_at_sample, &out->has_sample);
	}
	close(fd);
	return err;
}
