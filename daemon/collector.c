// SPDX-License-Identifier: GPL-2.0
#include "collector.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "clock.h"
#include "daemon_log.h"
#include "growarray.h"

/* Samples between two sweeps of the counters' process table (a minute at 20 Hz). */
#define COUNTERS_SWEEP 1200
/* Drains after which the maps of a process without faults since is forgotten. */
#define MAPNAMES_KEPT_PASSES 64

static void set_stream(struct collector *c)
{
	const struct mp3_ring_header *h = c->ring.hdr;
	struct log_stream stream = {
		.load_id = c->ring.load_id,
		.hz = h->hz,
		.period_ns = h->period_ns,
	};

	for (int k = 0; k < LOG_KINDS; k++)
		logwriter_set_stream(c->logs[k], &stream);
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
	c->next = UINT64_MAX;
	for (int k = 0; k < LOG_RING_KINDS; k++) {
		c->from[k] = resume_position(c, c->logs[k]);
		if (c->from[k] < c->next)
			c->next = c->from[k];
	}
}

/* cppcheck-suppress constParameter ; the logs are written through c->logs */
int collector_open(struct collector *c, const char *device, struct logwriter *logs[LOG_KINDS],
		   struct counters *counters, const struct psi_cache *psi)
{
	int err;

	*c = (struct collector){ .counters = counters, .psi = psi,
				 .delayacct = { .path = DELAYACCT_SYSCTL },
				 .mapnames = { .proc = "/proc" } };
	memcpy(c->logs, logs, sizeof(c->logs));
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

/* cppcheck-suppress constParameter ; the logs are written through c->logs */
void collector_set_logs(struct collector *c, struct logwriter *logs[LOG_KINDS])
{
	memcpy(c->logs, logs, sizeof(c->logs));
	set_stream(c);
}

/* Clears poll()'s readiness: it is set again by the next sample. */
static void rearm(const struct collector *c)
{
	uint64_t head;

	if (read(c->fd, &head, sizeof(head)) < 0 && errno != EAGAIN)
		dlog(LOG_WARNING, "reading the device: %s", strerror(errno));
}

/* Whether the log of kind k takes sample seq. */
static bool wants(const struct collector *c, enum log_kind k, uint64_t seq)
{
	return seq >= c->from[k];
}

static bool log_missed(void *ctx, uint64_t first_seq, uint64_t count)
{
	struct collector *c = ctx;
	uint64_t last = first_seq + count - 1;

	for (int k = 0; k < LOG_RING_KINDS; k++)
		if (wants(c, k, last) && !logwriter_reserve(c->logs[k], 1))
			return false;
	for (int k = 0; k < LOG_RING_KINDS; k++)
		if (wants(c, k, last))
			logwriter_add_missed(c->logs[k], first_seq, count);
	c->missed += count;
	counters_add_lost(c->counters, count);
	return true;
}

/* One sample's records, as log_records() hands them on. */
struct sample_records {
	struct collector *collector;
	uint64_t seq, wall_ns;
	uint64_t sys_pswpout;	/* the sample's: the machine's clock of evictions */
	bool to_procs, to_faults, to_pages;
	bool stalls;		/* the records' waits are known */
	/* The ring says whose records are (version 9): users' lines are budgeted. */
	bool owners_told;
	uint64_t second;	/* the sample's, monotonic: what the budgets count in */
	/* A process's line, held until its latency records, which follow its counts record. */
	struct log_proc held;
	bool holding;
};

/* Whether the waits in sample s and its records were measured: the kernel measured them. */
static bool stalls_known(struct collector *c, const struct mp3_ring_sample *s)
{
	return stalls_in_ring(c->ring.hdr) && delayacct_cached(&c->delayacct, s->time_ns) == 1;
}

/* Keeps a faults record to add up with the sample's others; false without memory. */
static bool keep_faults(struct collector *c, const struct mp3_proc_record *r)
{
	struct fault_sum *grown = grow_array(c->faults, &c->faults_cap, c->nr_faults,
					     sizeof(*grown), 64);

	if (!grown)
		return false;
	c->faults = grown;
	c->faults[c->nr_faults++] = (struct fault_sum){
		.tgid = r->tgid, .target = r->target, .mapping = r->mapping,
		.start = r->faults.start, .inode = r->faults.inode, .dev = r->dev,
		.minor = r->faults.minor_faults, .major = r->faults.major_faults,
		.minor_ns = r->fault_time.minor_ns, .major_ns = r->fault_time.major_ns,
	};
	return true;
}

/* Queues the held process line: its faults' time is known once a latency record came for it. */
static void log_held_proc(struct sample_records *sr)
{
	struct collector *c = sr->collector;
	struct proc_entry *e;

	if (!sr->holding)
		return;
	sr->holding = false;
	/* Finding, not adding: the entries stay where the caller found its own. */
	e = proctable_find(&c->counters->procs, sr->held.r.tgid);
	if (!e || !e->timed)
		sr->held.minor_ns = sr->held.major_ns = LOGFORMAT_TIME_UNKNOWN;
	logwriter_add_proc(c->logs[LOGKIND_PROCS], &sr->held);
}

static void hold_proc(struct sample_records *sr, const struct mp3_proc_record *r,
		      const char *comm)
{
	sr->held = (struct log_proc){
		.seq = sr->seq, .wall_ns = sr->wall_ns, .r = *r, .stalls = sr->stalls,
	};
	snprintf(sr->held.comm, sizeof(sr->held.comm), "%s", comm);
	sr->holding = true;
}

static void add_held_time(struct sample_records *sr, const struct mp3_proc_record *r)
{
	if (!sr->holding || r->tgid != sr->held.r.tgid)
		return;
	if (r->latency.major)
		sr->held.major_ns += r->latency.time_ns;
	else
		sr->held.minor_ns += r->latency.time_ns;
}

/*
 * A swap or file refault record: replayed for its target's refault
 * distances, and its line in the pages log.
 */
static void add_page(const struct sample_records *sr, const struct mp3_proc_record *r,
		     bool logged)
{
	struct collector *c = sr->collector;
	/* A cgroup's swap-out or eviction is no process's: no process 0 is made of it. */
	struct proc_entry *e = r->tgid ? proctable_find_or_add(&c->counters->procs, r->tgid) : NULL;
	const struct log_page line = logformat_page_of(r, sr->seq, sr->sys_pswpout,
						       c->wall_offset_ns,
						       e ? proctable_name(e) : r->tgid ? "?" : "-");

	if (sr->to_procs && counters_add_page(c->counters, &line))
		dlog(LOG_WARNING, "refault distances of target %u: %s", r->target,
		     strerror(ENOMEM));
	if (sr->to_pages && logged)
		logwriter_add_page(c->logs[LOGKIND_PAGES], &line);
}

static void log_record(void *ctx, const struct mp3_proc_record *r)
{
	struct sample_records *sr = ctx;
	struct collector *c = sr->collector;
	struct proc_entry *e = NULL;
	bool logged;

	if (r->type == MP3_RECORD_DROPPED) {
		ownerbudget_add_dropped(&c->counters->owners, r);
		return;
	}
	if (r->type == MP3_RECORD_CGROUP_SWAP || r->type == MP3_RECORD_CGROUP_EVICT) {
		logged = !sr->owners_told || ownerbudget_take_line(&c->counters->owners, r, sr->second);
		if (sr->to_procs && !counters_add_target_record(c->counters, r))
			dlog(LOG_WARNING, "counters of target %u: %s", r->target, strerror(ENOMEM));
		add_page(sr, r, logged);
		return;
	}
	/* Its number may be another process's from now on, or is a new one's. */
	if (r->type == MP3_RECORD_LEFT)
		mapnames_process_left(&c->mapnames, r->tgid);
	else if (r->type == MP3_RECORD_COMM)
		mapnames_process_named(&c->mapnames, r->tgid);
	/* Counted all the same: only the logs are budgeted. */
	logged = !sr->owners_told || ownerbudget_take_line(&c->counters->owners, r, sr->second);
	if (sr->to_procs) {
		e = counters_add_record(c->counters, r);
		if (!e)
			dlog(LOG_WARNING, "counters of process %u: %s", r->tgid, strerror(ENOMEM));
	}
	if (sr->to_procs && r->type == MP3_RECORD_COUNTS) {
		log_held_proc(sr);
		if (logged)
			hold_proc(sr, r, e ? proctable_name(e) : "?");
	}
	if (sr->to_procs && r->type == MP3_RECORD_LATENCY)
		add_held_time(sr, r);
	if (sr->to_faults && logged && r->type == MP3_RECORD_FAULTS && !keep_faults(c, r))
		dlog(LOG_WARNING, "faults of process %u: %s", r->tgid, strerror(ENOMEM));
	if (r->type == MP3_RECORD_SWAP || r->type == MP3_RECORD_REFAULT)
		add_page(sr, r, logged);
}

static int compare_faults(const void *a, const void *b)
{
	const struct fault_sum *x = a, *y = b;

	if (x->tgid != y->tgid)
		return x->tgid < y->tgid ? -1 : 1;
	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	if (x->mapping != y->mapping)
		return x->mapping < y->mapping ? -1 : 1;
	if (x->inode != y->inode)
		return x->inode < y->inode ? -1 : 1;
	return x->dev < y->dev ? -1 : x->dev > y->dev;
}

/* Adds up the kept records of the same process and mapping, in place; how many remain. */
static size_t merge_faults(struct fault_sum *v, size_t n)
{
	size_t out = 0;

	if (!n)
		return 0;	/* v may be NULL, which qsort() must not get */
	qsort(v, n, sizeof(*v), compare_faults);
	for (size_t i = 0; i < n; i++) {
		if (out && !compare_faults(&v[out - 1], &v[i])) {
			v[out - 1].minor += v[i].minor;
			v[out - 1].major += v[i].major;
			v[out - 1].minor_ns += v[i].minor_ns;
			v[out - 1].major_ns += v[i].major_ns;
		} else {
			v[out++] = v[i];
		}
	}
	return out;
}

/* The sample's faults records, a line per process and mapping. */
static void log_faults(struct collector *c, const struct sample_records *sr)
{
	size_t n = merge_faults(c->faults, c->nr_faults);

	for (size_t i = 0; i < n; i++) {
		const struct fault_sum *f = &c->faults[i];
		struct proc_entry *e = proctable_find_or_add(&c->counters->procs, f->tgid);
		const struct mapping_file file = { f->inode, f->dev };
		struct mapping_found found = mapnames_lookup(&c->mapnames, f->tgid, f->mapping,
							     f->start, &file);
		struct log_fault line = {
			.seq = sr->seq, .wall_ns = sr->wall_ns, .pid = f->tgid,
			.target = f->target, .mapping = f->mapping, .start = f->start,
			.size = found.size, .inode = f->inode, .minor = f->minor,
			.major = f->major, .comm = e ? proctable_name(e) : "?",
			.name = found.name,
		};

		logformat_set_fault_time(&line, f->minor_ns, f->major_ns);
		if (!logwriter_add_fault(c->logs[LOGKIND_FAULTS], &line))
			dlog(LOG_WARNING, "faults of process %u: %s", f->tgid, strerror(ENOMEM));
	}
	c->nr_faults = 0;
}

/* The sample's records: counted, a line per process and mapping, a marker for those lost. */
static void log_records(struct collector *c, const struct mp3_ring_sample *s, uint64_t wall_ns)
{
	struct sample_records sr = {
		.collector = c, .seq = s->seq, .wall_ns = wall_ns, .sys_pswpout = s->pswpout,
		.to_procs = wants(c, LOGKIND_PROCS, s->seq),
		.to_faults = wants(c, LOGKIND_FAULTS, s->seq),
		.to_pages = wants(c, LOGKIND_PAGES, s->seq),
		.stalls = c->counters->stalls_known,
		.owners_told = c->ring.hdr->version >= 9,
		.second = s->time_ns / 1000000000,
	};
	uint64_t lost = mp3ring_for_each_record(&c->ring, s, log_record, &sr);

	log_held_proc(&sr);
	if (sr.to_faults)
		log_faults(c, &sr);
	for (int k = LOGKIND_PROCS; lost && k <= LOGKIND_PAGES; k++)
		if (wants(c, k, s->seq))
			logwriter_add_lost(c->logs[k], s->seq, lost);
	/* Now and then: the processes that are gone are forgotten. */
	if (s->seq >= c->sweep_at) {
		counters_sweep(c->counters, c->ring.hdr->flags & MP3_RING_ACTIVE_ONLY);
		mapnames_sweep(&c->mapnames, MAPNAMES_KEPT_PASSES);
		c->sweep_at = s->seq + COUNTERS_SWEEP;
	}
}

/* What the sample lines show beside the samples: memory pressure and the waits, if known. */
static struct log_context sample_context(struct collector *c)
{
	struct log_context context = { .system = c->has_system,
				       .stalls = c->counters->stalls_known };
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
	/* A sample's records and their lost marker, in each log that takes records. */
	const size_t records = (size_t)s->nr_records + 1;
	const size_t lines[LOG_RING_KINDS] = { 1, records, records, records };

	/* All of a sample's lines are queued, or none: it is read again later. */
	for (int k = 0; k < LOG_RING_KINDS; k++)
		if (wants(c, k, s->seq) && !logwriter_reserve(c->logs[k], lines[k]))
			return false;
	/* Once per sample, for its records, its line and the metrics. */
	c->counters->stalls_known = stalls_known(c, s);
	c->counters->file_refaults_known = c->ring.hdr->version >= 13;
	if (wants(c, LOGKIND_PROCS, s->seq) || wants(c, LOGKIND_FAULTS, s->seq) ||
	    wants(c, LOGKIND_PAGES, s->seq))
		log_records(c, s, wall_ns);
	if (wants(c, LOGKIND_SAMPLES, s->seq)) {
		struct log_context context = sample_context(c);

		logwriter_add_sample(c->logs[LOGKIND_SAMPLES], s, wall_ns, &context);
		c->queued++;
		counters_add_sample(c->counters, s, c->has_system);
	}
	c->records_per_sample = s->nr_records;
	return true;
}

/* The module's own counters, from its header. */
static void update_module_counters(struct collector *c)
{
	uint64_t runs, ns, skipped, missed;

	mp3ring_sampler_cost(&c->ring, &runs, &ns);
	counters_set_sampler(c->counters, c->ring.load_id, ns, runs);
	mp3ring_unfollowed(&c->ring, &skipped, &missed);
	counters_set_unfollowed(c->counters, c->ring.load_id, skipped, missed);
	counters_set_latency_missed(c->counters, c->ring.load_id, mp3ring_latency_missed(&c->ring));
	counters_set_swap_dropped(c->counters, c->ring.load_id, mp3ring_swap_dropped(&c->ring));
}

void collector_drain(struct collector *c)
{
	static const struct mp3ring_sink to_log = { log_missed, log_sample };

	/* Samples carry CLOCK_MONOTONIC; the log wants the wall clock too. */
	c->wall_offset_ns = clock_wall_offset_ns();
	mapnames_begin_pass(&c->mapnames);
	rearm(c);
	/* Stops where the log's queue is full; the rest waits in the ring. */
	mp3ring_drain(&c->ring, &c->next, 0, &to_log, c);
	update_module_counters(c);
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
	mapnames_free(&c->mapnames);
	free(c->faults);
	c->faults = NULL;
	c->nr_faults = c->faults_cap = 0;
}
