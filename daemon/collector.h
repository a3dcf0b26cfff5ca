/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Moves samples from the module's versioned region into the samples log,
 * their per-process records into the per-process log and their faults
 * records, added up per mapping and named (mapnames.h), into the faults
 * log, in order, turning every sample it could not get into a "missed"
 * line, and counts what it reads (counters.h). Each log resumes after its
 * own last line; a sample's lines go into all the logs that want it or none.
 */
#ifndef PFPROF_COLLECTOR_H
#define PFPROF_COLLECTOR_H

#include <stdint.h>

#include "counters.h"
#include "logwriter.h"
#include "mapnames.h"
#include "mp3ring.h"
#include "psi.h"
#include "stalls.h"

/* A sample's faults records of one process and mapping, added up. */
struct fault_sum {
	uint32_t tgid, target, mapping;
	uint64_t start, inode, dev, minor, major;
	uint64_t minor_ns, major_ns;	/* fault_time: the time they took, 0 if not timed */
};

struct collector {
	int fd;			/* the device, for poll() and read() */
	struct mp3ring ring;
	uint64_t next;		/* seq of the next sample to queue */
	uint64_t queued;	/* samples queued for the log since start */
	uint64_t missed;	/* samples lost since start */
	uint64_t wall_offset_ns;	/* CLOCK_REALTIME - CLOCK_MONOTONIC, for this drain */
	bool has_system;		/* the samples carry the system's counters (version 2) */
	const struct psi_cache *psi;	/* memory pressure for the sample lines */
	struct delayacct_cache delayacct;	/* whether the waits the module sends are measured */
	struct counters *counters;	/* counts every sample and record queued */
	struct logwriter *logs[LOG_KINDS];	/* by enum log_kind */
	uint64_t from[LOG_RING_KINDS];	/* the first seq each of the ring's logs still wants */
	uint64_t sweep_at;		/* seq at which the counters forget exited processes */
	uint32_t records_per_sample;	/* in the last sample drained */
	struct mapnames mapnames;	/* names the faults records' mappings */
	struct fault_sum *faults;	/* the sample's faults records, being added up */
	size_t nr_faults, faults_cap;
};

/*
 * Opens and maps the device and decides where to start: after the last
 * sample already logged if the logs are from this module load, else at the
 * oldest sample still in the ring. Returns 0 or -errno.
 */
int collector_open(struct collector *c, const char *device, struct logwriter *logs[LOG_KINDS],
		   struct counters *counters, const struct psi_cache *psi);

/* Re-arms poll() and queues every new sample the logs take. */
void collector_drain(struct collector *c);

/* Whether samples wait in the ring (a drain stopped at a full queue). */
bool collector_behind(const struct collector *c);

/*
 * How long the ring may be left alone now without losing samples or records,
 * at the number of records per sample seen last (see mp3ring_safe_wait_ns()).
 */
uint64_t collector_safe_wait_usec(const struct collector *c);

/* Hands the collector new log writers (after a reload). */
void collector_set_logs(struct collector *c, struct logwriter *logs[LOG_KINDS]);

void collector_close(struct collector *c);

#endif /* PFPROF_COLLECTOR_H */
