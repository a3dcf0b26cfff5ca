/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What pfprofd exports to Prometheus (promfile.h writes it): counters that
 * only grow while pfprofd runs, fed by the collector with each sample and
 * record it logs, and seeded from pfprofd's last file at start, so that
 * neither a restart nor a module reload sends one backwards. A process's
 * counters start again from 0 only when its labels change (a new name).
 */
#ifndef PFPROF_METRICS_H
#define PFPROF_METRICS_H

#include <stdbool.h>
#include <stdint.h>

#include <linux/mp3.h>

#include "pidlist.h"
#include "proctable.h"
#include "psi.h"

/* proc_entry.marks of the metrics' table. */
#define METRICS_EXPORTED	1u	/* the process has a series */
#define METRICS_OMITTED		2u	/* left out by the cap, and counted so */

/* A counter of the module's that starts from 0 at every module load. */
struct load_counter {
	uint64_t load_id;	/* the load that current counts */
	uint64_t current;	/* the module's value in that load */
	uint64_t before;	/* summed over the loads before it */
};

struct metrics {
	/* Per process, by tgid: counts since pfprofd, or its last file, first saw it. */
	struct proc_table procs;
	uint64_t minor, major, cpu_ns;		/* summed over the registered processes */
	uint64_t samples_written, samples_lost;
	uint64_t omitted;			/* processes left out by the cap */
	struct load_counter sampler_ns, sampler_runs;
	/* The whole system at the last sample that had its counters. */
	bool have_system;
	uint64_t pgmajfault, pswpin, pswpout;
	bool have_psi;
	struct psi_memory psi;
	size_t registered;			/* processes the module samples */
};

void metrics_add_sample(struct metrics *m, const struct mp3_ring_sample *s, bool has_system);
void metrics_add_lost(struct metrics *m, uint64_t count);
/* A record of a logged sample; a new name restarts the process's counters. 0 or -ENOMEM. */
int metrics_add_record(struct metrics *m, const struct mp3_proc_record *r);
void metrics_set_psi(struct metrics *m, const struct psi_memory *psi);

/* The module's sampler cost, as its header says now. */
void metrics_set_sampler(struct metrics *m, uint64_t load_id, uint64_t ns_total, uint64_t runs);
uint64_t load_counter_total(const struct load_counter *c);
/*
 * Of c's total so far (in c->before, as a file gave it), current came from
 * load_id: the module's own value, from which it goes on.
 */
void load_counter_resume(struct load_counter *c, uint64_t load_id, uint64_t current);

/*
 * Before a write: forgets the processes that are no longer registered,
 * then marks which have a series, at most max: those that had one keep it,
 * the others are taken in table order and the rest counted as omitted, once
 * each. Returns 0 or -ENOMEM (nothing forgotten then).
 */
int metrics_select(struct metrics *m, const struct pidlist *registered, unsigned int max);

void metrics_free(struct metrics *m);

#endif /* PFPROF_METRICS_H */
