/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Reader side of the mp3 versioned region (see <linux/mp3.h>, at version
 * MP3_RING_VERSION): validates the header and copies samples and their
 * per-process records out with the seqcount protocol, counting exactly the
 * samples it could not get. Reads every writer whose compat_version is not
 * newer than that: what an older writer's shorter header, samples or
 * records lack reads as 0 (a version 1 writer has no records at all, a
 * version 2 record no target), and records are handed on whatever their
 * type, for the caller to skip the types it does not know.
 */
#ifndef PFPROF_MP3RING_H
#define PFPROF_MP3RING_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <linux/mp3.h>

struct mp3ring {
	const struct mp3_ring_header *hdr;
	const unsigned char *slots;	/* slot 0 */
	size_t region_size;		/* bytes mapped, as the header says */
	uint64_t capacity;
	uint32_t sample_size;
	uint64_t load_id;
	int mapped;			/* region is ours to munmap() */
	/* Version 2's per-process records; NULL from a version 1 writer. */
	const unsigned char *records;	/* record slot 0 */
	uint64_t record_capacity;
	uint32_t record_size;
};

/* Where mp3ring_read() found the next sample. */
enum mp3ring_status {
	MP3RING_EMPTY,		/* nothing new published yet */
	MP3RING_SAMPLE,		/* *out holds the sample *next - 1 */
};

/*
 * Maps the versioned region of the open mp3 device fd read-only.
 * Returns 0, or a negative errno: -ENOTTY if fd is not a character device,
 * -EPROTO if the header is not one this reader understands (bad magic, newer
 * compat_version, inconsistent sizes);
 * on failure *ring is empty, and mp3ring_unmap() on it does nothing.
 */
int mp3ring_map(struct mp3ring *ring, int fd);

/*
 * Uses a region already in memory (size bytes at region), e.g. one that a
 * test laid out. Same checks and return values as mp3ring_map().
 */
int mp3ring_attach(struct mp3ring *ring, const void *region, size_t size);

void mp3ring_unmap(struct mp3ring *ring);

/* Samples published so far (load-acquire of hdr->head). */
uint64_t mp3ring_head(const struct mp3ring *ring);

/* The writer's sampling cost so far in this load: runs that took a sample, and their time. */
void mp3ring_sampler_cost(const struct mp3ring *ring, uint64_t *runs, uint64_t *ns_total);

/* The processes of followed trees, cgroups and names the module left out since its load. */
void mp3ring_unfollowed(const struct mp3ring *ring, uint64_t *skipped, uint64_t *missed);

/* Faults of "latency" registrations the module could not time since its load; 0 before version 8. */
uint64_t mp3ring_latency_missed(const struct mp3ring *ring);

/* Swap events of "pages" registrations not written (a CPU's buffer full); 0 before version 10. */
uint64_t mp3ring_swap_dropped(const struct mp3ring *ring);

/* A process's faults records in one sample, at most (version 6; 64 before version 12). */
unsigned int mp3ring_fault_records_max(const struct mp3ring *ring);

/*
 * Copies the next sample the reader wants, *next, into *out and advances
 * *next past it. Samples that were overwritten before they could be copied
 * are skipped and added to *missed. Never blocks.
 */
enum mp3ring_status mp3ring_read(const struct mp3ring *ring, uint64_t *next,
				 struct mp3_ring_sample *out, uint64_t *missed);

/*
 * Copies record n, which sample (its seq) names, into *out. False if the
 * writer has no records (version 1) or record n was overwritten: it is lost.
 */
bool mp3ring_read_record(const struct mp3ring *ring, uint64_t n, uint64_t sample,
			 struct mp3_proc_record *out);

/*
 * Whether r is about one process (its tgid): not MP3_RECORD_DROPPED
 * (version 9), which counts an owner's records, nor MP3_RECORD_CGROUP_SWAP
 * (version 13), a cgroup's; nor a record of no process (tgid 0), whatever
 * a newer module may write.
 */
bool mp3ring_record_of_process(const struct mp3_proc_record *r);

/*
 * Hands fn each record of sample s that can still be read
 * (mp3ring_read_record()), in order; returns how many could not: lost.
 */
uint64_t mp3ring_for_each_record(const struct mp3ring *ring, const struct mp3_ring_sample *s,
				 void (*fn)(void *ctx, const struct mp3_proc_record *r),
				 void *ctx);

/*
 * How long a reader that has just caught up may leave the ring alone when
 * each sample names records_per_sample records: the time the writer takes to
 * fill half of the samples' ring or half of the records' ring, whichever is
 * sooner, so that a reader waking then still has the other half's time to
 * drain before anything is overwritten. In ns, at least one period.
 */
uint64_t mp3ring_safe_wait_ns(const struct mp3ring *ring, uint32_t records_per_sample);

/* Where mp3ring_drain() hands what it reads; a callback returns false to stop it. */
struct mp3ring_sink {
	bool (*missed)(void *ctx, uint64_t first_seq, uint64_t count);
	bool (*sample)(void *ctx, const struct mp3_ring_sample *s);
};

/*
 * Reads from *next on, in order: every run of samples lost goes to
 * sink->missed, every sample copied to sink->sample, until nothing new is
 * published, max samples went to the sink (0: no limit) or a callback
 * refused. *next then is where to go on: what was refused comes again (a
 * refused sample that is overwritten meanwhile comes back as missed).
 * Returns how many samples the sink took.
 */
uint64_t mp3ring_drain(const struct mp3ring *ring, uint64_t *next, uint64_t max,
		       const struct mp3ring_sink *sink, void *ctx);

#endif /* PFPROF_MP3RING_H */
