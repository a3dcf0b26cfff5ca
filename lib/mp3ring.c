// SPDX-License-Identifier: GPL-2.0
#include "mp3ring.h"

#include <errno.h>
#include <stddef.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>

/* The header lives in the first page of the region; map that much first. */
#define MP3RING_HEADER_MAP 4096

/* What a version 1 writer puts in the header and in a sample. */
#define V1_HEADER_SIZE offsetof(struct mp3_ring_header, record_offset)
#define V1_SAMPLE_SIZE offsetof(struct mp3_ring_sample, first_record)
/* Versions 2 to 6 end their samples before the stalls. */
#define V2_SAMPLE_SIZE offsetof(struct mp3_ring_sample, stalls)

static bool is_power_of_two(uint64_t n)
{
	return n && !(n & (n - 1));
}

/* What the writer's version promises: a version 1 header and sample are shorter. */
static bool sizes_are_usable(const struct mp3_ring_header *hdr)
{
	if (hdr->version >= 2)
		return hdr->header_size >= sizeof(*hdr) &&
		       hdr->sample_size >= (hdr->version >= 7 ? sizeof(struct mp3_ring_sample) :
						      V2_SAMPLE_SIZE);
	return hdr->header_size >= V1_HEADER_SIZE && hdr->sample_size >= V1_SAMPLE_SIZE;
}

static bool samples_are_usable(const struct mp3_ring_header *hdr)
{
	uint64_t data_end;

	if (!sizes_are_usable(hdr) || hdr->sample_size % 8 != 0 ||
	    !is_power_of_two(hdr->capacity) ||
	    hdr->data_offset < hdr->header_size || hdr->data_offset % 8 != 0)
		return false;
	/* capacity <= 2^32 and sample_size < 2^32: no overflow in 64 bits. */
	data_end = hdr->data_offset + (uint64_t)hdr->capacity * hdr->sample_size;
	return data_end <= hdr->region_size;
}

/* Version 2's records, if the writer has them; false if it claims them wrongly. */
static bool records_are_usable(const struct mp3_ring_header *hdr, bool *present)
{
	uint64_t samples_end = hdr->data_offset + (uint64_t)hdr->capacity * hdr->sample_size;

	*present = hdr->version >= 2;
	if (!*present)
		return true;
	/* A version 2 module's records end before target. */
	return hdr->record_size >= MP3_PROC_RECORD_V2_SIZE && hdr->record_size % 8 == 0 &&
	       is_power_of_two(hdr->record_capacity) && hdr->record_offset % 8 == 0 &&
	       hdr->record_offset >= samples_end &&
	       hdr->record_offset + (uint64_t)hdr->record_capacity * hdr->record_size <=
	       hdr->region_size;
}

int mp3ring_attach(struct mp3ring *ring, const void *region, size_t size)
{
	const struct mp3_ring_header *hdr = region;
	bool records;

	memset(ring, 0, sizeof(*ring));
	if (size < sizeof(*hdr) || hdr->magic != MP3_RING_MAGIC ||
	    hdr->compat_version > MP3_RING_VERSION || hdr->region_size > size || !samples_are_usable(hdr) ||
	    !records_are_usable(hdr, &records))
		return -EPROTO;
	ring->hdr = hdr;
	ring->slots = (const unsigned char *)region + hdr->data_offset;
	ring->region_size = hdr->region_size;
	ring->capacity = hdr->capacity;
	ring->sample_size = hdr->sample_size;
	ring->load_id = hdr->load_id;
	if (records) {
		ring->records = (const unsigned char *)region + hdr->record_offset;
		ring->record_capacity = hdr->record_capacity;
		ring->record_size = hdr->record_size;
	}
	return 0;
}

static void *map_region(int fd, size_t size)
{
	void *p = mmap(NULL, size, PROT_READ, MAP_SHARED, fd, MP3_RING_OFFSET);

	return p == MAP_FAILED ? NULL : p;
}

int mp3ring_map(struct mp3ring *ring, int fd)
{
	const struct mp3_ring_header *hdr;
	size_t size;
	struct stat st;
	void *region;
	int err;

	/* On failure too the reader has a defined, empty ring. */
	memset(ring, 0, sizeof(*ring));
	/* A file mapped past its end raises SIGBUS on the first read. */
	if (fstat(fd, &st))
		return -errno;
	if (!S_ISCHR(st.st_mode))
		return -ENOTTY;
	hdr = map_region(fd, MP3RING_HEADER_MAP);
	if (!hdr)
		return -errno;
	size = hdr->region_size;
	if (hdr->magic != MP3_RING_MAGIC || size < MP3RING_HEADER_MAP)
		size = 0;
	munmap((void *)hdr, MP3RING_HEADER_MAP);
	if (!size)
		return -EPROTO;

	region = map_region(fd, size);
	if (!region)
		return -errno;
	err = mp3ring_attach(ring, region, size);
	if (err) {
		munmap(region, size);
		return err;
	}
	ring->mapped = 1;
	return 0;
}

void mp3ring_unmap(struct mp3ring *ring)
{
	if (ring->mapped)
		munmap((void *)ring->hdr, ring->region_size);
	memset(ring, 0, sizeof(*ring));
}

uint64_t mp3ring_head(const struct mp3ring *ring)
{
	return __atomic_load_n(&ring->hdr->head, __ATOMIC_ACQUIRE);
}

void mp3ring_sampler_cost(const struct mp3ring *ring, uint64_t *runs, uint64_t *ns_total)
{
	/* Two counters the writer updates apart: each read whole, not both at one instant. */
	*runs = __atomic_load_n(&ring->hdr->sampler_ticks, __ATOMIC_RELAXED);
	*ns_total = __atomic_load_n(&ring->hdr->sampler_ns_total, __ATOMIC_RELAXED);
}

void mp3ring_unfollowed(const struct mp3ring *ring, uint64_t *skipped, uint64_t *missed)
{
	/* Version 3's; an older module's header has 0 there (reserved). */
	*skipped = __atomic_load_n(&ring->hdr->follow_skipped, __ATOMIC_RELAXED);
	*missed = __atomic_load_n(&ring->hdr->follow_missed, __ATOMIC_RELAXED);
}

uint64_t mp3ring_latency_missed(const struct mp3ring *ring)
{
	/* Reserved before: read only from a header that has it. */
	if (ring->hdr->version < 8)
		return 0;
	return __atomic_load_n(&ring->hdr->latency_missed, __ATOMIC_RELAXED);
}

uint64_t mp3ring_swap_dropped(const struct mp3ring *ring)
{
	if (ring->hdr->version < 10)
		return 0;
	return __atomic_load_n(&ring->hdr->swap_dropped, __ATOMIC_RELAXED);
}

unsigned int mp3ring_fault_records_max(const struct mp3ring *ring)
{
	/* Reserved before version 12, whose bound was 64. */
	return ring->hdr->version < 12 ? 64 : ring->hdr->fault_records_max;
}

static const struct mp3_ring_sample *slot_of(const struct mp3ring *ring,
					     uint64_t n)
{
	size_t index = n & (ring->capacity - 1);

	return (const void *)(ring->slots + index * ring->sample_size);
}

/* Copies sample n if the writer did not touch its slot during the copy. */
static int copy_sample(const struct mp3ring *ring, uint64_t n,
		       struct mp3_ring_sample *out)
{
	const struct mp3_ring_sample *slot = slot_of(ring, n);
	uint64_t before, after;

	before = __atomic_load_n(&slot->seq, __ATOMIC_ACQUIRE);
	if (before != n)
		return 0;
	/* An older writer's samples are shorter: what they lack reads as 0. */
	memset(out, 0, sizeof(*out));
	memcpy(out, slot, ring->sample_size < sizeof(*out) ? ring->sample_size : sizeof(*out));
	__atomic_thread_fence(__ATOMIC_ACQUIRE);
	after = __atomic_load_n(&slot->seq, __ATOMIC_RELAXED);
	return after == n && out->seq == n;
}

enum mp3ring_status mp3ring_read(const struct mp3ring *ring, uint64_t *next,
				 struct mp3_ring_sample *out, uint64_t *missed)
{
	for (;;) {
		uint64_t head = mp3ring_head(ring);
		uint64_t n = *next;

		if (n >= head)
			return MP3RING_EMPTY;
		if (head - n > ring->capacity) {
			*missed += head - ring->capacity - n;
			n = head - ring->capacity;
		}
		*next = n + 1;
		if (copy_sample(ring, n, out))
			return MP3RING_SAMPLE;
		++*missed;	/* lapped while we copied it */
	}
}

uint64_t mp3ring_drain(const struct mp3ring *ring, uint64_t *next, uint64_t max,
		       const struct mp3ring_sink *sink, void *ctx)
{
	struct mp3_ring_sample s;
	uint64_t taken = 0;

	while (!max || taken < max) {
		uint64_t first = *next, missed = 0;
		enum mp3ring_status got = mp3ring_read(ring, next, &s, &missed);

		if (missed && !sink->missed(ctx, first, missed)) {
			*next = first;
			break;
		}
		if (got == MP3RING_EMPTY)
			break;
		if (!sink->sample(ctx, &s)) {
			*next -= 1;
			break;
		}
		taken++;
	}
	return taken;
}

bool mp3ring_read_record(const struct mp3ring *ring, uint64_t n, uint64_t sample,
			 struct mp3_proc_record *out)
{
	const struct mp3_proc_record *slot;
	uint64_t before, after;

	if (!ring->records)
		return false;
	slot = (const void *)(ring->records + (n & (ring->record_capacity - 1)) * ring->record_size);
	before = __atomic_load_n(&slot->seq, __ATOMIC_ACQUIRE);
	if (before != n)
		return false;
	/* What an older module's record lacks reads as 0. */
	memset(out, 0, sizeof(*out));
	memcpy(out, slot, ring->record_size < sizeof(*out) ? ring->record_size : sizeof(*out));
	__atomic_thread_fence(__ATOMIC_ACQUIRE);
	after = __atomic_load_n(&slot->seq, __ATOMIC_RELAXED);
	return after == n && out->seq == n && out->sample == sample;
}

bool mp3ring_record_of_process(const struct mp3_proc_record *r)
{
	return r->tgid && r->type != MP3_RECORD_DROPPED && r->type != MP3_RECORD_CGROUP_SWAP;
}

uint64_t mp3ring_for_each_record(const struct mp3ring *ring, const struct mp3_ring_sample *s,
				 void (*fn)(void *ctx, const struct mp3_proc_record *r),
				 void *ctx)
{
	struct mp3_proc_record r;
	uint64_t lost = 0;

	for (uint64_t n = s->first_record; n < s->first_record + s->nr_records; n++) {
		if (mp3ring_read_record(ring, n, s->seq, &r))
			fn(ctx, &r);
		else
			lost++;
	}
	return lost;
}

uint64_t mp3ring_safe_wait_ns(const struct mp3ring *ring, uint32_t records_per_sample)
{
	uint64_t samples = ring->capacity / 2;

	if (ring->records && records_per_sample &&
	    ring->record_capacity / 2 / records_per_sample < samples)
		samples = ring->record_capacity / 2 / records_per_sample;
	return (samples ? samples : 1) * ring->hdr->period_ns;
}
