// SPDX-License-Identifier: GPL-2.0
#include "logscan.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "logrotate.h"

/* Files are read backwards in chunks this big: rotate_size 0 lets them grow without bound. */
#define SCAN_CHUNK (64 * 1024)
/* Longer lines are none of ours (ours are < 1 KiB); the backward scan skips them. */
#define SCAN_LINE_MAX 4096

int logscan_read_at(int fd, char *buf, size_t len, uint64_t off)
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

int logscan_complete_end(int fd, uint64_t size, uint64_t *end)
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
		err = logscan_read_at(fd, buf, n, pos);
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
 * A line cut by a chunk boundary is completed with the earlier chunk: the
 * fragment moves behind the chunk read before it.
 */
int logscan_backward(int fd, uint64_t end, logscan_line_fn fn, void *arg)
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
		err = logscan_read_at(fd, buf, n, pos);
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

/* What logscan_forward() hands each file's lines to. */
struct forward_scan {
	void (*fn)(char *line, void *ctx);
	void *ctx;
};

static int forward_file(const char *path, void *arg)
{
	const struct forward_scan *scan = arg;
	char line[SCAN_LINE_MAX];
	FILE *f = fopen(path, "re");

	/* Rotated away since the listing: its lines are in the next file. */
	if (!f)
		return errno == ENOENT ? 0 : -errno;
	while (fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = '\0';
		scan->fn(line, scan->ctx);
	}
	fclose(f);
	return 0;
}

int logscan_forward(const char *dir, enum log_kind kind, unsigned int keep,
		    void (*fn)(char *line, void *ctx), void *ctx)
{
	struct forward_scan scan = { .fn = fn, .ctx = ctx };
	int err = logrotate_each(dir, kind, keep, LOGROTATE_OLDEST_FIRST, forward_file, &scan);

	return err == -ENOENT ? 0 : err;
}
