/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A ring region laid out as the mp3 module lays it out (<linux/mp3.h>), in
 * heap memory, for the tests of its readers: the header, the sample and
 * record slots, attached to a struct mp3ring.
 */
#ifndef PFPROF_RING_REGION_H
#define PFPROF_RING_REGION_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "mp3ring.h"
#include "unit.h"

#define SLACK 4096		/* bytes allocated past region_size */

/* A region laid out as the module does, in aligned heap memory. */
struct region {
	unsigned char *mem;
	size_t alloc;			/* bytes allocated: region_size + SLACK */
	struct mp3_ring_header *hdr;
};

static inline uint64_t round_up(uint64_t v, uint64_t to)
{
	return (v + to - 1) / to * to;
}

#define RECORDS 16	/* record slots of a version 2 region */

static inline struct region make_region(uint32_t capacity, uint32_t sample_size,
					uint32_t header_size)
{
	uint32_t data_offset = round_up(header_size, 64);
	uint64_t record_offset = round_up(data_offset + (uint64_t)capacity * sample_size, 64);
	uint64_t size = record_offset + RECORDS * sizeof(struct mp3_proc_record);
	struct region r;

	r.alloc = round_up(size + SLACK, 4096);
	r.mem = aligned_alloc(4096, r.alloc);
	expect(r.mem, "aligned_alloc(%zu) failed", r.alloc);
	/* Bytes the reader must not care about: future fields, unused slots. */
	memset(r.mem, 0xee, r.alloc);
	r.hdr = (struct mp3_ring_header *)r.mem;
	memset(r.hdr, 0, header_size);
	r.hdr->magic = MP3_RING_MAGIC;
	r.hdr->version = MP3_RING_VERSION;
	r.hdr->compat_version = MP3_RING_COMPAT_VERSION;
	r.hdr->load_id = 0x1122334455667788ULL;
	r.hdr->header_size = header_size;
	r.hdr->sample_size = sample_size;
	r.hdr->data_offset = data_offset;
	r.hdr->capacity = capacity;
	r.hdr->region_size = size;
	r.hdr->period_ns = 50000000;
	r.hdr->hz = 250;
	r.hdr->record_offset = record_offset;
	r.hdr->record_size = sizeof(struct mp3_proc_record);
	r.hdr->record_capacity = RECORDS;
	return r;
}

static inline struct region make_default(uint32_t capacity)
{
	return make_region(capacity, sizeof(struct mp3_ring_sample),
			   sizeof(struct mp3_ring_header));
}

static inline void attach(struct mp3ring *ring, const struct region *r)
{
	int err = mp3ring_attach(ring, r->mem, r->alloc);

	expect(!err, "attach: %s", strerror(-err));
}

static inline struct mp3_ring_sample *slot_at(const struct region *r, uint64_t n)
{
	uint64_t index = n & (r->hdr->capacity - 1);

	return (void *)(r->mem + r->hdr->data_offset + index * r->hdr->sample_size);
}

/* The slot of record n. */
static inline struct mp3_proc_record *record_at(const struct region *r, uint64_t n)
{
	return (void *)(r->mem + r->hdr->record_offset +
			(n & (r->hdr->record_capacity - 1)) * r->hdr->record_size);
}

#endif /* PFPROF_RING_REGION_H */
