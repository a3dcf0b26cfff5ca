// SPDX-License-Identifier: GPL-2.0
#include "unit.h"

#include <errno.h>
#include <inttypes.h>
#include <stddef.h>
#include <pthread.h>
#include <sched.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "ring_region.h"

#define CONCURRENT_SAMPLES 2000000ULL
#define EXACT ((size_t)-1)

#define V1_HEADER_SIZE offsetof(struct mp3_ring_header, record_offset)
#define V1_SAMPLE_SIZE offsetof(struct mp3_ring_sample, first_record)

/* What a version 1 module lays out: shorter header and samples, no records. */
static struct region make_v1(uint32_t capacity)
{
	struct region r = make_region(capacity, V1_SAMPLE_SIZE, V1_HEADER_SIZE);

	r.hdr->version = 1;
	return r;
}

/* ---- the writer, as the module's protocol in <linux/mp3.h> says ---- */

static void begin_write(struct mp3_ring_sample *slot)
{
	__atomic_store_n(&slot->seq, MP3_SEQ_WRITING, __ATOMIC_RELAXED);
	__atomic_thread_fence(__ATOMIC_RELEASE);	/* the kernel's smp_wmb() */
}

#define STORE(field, value) __atomic_store_n(&(field), (value), __ATOMIC_RELAXED)

/* Every field derived from n, so that a torn copy shows. */
static void fill(struct mp3_ring_sample *slot, uint64_t n)
{
	STORE(slot->time_ns, n * 1000 + 1);
	STORE(slot->jiffies, n / 4);
	STORE(slot->minor_faults, n * 3);
	STORE(slot->major_faults, n * 5 + 1);
	STORE(slot->cpu_ns, n * 7);
	STORE(slot->minor_total, n * 11);
	STORE(slot->major_total, n * 13);
	STORE(slot->cpu_ns_total, n * 17);
	STORE(slot->nr_procs, (uint32_t)(n * 19));
}

static void end_write(struct mp3_ring_sample *slot, uint64_t n)
{
	__atomic_store_n(&slot->seq, n, __ATOMIC_RELEASE);
}

static void publish_head(const struct region *r, uint64_t head)
{
	__atomic_store_n(&r->hdr->head, head, __ATOMIC_RELEASE);
}

static void publish(const struct region *r, uint64_t n)
{
	struct mp3_ring_sample *slot = slot_at(r, n);

	begin_write(slot);
	fill(slot, n);
	end_write(slot, n);
	publish_head(r, n + 1);
}

static void publish_range(const struct region *r, uint64_t from, uint64_t to)
{
	for (uint64_t n = from; n < to; n++)
		publish(r, n);
}

static bool sample_ok(const struct mp3_ring_sample *s, uint64_t n)
{
	return s->seq == n && s->time_ns == n * 1000 + 1 && s->jiffies == n / 4 &&
	       s->minor_faults == n * 3 && s->major_faults == n * 5 + 1 && s->cpu_ns == n * 7 &&
	       s->minor_total == n * 11 && s->major_total == n * 13 &&
	       s->cpu_ns_total == n * 17 && s->nr_procs == (uint32_t)(n * 19);
}

/* Reads one sample and fails unless it is n with the missed count now want_missed. */
static void expect_sample(const struct mp3ring *ring, uint64_t *next, uint64_t *missed,
			  uint64_t n, uint64_t want_missed)
{
	struct mp3_ring_sample s;
	enum mp3ring_status st = mp3ring_read(ring, next, &s, missed);

	expect(st == MP3RING_SAMPLE, "no sample %" PRIu64 " (next %" PRIu64 ")", n, *next);
	expect(sample_ok(&s, n), "got seq %" PRIu64 " or a wrong field, want %" PRIu64,
		   (uint64_t)s.seq, n);
	expect(*next == n + 1, "next %" PRIu64 " after %" PRIu64, *next, n);
	expect(*missed == want_missed, "missed %" PRIu64 ", want %" PRIu64, *missed,
		   want_missed);
}

static void expect_empty(const struct mp3ring *ring, uint64_t *next, uint64_t *missed)
{
	uint64_t before = *next, missed_before = *missed;
	struct mp3_ring_sample s;

	expect(mp3ring_read(ring, next, &s, missed) == MP3RING_EMPTY,
		   "a sample at next %" PRIu64 " of an empty ring", before);
	expect(*next == before && *missed == missed_before, "an empty read moved next/missed");
}

/* Record n of sample, with counters derived from n. */
static void publish_record(const struct region *r, uint64_t n, uint64_t sample)
{
	struct mp3_proc_record *slot = record_at(r, n);

	__atomic_store_n(&slot->seq, MP3_SEQ_WRITING, __ATOMIC_RELAXED);
	__atomic_thread_fence(__ATOMIC_RELEASE);
	STORE(slot->sample, sample);
	STORE(slot->tgid, (uint32_t)(1000 + n));
	STORE(slot->type, MP3_RECORD_COUNTS);
	STORE(slot->counts.minor_faults, n * 3);
	STORE(slot->counts.major_faults, n * 5);
	STORE(slot->counts.cpu_ns, n * 7);
	/* A version 2 writer's records end before target. */
	if (r->hdr->record_size > MP3_PROC_RECORD_V2_SIZE)
		STORE(slot->target, (uint32_t)(n * 11));
	__atomic_store_n(&slot->seq, n, __ATOMIC_RELEASE);
	__atomic_store_n(&r->hdr->record_head, n + 1, __ATOMIC_RELEASE);
}

/* ---- header checks ---- */

static void no_change(struct mp3_ring_header *h)
{
	(void)h;
}

static void bad_magic(struct mp3_ring_header *h)
{
	h->magic ^= 0x100;
}

static void newer_compat(struct mp3_ring_header *h)
{
	h->compat_version = MP3_RING_VERSION + 1;
}

static void zero_compat(struct mp3_ring_header *h)
{
	h->compat_version = 0;
}

static void newer_version(struct mp3_ring_header *h)
{
	h->version = MP3_RING_VERSION + 5;
}

static void capacity_not_pow2(struct mp3_ring_header *h)
{
	h->capacity -= 1;
}

static void capacity_zero(struct mp3_ring_header *h)
{
	h->capacity = 0;
}

static void region_short(struct mp3_ring_header *h)
{
	h->region_size -= 1;
}

static void region_past_memory(struct mp3_ring_header *h)
{
	h->region_size += SLACK + 4096;
}

static void small_sample(struct mp3_ring_header *h)
{
	h->sample_size -= 8;
}

/* region_size grows too: only the alignment is wrong. */
static void odd_sample(struct mp3_ring_header *h)
{
	h->sample_size += 4;
	h->region_size += h->capacity * 4;
}

static void small_header(struct mp3_ring_header *h)
{
	h->header_size -= 8;
}

static void data_in_header(struct mp3_ring_header *h)
{
	h->data_offset = h->header_size - 8;
}

static void odd_data_offset(struct mp3_ring_header *h)
{
	h->data_offset += 4;
	h->region_size += 8;
}

static void records_past_region(struct mp3_ring_header *h)
{
	h->record_capacity *= 2;
}

static void small_record(struct mp3_ring_header *h)
{
	h->record_size = MP3_PROC_RECORD_V2_SIZE - 8;
}

static void records_not_pow2(struct mp3_ring_header *h)
{
	h->record_capacity -= 1;
}

static void records_over_samples(struct mp3_ring_header *h)
{
	h->record_offset = h->data_offset;
}

/* Version 2's promise, with version 1's sizes. */
static void v2_with_v1_samples(struct mp3_ring_header *h)
{
	h->sample_size = V1_SAMPLE_SIZE;
}

/* A version 6 module's samples end before the stalls: read, what they lack as 0. */
static void v6_samples(struct mp3_ring_header *h)
{
	h->version = 6;
	h->sample_size = offsetof(struct mp3_ring_sample, stalls);
}

/* Version 7 promises the stalls. */
static void v7_with_v6_samples(struct mp3_ring_header *h)
{
	h->sample_size = offsetof(struct mp3_ring_sample, stalls);
}

/* A newer module's longer header: the slots start later. */
static void longer_header(struct mp3_ring_header *h)
{
	h->header_size += 64;
	h->data_offset += 64;
	h->record_offset += 64;
	h->region_size += 64;
}

static const struct {
	const char *name;
	void (*change)(struct mp3_ring_header *h);
	size_t size;		/* bytes given to attach; 0: all allocated, EXACT: region_size */
	int err;
} header_cases[] = {
	{ "valid", no_change, 0, 0 },
	{ "exact size", no_change, EXACT, 0 },
	{ "bad magic", bad_magic, 0, -EPROTO },
	{ "compat_version newer", newer_compat, 0, -EPROTO },
	{ "compat_version 0", zero_compat, 0, 0 },
	{ "version newer, same compat", newer_version, 0, 0 },
	{ "capacity not a power of two", capacity_not_pow2, 0, -EPROTO },
	{ "capacity 0", capacity_zero, 0, -EPROTO },
	{ "region_size too small for the slots", region_short, 0, -EPROTO },
	{ "region_size past the memory", region_past_memory, 0, -EPROTO },
	{ "sample_size smaller than the struct", small_sample, 0, -EPROTO },
	{ "sample_size not a multiple of 8", odd_sample, 0, -EPROTO },
	{ "header_size smaller than the struct", small_header, 0, -EPROTO },
	{ "data_offset inside the header", data_in_header, 0, -EPROTO },
	{ "data_offset not a multiple of 8", odd_data_offset, 0, -EPROTO },
	{ "longer header", longer_header, 0, 0 },
	{ "records past the region", records_past_region, 0, -EPROTO },
	{ "record_size smaller than a version 2 record", small_record, 0, -EPROTO },
	{ "record_capacity not a power of two", records_not_pow2, 0, -EPROTO },
	{ "records over the samples", records_over_samples, 0, -EPROTO },
	{ "version 2 with version 1 samples", v2_with_v1_samples, 0, -EPROTO },
	{ "version 6 samples", v6_samples, 0, 0 },
	{ "version 7 with version 6 samples", v7_with_v6_samples, 0, -EPROTO },
	{ "memory smaller than a header", no_change, sizeof(struct mp3_ring_header) - 1, -EPROTO },
};

static void test_header_validation(void)
{
	for (size_t c = 0; c < sizeof(header_cases) / sizeof(header_cases[0]); c++) {
		struct region r = make_default(64);
		size_t size = header_cases[c].size;
		struct mp3ring ring;
		int err;

		header_cases[c].change(r.hdr);
		if (size == EXACT)
			size = r.hdr->region_size;
		err = mp3ring_attach(&ring, r.mem, size ? size : r.alloc);
		expect(err == header_cases[c].err, "%s: attach returned %d, want %d",
			   header_cases[c].name, err, header_cases[c].err);
		if (!err) {
			expect(ring.capacity == r.hdr->capacity &&
				   ring.load_id == r.hdr->load_id &&
				   ring.slots == r.mem + r.hdr->data_offset,
				   "%s: ring fields wrong", header_cases[c].name);
			mp3ring_unmap(&ring);	/* not mapped: must leave the memory alone */
		}
		free(r.mem);
	}
}

/* ---- reading ---- */

/* A version 1 module's samples read as they are, what version 2 adds as 0. */
static void test_v1_writer(void)
{
	struct region r = make_v1(8);
	uint64_t next = 0, missed = 0;
	struct mp3_ring_sample s;
	struct mp3_proc_record rec;
	struct mp3ring ring;

	attach(&ring, &r);
	expect(!ring.records, "a version 1 region has no records");
	for (uint64_t n = 0; n < 12; n++)
		publish(&r, n);
	next = 4;
	for (uint64_t n = 4; n < 12; n++) {
		expect(mp3ring_read(&ring, &next, &s, &missed) == MP3RING_SAMPLE, "sample %" PRIu64,
		       n);
		expect(s.seq == n && s.cpu_ns_total == n * 17 && s.nr_procs == (uint32_t)(n * 19),
		       "sample %" PRIu64 " misread", n);
		expect(!s.first_record && !s.nr_records && !s.pgmajfault && !s.pswpin && !s.pswpout,
		       "sample %" PRIu64 ": version 2 fields not 0", n);
	}
	expect(!missed, "%" PRIu64 " missed", missed);
	expect(!mp3ring_read_record(&ring, 0, 0, &rec), "a record from a version 1 region");
	free(r.mem);
}

/* Records are read back while there, refused once lapped or of another sample. */
static void test_records(void)
{
	struct region r = make_default(8);
	struct mp3_proc_record rec;
	struct mp3ring ring;

	attach(&ring, &r);
	expect(ring.records == r.mem + r.hdr->record_offset, "records not found");
	for (uint64_t n = 0; n < RECORDS + 4; n++)
		publish_record(&r, n, n / 2);
	for (uint64_t n = 4; n < RECORDS + 4; n++) {
		expect(mp3ring_read_record(&ring, n, n / 2, &rec), "record %" PRIu64, n);
		expect(rec.tgid == 1000 + n && rec.type == MP3_RECORD_COUNTS &&
		       rec.counts.minor_faults == n * 3 && rec.counts.major_faults == n * 5 &&
		       rec.counts.cpu_ns == n * 7 && rec.target == n * 11,
		       "record %" PRIu64 " misread", n);
	}
	expect(!mp3ring_read_record(&ring, 3, 1, &rec), "lapped record 3 read");
	expect(!mp3ring_read_record(&ring, 5, 7, &rec), "record 5 read as sample 7's");
	expect(!mp3ring_read_record(&ring, RECORDS + 4, (RECORDS + 4) / 2, &rec),
	       "a record not written yet read");
	free(r.mem);
}

/* A version 2 writer's records: shorter slots, their target read as 0. */
static void test_records_v2(void)
{
	struct region r = make_default(8);
	struct mp3_proc_record rec;
	struct mp3ring ring;

	r.hdr->version = 2;
	r.hdr->record_size = MP3_PROC_RECORD_V2_SIZE;
	attach(&ring, &r);
	for (uint64_t n = 0; n < 8; n++)
		publish_record(&r, n, n / 2);
	for (uint64_t n = 0; n < 8; n++) {
		expect(mp3ring_read_record(&ring, n, n / 2, &rec), "record %" PRIu64, n);
		expect(rec.tgid == 1000 + n && rec.counts.cpu_ns == n * 7 && rec.target == 0,
		       "version 2 record %" PRIu64 " misread: target %u", n, rec.target);
	}
	free(r.mem);
}

static void test_empty(void)
{
	struct region r = make_default(16);
	uint64_t next = 0, missed = 0;
	struct mp3ring ring;

	attach(&ring, &r);
	expect(mp3ring_head(&ring) == 0, "head %" PRIu64, mp3ring_head(&ring));
	expect_empty(&ring, &next, &missed);
	/* A position past head (saved from later) waits for head to get there. */
	next = 5;
	publish_range(&r, 0, 3);
	expect_empty(&ring, &next, &missed);
	free(r.mem);
}

static void test_in_order(void)
{
	struct region r = make_default(16);
	uint64_t next = 0, missed = 0;
	struct mp3ring ring;

	attach(&ring, &r);
	publish_range(&r, 0, 10);
	for (uint64_t n = 0; n < 10; n++)
		expect_sample(&ring, &next, &missed, n, 0);
	expect_empty(&ring, &next, &missed);
	/* Interleaved with the writer for several laps. */
	for (uint64_t n = 10; n < 200; n++) {
		publish(&r, n);
		if (n % 3 == 0)
			continue;
		while (next <= n)
			expect_sample(&ring, &next, &missed, next, 0);
	}
	expect_empty(&ring, &next, &missed);
	free(r.mem);
}

/* A newer module's bigger samples: slots are stepped by sample_size, extra bytes ignored. */
static void test_bigger_samples(void)
{
	struct region r = make_region(8, sizeof(struct mp3_ring_sample) + 48,
				      sizeof(struct mp3_ring_header) + 32);
	uint64_t next = 0, missed = 0;
	struct mp3ring ring;

	attach(&ring, &r);
	for (uint64_t n = 0; n < 50; n++) {
		publish(&r, n);
		if (n % 5 == 4)
			while (next <= n)
				expect_sample(&ring, &next, &missed, next, 0);
	}
	expect_empty(&ring, &next, &missed);
	free(r.mem);
}

/* The writer got capacity + k ahead: exactly k are missed, reading goes on at head - capacity. */
static void test_lapped(void)
{
	static const uint64_t ks[] = { 1, 2, 15, 16, 17, 50 };
	const uint64_t capacity = 16;

	for (size_t c = 0; c < sizeof(ks) / sizeof(ks[0]); c++) {
		struct region r = make_default(capacity);
		uint64_t next = 0, missed = 0, k = ks[c];
		struct mp3ring ring;

		attach(&ring, &r);
		publish_range(&r, 0, capacity + k);
		for (uint64_t n = k; n < capacity + k; n++)
			expect_sample(&ring, &next, &missed, n, k);
		expect_empty(&ring, &next, &missed);
		/* And again from the middle of the stream. */
		publish_range(&r, capacity + k, 3 * capacity + 2 * k);
		expect_sample(&ring, &next, &missed, 2 * capacity + 2 * k, capacity + 2 * k);
		free(r.mem);
	}
}

/* The writer is rewriting the slot of the sample the reader wants: missed once. */
static void test_torn_writing(void)
{
	struct region r = make_default(8);
	uint64_t next = 0, missed = 0;
	struct mp3_ring_sample *slot;
	struct mp3ring ring;

	attach(&ring, &r);
	publish_range(&r, 0, 11);
	expect_sample(&ring, &next, &missed, 3, 3);
	publish(&r, 11);
	/* Head 12: sample 12 goes into the slot of sample 4, which is not lapped yet. */
	slot = slot_at(&r, 12);
	begin_write(slot);
	fill(slot, 12);
	expect_sample(&ring, &next, &missed, 5, 4);
	end_write(slot, 12);
	publish_head(&r, 13);
	for (uint64_t n = 6; n <= 12; n++)
		expect_sample(&ring, &next, &missed, n, 4);
	expect_empty(&ring, &next, &missed);
	free(r.mem);
}

/* The slot already holds the next lap's sample but head does not say so yet: missed once. */
static void test_torn_later_lap(void)
{
	struct region r = make_default(8);
	uint64_t next = 0, missed = 0;
	struct mp3_ring_sample *slot;
	struct mp3ring ring;

	attach(&ring, &r);
	publish_range(&r, 0, 8);
	expect_sample(&ring, &next, &missed, 0, 0);
	publish(&r, 8);
	/* Sample 9 is complete in the slot of sample 1; head is still 9. */
	slot = slot_at(&r, 9);
	begin_write(slot);
	fill(slot, 9);
	end_write(slot, 9);
	expect_sample(&ring, &next, &missed, 2, 1);
	publish_head(&r, 10);
	for (uint64_t n = 3; n <= 9; n++)
		expect_sample(&ring, &next, &missed, n, 1);
	expect_empty(&ring, &next, &missed);
	free(r.mem);
}

/* ---- a writer thread against a reader ---- */

struct concurrent {
	struct region r;
	uint64_t total;
	unsigned int pause;	/* busy-loop rounds between samples: lets the reader keep up */
};

static void *writer_thread(void *arg)
{
	const struct concurrent *c = arg;

	for (uint64_t n = 0; n < c->total; n++) {
		for (volatile unsigned int i = 0; i < c->pause; i++)
			;
		publish(&c->r, n);
	}
	return NULL;
}

/*
 * A small ring laps the reader all the time and overwrites slots while they
 * are copied (hundreds of thousands of torn copies per run); a paced writer
 * lets the reader read most samples.
 */
static void run_concurrent(uint32_t capacity, unsigned int pause)
{
	struct concurrent c = { make_default(capacity), CONCURRENT_SAMPLES, pause };
	uint64_t next = 0, missed = 0, read = 0;
	struct mp3_ring_sample s;
	struct mp3ring ring;
	pthread_t writer;
	int err;

	attach(&ring, &c.r);
	err = pthread_create(&writer, NULL, writer_thread, &c);
	expect(!err, "pthread_create: %s", strerror(err));
	while (next < c.total) {
		uint64_t before = next, missed_before = missed;
		enum mp3ring_status st = mp3ring_read(&ring, &next, &s, &missed);

		if (st == MP3RING_EMPTY) {
			expect(next == before && missed == missed_before, "empty read moved");
			sched_yield();
			continue;
		}
		/* Everything between the last read and this one was counted as missed. */
		expect(next - 1 - before == missed - missed_before,
			   "skipped %" PRIu64 "..%" PRIu64 " but counted %" PRIu64, before,
			   next - 1, missed - missed_before);
		expect(sample_ok(&s, next - 1), "sample %" PRIu64 " torn (seq %" PRIu64 ")",
			   next - 1, (uint64_t)s.seq);
		read++;
	}
	pthread_join(writer, NULL);
	expect(read + missed == c.total, "read %" PRIu64 " + missed %" PRIu64 " != %" PRIu64,
		   read, missed, c.total);
	expect(read > 0, "nothing read");
	free(c.r.mem);
}

static void test_concurrent_small(void)
{
	run_concurrent(64, 0);
}

static void test_concurrent_tiny(void)
{
	run_concurrent(2, 0);
}

static void test_concurrent_paced(void)
{
	run_concurrent(MP3_RING_CAPACITY, 100);
}

/* Half of whichever ring fills first, in periods; never less than one period. */
static void test_safe_wait(void)
{
	static const struct {
		uint32_t records_per_sample;
		uint64_t periods;
	} cases[] = {
		{ 0, 32 },		/* no records: half of the 64 samples */
		{ 1, 8 },		/* half of the 16 records, one a sample */
		{ 3, 2 },		/* 8 / 3, rounded down */
		{ 8, 1 },
		{ 100, 1 },		/* more than the ring holds: still one period */
	};
	struct region r = make_default(64), v1 = make_v1(64);
	struct mp3ring ring, old;

	attach(&ring, &r);
	attach(&old, &v1);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		uint64_t ns = mp3ring_safe_wait_ns(&ring, cases[i].records_per_sample);

		expect(ns == cases[i].periods * r.hdr->period_ns, "%u records a sample: %llu ns,"
		       " want %llu periods", cases[i].records_per_sample, (unsigned long long)ns,
		       (unsigned long long)cases[i].periods);
	}
	expect(mp3ring_safe_wait_ns(&old, 100) == 32 * v1.hdr->period_ns,
	       "a version 1 ring has no records to fill");
	free(r.mem);
	free(v1.mem);
}

/* Version 8's header counts the faults not timed; before, the field was reserved. */
static void test_latency_missed(void)
{
	struct region r = make_default(4);
	struct mp3ring ring;

	r.hdr->latency_missed = 7;
	attach(&ring, &r);
	expect(mp3ring_latency_missed(&ring) == 7, "version 8: %llu missed, want 7",
	       (unsigned long long)mp3ring_latency_missed(&ring));
	r.hdr->version = 7;
	expect(mp3ring_latency_missed(&ring) == 0, "version 7: %llu missed, want 0",
	       (unsigned long long)mp3ring_latency_missed(&ring));
	free(r.mem);
}

/* Version 12's header says the faults records' bound; before, it was 64 and the field reserved. */
static void test_fault_records_max(void)
{
	struct region r = make_default(4);
	struct mp3ring ring;

	r.hdr->fault_records_max = 256;
	attach(&ring, &r);
	expect(mp3ring_fault_records_max(&ring) == 256, "version %u: bound %u, want 256",
	       r.hdr->version, mp3ring_fault_records_max(&ring));
	r.hdr->version = 11;
	r.hdr->fault_records_max = 99;
	expect(mp3ring_fault_records_max(&ring) == 64, "version 11: bound %u, want 64",
	       mp3ring_fault_records_max(&ring));
	free(r.mem);
}

UNIT_TESTS(
	UNIT_TEST(header_validation),
	UNIT_TEST(v1_writer),
	UNIT_TEST(records),
	UNIT_TEST(records_v2),
	UNIT_TEST(empty),
	UNIT_TEST(in_order),
	UNIT_TEST(bigger_samples),
	UNIT_TEST(lapped),
	UNIT_TEST(torn_writing),
	UNIT_TEST(torn_later_lap),
	UNIT_TEST(concurrent_small),
	UNIT_TEST(concurrent_tiny),
	UNIT_TEST(concurrent_paced),
	UNIT_TEST(safe_wait),
	UNIT_TEST(latency_missed),
	UNIT_TEST(fault_records_max),
);
