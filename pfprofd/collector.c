// SPDX-License-Identifier: GPL-2.0
#include "collector.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "daemon_log.h"

static uint64_t clock_ns(clockid_t clock)
{
	struct timespec t;

	clock_gettime(clock, &t);
	return (uint64_t)t.tv_sec * 1000000000ULL + t.tv_nsec;
}

static void set_stream(struct collector *c)
{
	const struct mp3_ring_header *h = c->ring.hdr;
	struct log_stream stream = {
		.load_id = c->ring.load_id,
		.hz = h->hz,
		.period_ns = h->period_ns,
	};

	logwriter_set_stream(c->log, &stream);
}

/* Where to begin: resume after the logs if they come from this load. */
static uint64_t start_position(const struct collector *c)
{
	uint64_t head = mp3ring_head(&c->ring);
	struct log_position pos;
	int err = logwriter_last_position(c->log, &pos);

	if (!err && pos.load_id == c->ring.load_id && pos.next_seq <= head) {
		dlog(LOG_INFO, "resuming after sample %" PRIu64 " of module load %016" PRIx64,
		     pos.next_seq - 1, pos.load_id);
		return pos.next_seq;
	}
	if (err && err != -ENOENT)
		dlog(LOG_WARNING, "cannot read where the logs end: %s", strerror(-err));
	/* Samples of this load that are already gone show up as missed. */
	return 0;
}

int collector_open(struct collector *c, const char *device, struct logwriter *log)
{
	int err;

	memset(c, 0, sizeof(*c));
	c->log = log;
	c->fd = open(device, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (c->fd < 0)
		return -errno;
	err = mp3ring_map(&c->ring, c->fd);
	if (err) {
		close(c->fd);
		c->fd = -1;
		return err;
	}
	set_stream(c);
	c->next = start_position(c);
	/* A version 1 module's samples have no system counters. */
	c->context.system = c->ring.records != NULL;
	return 0;
}

void collector_set_psi(struct collector *c, const struct psi_memory *psi)
{
	c->context.psi = psi != NULL;
	if (psi) {
		c->context.psi_some_avg10 = psi->some_avg10;
		c->context.psi_full_avg10 = psi->full_avg10;
	}
}

void collector_set_log(struct collector *c, struct logwriter *log)
{
	c->log = log;
	set_stream(c);
}

/* Clears poll()'s readiness: it is set again by the next sample. */
static void rearm(const struct collector *c)
{
	uint64_t head;

	if (read(c->fd, &head, sizeof(head)) < 0 && errno != EAGAIN)
		dlog(LOG_WARNING, "reading the device: %s", strerror(errno));
}

static bool log_missed(void *ctx, uint64_t first_seq, uint64_t count)
{
	struct collector *c = ctx;

	if (!logwriter_add_missed(c->log, first_seq, count))
		return false;
	c->missed += count;
	return true;
}

static bool log_sample(void *ctx, const struct mp3_ring_sample *s)
{
	struct collector *c = ctx;

	if (!logwriter_add_sample(c->log, s, s->time_ns + c->wall_offset_ns, &c->context))
		return false;
	c->logged++;
	return true;
}

void collector_drain(struct collector *c)
{
	static const struct mp3ring_sink to_log = { log_missed, log_sample };

	/* Samples carry CLOCK_MONOTONIC; the log wants the wall clock too. */
	c->wall_offset_ns = clock_ns(CLOCK_REALTIME) - clock_ns(CLOCK_MONOTONIC);
	rearm(c);
	/* Stops where the log's queue is full; the rest waits in the ring. */
	mp3ring_drain(&c->ring, &c->next, 0, &to_log, c);
}

void collector_close(struct collector *c)
{
	if (c->fd >= 0) {
		mp3ring_unmap(&c->ring);
		close(c->fd);
	}
	c->fd = -1;
}
