// SPDX-License-Identifier: GPL-2.0
#include "collector.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <string.h>
#include <unistd.h>

#include "clock.h"
#include "daemon_log.h"

/* Samples between two sweeps of the counters' process table (a minute at 20 Hz). */
#define COUNTERS_SWEEP 1200

static void set_stream(struct collector *c)
{
	const struct mp3_ring_header *h = c->ring.hdr;
	struct log_stream stream = {
		.load_id = c->ring.load_id,
		.hz = h->hz,
		.period_ns = h->period_ns,
	};

	logwriter_set_stream(c->log, &stream);
	logwriter_set_stream(c->procs_log, &stream);
}

/* Where a log wants to begin: after its last line if it comes from this load. */
static uint64_t resume_position(const struct collector *c, const struct logwriter *log)
{
	uint64_t head = mp3ring_head(&c->ring);
	struct log_position pos;
	int err = logwriter_last_position(log, &pos);

	if (!err && pos.load_id == c->ring.load_id && pos.next_seq <= head) {
		dlog(LOG_INFO, "%s: resuming after sample %" PRIu64 " of module load %016" PRIx64,
		     logwriter_path(log), pos.next_seq - 1, pos.load_id);
		return pos.next_seq;
	}
	if (err && err != -ENOENT)
		dlog(LOG_WARNING, "cannot read where %s ends: %s", logwriter_path(log),
		     strerror(-err));
	/* Samples of this load that are already gone show up as missed. */
	return 0;
}

static void start_positions(struct collector *c)
{
	c->log_from = resume_position(c, c->log);
	c->procs_from = resume_position(c, c->procs_log);
	c->next = c->log_from < c->procs_from ? c->log_from : c->procs_from;
}

int collector_open(struct collector *c, const char *device, struct logwriter *log,
		   struct logwriter *procs_log, struct counters *counters,
		   const struct psi_cache *psi)
{
	int err;

	*c = (struct collector){ .log = log, .procs_log = procs_log, .counters = counters,
				 .psi = psi };
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
	start_positions(c);
	/* A version 1 module's samples have no system counters. */
	c->has_system = c->ring.records != NULL;
	return 0;
}

void collector_set_logs(struct collector *c, struct logwriter *log, struct logwriter *procs_log)
{
	c->log = log;
	c->procs_log = procs_log;
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
	bool to_log = first_seq + count > c->log_from;
	bool to_procs = first_seq + count > c->procs_from;

	if ((to_log && !logwriter_reserve(c->log, 1)) ||
	    (to_procs && !logwriter_reserve(c->procs_log, 1)))
		return false;
	if (to_log)
		logwriter_add_missed(c->log, first_seq, count);
	if (to_procs)
		logwriter_add_missed(c->procs_log, first_seq, count);
	c->missed += count;
	counters_add_lost(c->counters, count);
	return true;
}

/* One sample's records, as log_records() hands them on. */
struct sample_records {
	struct collector *collector;
	uint64_t seq, wall_ns;
};

static void log_record(void *ctx, const struct mp3_proc_record *r)
{
	const struct sample_records *sr = ctx;
	struct collector *c = sr->collector;
	struct proc_entry *e = counters_add_record(c->counters, r);

	if (!e)
		dlog(LOG_WARNING, "counters of process %u: %s", r->tgid, strerror(ENOMEM));
	if (r->type == MP3_RECORD_COUNTS)
		logwriter_add_proc(c->procs_log, sr->seq, sr->wall_ns, r,
				   e ? proctable_name(e) : "?");
}

/* The sample's records: counted, a line per process, a marker for those lost. */
static void log_records(struct collector *c, const struct mp3_ring_sample *s, uint64_t wall_ns)
{
	struct sample_records sr = { .collector = c, .seq = s->seq, .wall_ns = wall_ns };
	uint64_t lost = mp3ring_for_each_record(&c->ring, s, log_record, &sr);

	if (lost)
		logwriter_add_lost(c->procs_log, s->seq, lost);
	/* Now and then: the processes that are gone are forgotten. */
	if (s->seq >= c->sweep_at) {
		counters_sweep(c->counters, c->ring.hdr->flags & MP3_RING_ACTIVE_ONLY);
		c->sweep_at = s->seq + COUNTERS_SWEEP;
	}
}

/* What the sample lines show beside the samples: memory pressure, if known. */
static struct log_context sample_context(const struct collector *c)
{
	struct log_context context = { .system = c->has_system };
	const struct psi_memory *psi = psi_cache_value(c->psi);

	if (psi) {
		context.psi = true;
		context.psi_some_avg10 = psi->some_avg10;
		context.psi_full_avg10 = psi->full_avg10;
	}
	return context;
}

static bool log_sample(void *ctx, const struct mp3_ring_sample *s)
{
	struct collector *c = ctx;
	uint64_t wall_ns = s->time_ns + c->wall_offset_ns;
	bool to_log = s->seq >= c->log_from, to_procs = s->seq >= c->procs_from;

	/* All of a sample's lines are queued, or none: it is read again later. */
	if ((to_procs && !logwriter_reserve(c->procs_log, (size_t)s->nr_records + 1)) ||
	    (to_log && !logwriter_reserve(c->log, 1)))
		return false;
	if (to_procs)
		log_records(c, s, wall_ns);
	if (to_log) {
		struct log_context context = sample_context(c);

		logwriter_add_sample(c->log, s, wall_ns, &context);
		c->queued++;
		counters_add_sample(c->counters, s, c->has_system);
	}
	c->records_per_sample = s->nr_records;
	return true;
}

static void update_sampler_cost(struct collector *c)
{
	uint64_t runs, ns;

	mp3ring_sampler_cost(&c->ring, &runs, &ns);
	counters_set_sampler(c->counters, c->ring.load_id, ns, runs);
}

void collector_drain(struct collector *c)
{
	static const struct mp3ring_sink to_log = { log_missed, log_sample };

	/* Samples carry CLOCK_MONOTONIC; the log wants the wall clock too. */
	c->wall_offset_ns = clock_wall_offset_ns();
	rearm(c);
	/* Stops where the log's queue is full; the rest waits in the ring. */
	mp3ring_drain(&c->ring, &c->next, 0, &to_log, c);
	update_sampler_cost(c);
}

bool collector_behind(const struct collector *c)
{
	return c->next < mp3ring_head(&c->ring);
}

uint64_t collector_safe_wait_usec(const struct collector *c)
{
	return mp3ring_safe_wait_ns(&c->ring, c->records_per_sample) / 1000;
}

void collector_close(struct collector *c)
{
	if (c->fd >= 0) {
		mp3ring_unmap(&c->ring);
		close(c->fd);
	}
	c->fd = -1;
}
