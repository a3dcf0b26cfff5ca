// SPDX-License-Identifier: GPL-2.0
#include "recordsums.h"

#include <string.h>

#include "harness.h"
#include "jsonout.h"

struct proc_total *proc_of(struct record_totals *t, pid_t tgid)
{
	for (int i = 0; i < t->nr; i++)
		if (t->procs[i].tgid == tgid)
			return &t->procs[i];
	expect(t->nr < MAX_PROCS, "more than %d processes in the records", MAX_PROCS);
	memset(&t->procs[t->nr], 0, sizeof(t->procs[0]));
	t->procs[t->nr].tgid = tgid;
	return &t->procs[t->nr++];
}

void add_record(void *ctx, const struct mp3_proc_record *r)
{
	struct sample_sums *sums = ctx;
	struct proc_total *p = proc_of(sums->totals, r->tgid);

	p->target = r->target;
	expect(r->type == MP3_RECORD_COUNTS || r->type == MP3_RECORD_COMM ||
	       r->type == MP3_RECORD_LEFT, "record %llu has type %u", (unsigned long long)r->seq,
	       r->type);
	if (r->type == MP3_RECORD_LEFT) {
		p->lefts++;
		p->left_sample = sums->seq;
		return;
	}
	if (r->type == MP3_RECORD_COMM) {
		expect(memchr(r->comm, '\0', sizeof(r->comm)), "record %llu: comm without its NUL",
		       (unsigned long long)r->seq);
		memcpy(p->comm, r->comm, sizeof(p->comm));
		p->names++;
		return;
	}
	p->minor += r->counts.minor_faults;
	p->major += r->counts.major_faults;
	p->cpu_ns += r->counts.cpu_ns;
	p->counts++;
	p->last_sample = sums->seq;
	sums->minor += r->counts.minor_faults;
	sums->major += r->counts.major_faults;
	sums->cpu_ns += r->counts.cpu_ns;
	sums->counts++;
}

/* Adds one sample's records; checks that their counts add up to the sample. */
void add_records(const struct mp3ring *ring, const struct mp3_ring_sample *s,
		 struct record_totals *t)
{
	struct sample_sums sums = { .totals = t, .seq = s->seq };
	uint64_t lost = mp3ring_for_each_record(ring, s, add_record, &sums);

	t->lost += lost;
	if (lost)
		return;
	expect(sums.counts == s->nr_procs, "sample %llu: %" PRIu64 " counts records, %u processes",
	       (unsigned long long)s->seq, sums.counts, s->nr_procs);
	expect(sums.minor == s->minor_faults && sums.major == s->major_faults &&
	       sums.cpu_ns == s->cpu_ns,
	       "sample %llu: records sum to %" PRIu64 "/%" PRIu64 "/%" PRIu64
	       ", the sample says %llu/%llu/%llu", (unsigned long long)s->seq, sums.minor,
	       sums.major, sums.cpu_ns, (unsigned long long)s->minor_faults,
	       (unsigned long long)s->major_faults, (unsigned long long)s->cpu_ns);
}

/* The records of samples [from, to); fails if a sample is missed. */
void total_records(const struct mp3ring *ring, uint64_t from, uint64_t to,
		   struct record_totals *t)
{
	uint64_t next = from, missed = 0;
	struct mp3_ring_sample s;

	memset(t, 0, sizeof(*t));
	while (next < to) {
		expect(mp3ring_read(ring, &next, &s, &missed) == MP3RING_SAMPLE,
		       "sample %" PRIu64 " not published", next);
		expect(!missed, "%" PRIu64 " samples missed before %" PRIu64, missed, next);
		add_records(ring, &s, t);
	}
}

struct record_totals records_seen;

/* Whether the module visits only the processes that ran (sampler=events). */
bool active_only(const struct mp3ring *ring)
{
	return ring->hdr->flags & MP3_RING_ACTIVE_ONLY;
}
