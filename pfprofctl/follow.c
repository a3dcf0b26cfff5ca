// SPDX-License-Identifier: GPL-2.0
/* pfprofctl follow: samples as they are taken, in the log's format. */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <unistd.h>

#include "clock.h"
#include "ctl.h"
#include "logformat.h"
#include "mp3ring.h"
#include "psi.h"

enum { OPT_LINES, OPT_COUNT };

static bool print_missed(void *ctx, uint64_t first_seq, uint64_t count)
{
	char line[LOGFORMAT_LINE_MAX];

	(void)ctx;
	logformat_missed(line, sizeof(line), first_seq, count);
	fputs(line, stdout);
	return true;
}

/* cppcheck-suppress constParameterPointer ; struct mp3ring_sink's signature */
static bool print_sample(void *ctx, const struct mp3_ring_sample *s)
{
	char line[LOGFORMAT_LINE_MAX];

	logformat_sample(line, sizeof(line), s, s->time_ns + clock_wall_offset_ns(), ctx);
	fputs(line, stdout);
	return true;
}

/* Memory pressure for the lines about to be printed, as pfprofd logs it. */
static void update_psi(struct psi_cache *psi, struct log_context *context)
{
	if (!psi_cache_refresh(psi, PSI_MEMORY_PATH, clock_ns(CLOCK_MONOTONIC)))
		return;
	context->psi = !psi->err;
	context->psi_some_avg10 = psi->value.some_avg10;
	context->psi_full_avg10 = psi->value.full_avg10;
}

static int follow_samples(const struct mp3ring *ring, int fd, uint64_t backlog, uint64_t count,
			  struct psi_cache *psi)
{
	static const struct mp3ring_sink to_stdout = { print_missed, print_sample };
	uint64_t head = mp3ring_head(ring), printed = 0, dummy;
	uint64_t next = head > backlog ? head - backlog : 0;
	struct pollfd pfd = { .fd = fd, .events = POLLIN };
	/* A version 1 module's samples have no system counters. */
	struct log_context context = { .system = ring->records != NULL };

	printf("%s\n", LOGFORMAT_COLUMNS);
	for (;;) {
		/* read() first: poll() then waits for a sample after this one. */
		if (read(fd, &dummy, sizeof(dummy)) < 0 && errno != EAGAIN)
			return -errno;
		update_psi(psi, &context);
		printed += mp3ring_drain(ring, &next, count ? count - printed : 0, &to_stdout,
					 &context);
		if (fflush(stdout) || ferror(stdout))
			return -EIO;
		if (count && printed >= count)
			return 0;
		if (poll(&pfd, 1, -1) < 0 && errno != EINTR)
			return -errno;
	}
}

static int run(struct ctl *ctl, const struct ctl_call *call)
{
	struct psi_cache psi = PSI_CACHE_INIT;
	struct mp3ring ring;
	int fd, err;

	fd = open(ctl->config.device, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return ctl_module_error(-errno, ctl->config.device);
	err = mp3ring_map(&ring, fd);
	if (err) {
		close(fd);
		return ctl_module_error(err, ctl->config.device);
	}
	err = follow_samples(&ring, fd, call->option[OPT_LINES].number,
			     call->option[OPT_COUNT].number, &psi);
	psi_cache_close(&psi);
	if (err)
		ctl_error(err, "following %s", ctl->config.device);
	mp3ring_unmap(&ring);
	close(fd);
	return err ? PFPROF_EXIT_FAILED : PFPROF_EXIT_OK;
}

const struct ctl_command ctl_follow_command = {
	.name = "follow", .operands = "",
	.summary = "Print samples as they are taken",
	.details = "Prints one line per sample in the log format (see pfprofd(8)) until\n"
		   "interrupted.\n",
	.options = {
		[OPT_LINES] = { "lines", 'n', CTL_NUMBER, "N",
				"first print the last N samples already taken (default 0)" },
		[OPT_COUNT] = { "count", 0, CTL_NUMBER, "N", "exit after printing N samples" },
	},
	.run = run,
};
