// SPDX-License-Identifier: GPL-2.0
/* pfprofctl follow: samples as they are taken, in the log's format. */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "ctl.h"
#include "logwriter.h"
#include "mp3ring.h"

struct follow_options {
	uint64_t backlog;	/* samples already taken to print first */
	uint64_t count;		/* stop after this many; 0: never */
};

static bool on_option(int opt, const char *arg, void *ctx)
{
	struct follow_options *o = ctx;
	char *end;
	unsigned long long v;

	errno = 0;
	v = strtoull(arg, &end, 10);
	if (errno || end == arg || *end || *arg == '-')
		return false;
	if (opt == 'n')
		o->backlog = v;
	else
		o->count = v;
	return true;
}

static uint64_t wall_offset_ns(void)
{
	struct timespec real, mono;

	clock_gettime(CLOCK_REALTIME, &real);
	clock_gettime(CLOCK_MONOTONIC, &mono);
	return (real.tv_sec - mono.tv_sec) * 1000000000ULL + real.tv_nsec - mono.tv_nsec;
}

/* Prints what is new; returns how many samples it printed. */
static uint64_t print_new(const struct mp3ring *ring, uint64_t *next, uint64_t limit)
{
	struct mp3_ring_sample s;
	char line[LOGWRITER_LINE_MAX];
	uint64_t printed = 0;

	while (!limit || printed < limit) {
		uint64_t first = *next, missed = 0;
		enum mp3ring_status got = mp3ring_read(ring, next, &s, &missed);

		if (missed) {
			logwriter_format_missed(line, sizeof(line), first, missed);
			fputs(line, stdout);
		}
		if (got == MP3RING_EMPTY)
			break;
		logwriter_format_sample(line, sizeof(line), &s, s.time_ns + wall_offset_ns());
		fputs(line, stdout);
		printed++;
	}
	fflush(stdout);
	return printed;
}

static int follow(const struct mp3ring *ring, int fd, const struct follow_options *o)
{
	uint64_t head = mp3ring_head(ring), printed = 0, dummy;
	uint64_t next = head > o->backlog ? head - o->backlog : 0;
	struct pollfd pfd = { .fd = fd, .events = POLLIN };

	printf("%s\n", LOGWRITER_COLUMNS);
	for (;;) {
		/* read() first: poll() then waits for a sample after this one. */
		if (read(fd, &dummy, sizeof(dummy)) < 0 && errno != EAGAIN)
			return -errno;
		printed += print_new(ring, &next, o->count ? o->count - printed : 0);
		if (ferror(stdout))
			return -EIO;
		if (o->count && printed >= o->count)
			return 0;
		if (poll(&pfd, 1, -1) < 0 && errno != EINTR)
			return -errno;
	}
}

int ctl_follow(struct ctl *ctl, int argc, char **argv)
{
	static const char details[] =
		"Prints one line per sample in the log format (see pfprofd(8)) until\n"
		"interrupted.\n"
		"  -n, --lines N   first print the last N samples already taken (default 0)\n"
		"      --count N   exit after printing N samples\n";
	static const struct option options[] = {
		{ "lines", required_argument, NULL, 'n' },
		{ "count", required_argument, NULL, 'C' },
		{ 0 }
	};
	struct follow_options o = { 0 };
	struct mp3ring ring;
	int status = ctl_options(ctl_find_command("follow"), details, argc, argv, "n:",
				 options, on_option, &o);
	int fd, err;

	if (status >= 0)
		return status;
	if (optind < argc)
		return ctl_unexpected_argument(ctl_find_command("follow"), argv[optind]);
	fd = open(ctl->config.device, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return ctl_module_error(-errno, ctl->config.device);
	err = mp3ring_map(&ring, fd);
	if (err) {
		close(fd);
		return ctl_module_error(err, ctl->config.device);
	}
	err = follow(&ring, fd, &o);
	if (err)
		ctl_error(err, "following %s", ctl->config.device);
	mp3ring_unmap(&ring);
	close(fd);
	return err ? CTL_FAILED : CTL_OK;
}
