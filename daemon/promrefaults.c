// SPDX-License-Identifier: GPL-2.0
#include "promrefaults.h"

#include <inttypes.h>
#include <stdbool.h>
#include <time.h>
#include <unistd.h>

#include "promtext.h"

#define DISTANCE_METRIC "pfprof_target_swap_refault_distance_bytes"

/* DISTANCE_METRIC<suffix>{target="..." : the closing brace is the caller's. */
static void put_labels(FILE *out, const char *suffix, const struct target_list *targets,
		       const struct target_total *t)
{
	fprintf(out, DISTANCE_METRIC "%s{", suffix);
	prom_put_target_label(out, targets, t->number);
}

/* A target's histogram: cumulative buckets, then its sum and count. */
static void put_series(FILE *out, const struct target_list *targets, const struct target_total *t)
{
	const struct refault_dist *h = &t->refaults;
	uint64_t count = 0;

	for (unsigned int b = 0; b < REFAULT_DIST_BUCKETS; b++) {
		uint64_t bound = refaultdist_bound_bytes(b);

		count += h->pages[b];
		put_labels(out, "_bucket", targets, t);
		if (bound == UINT64_MAX)
			fputs(",le=\"+Inf\"}", out);
		else
			fprintf(out, ",le=\"%" PRIu64 "\"}", bound);
		prom_put_value(out, count, false);
	}
	put_labels(out, "_sum", targets, t);
	fputc('}', out);
	prom_put_value(out, h->bytes, false);
	put_labels(out, "_count", targets, t);
	fputc('}', out);
	prom_put_value(out, count, false);
}

/* The shares whose memory is told: what pfprofctl memory's +50%, +90% and +99% say. */
static const struct {
	const char *label;
	double share;
} shares[] = { { "0.5", 0.5 }, { "0.9", 0.9 }, { "0.99", 0.99 } };

/* The memory short, on a target's clock and on the machine's. */
static const struct short_metric {
	const char *name, *help;
	bool machine;		/* the target's machine_recent window, else its recent one */
} short_metrics[] = {
	{ "pfprof_target_swap_memory_short_bytes",
	  "The memory beyond what a target added with pages had that would have kept that"
	  " share of the pages it read back from swap (a unit or cgroup: and of its files"
	  " read again) in the last 10 minutes in: their refault distance there, within"
	  " 1/32 above what pfprofctl memory computes.",
	  false },
	{ "pfprof_target_swap_machine_short_bytes",
	  "The memory beyond what the machine had that would have kept that share of the"
	  " pages a target added with pages read back from swap in the last 10 minutes in:"
	  " their refault distance on the machine's clock (its pages written to swap while"
	  " each was away), for pages the machine's reclaim pushed out, within 1/32 above"
	  " what pfprofctl memory --machine computes.",
	  true },
};

/* A target's memory short of keeping each share of its recent pages read back in. */
static void put_short(FILE *out, const struct short_metric *m, const struct target_list *targets,
		      const struct target_total *t, const struct refault_window *w, uint64_t now_s)
{
	const uint64_t page = (uint64_t)sysconf(_SC_PAGESIZE);

	for (size_t q = 0; q < sizeof(shares) / sizeof(shares[0]); q++) {
		fprintf(out, "%s{", m->name);
		prom_put_target_label(out, targets, t->number);
		fprintf(out, ",share=\"%s\"}", shares[q].label);
		prom_put_value(out, refaultwindow_quantile(w, now_s, shares[q].share) * page, false);
	}
}

/* Of the targets with pages read back in the last minutes only: no answer is no zero. */
static void put_shorts(FILE *out, const struct short_metric *m, const struct counters *counts,
		       const struct target_list *targets)
{
	const uint64_t now_s = (uint64_t)time(NULL);
	bool header = false;

	for (size_t i = 0; i < counts->nr_targets; i++) {
		const struct target_total *t = &counts->targets[i];
		const struct refault_window *w = m->machine ? t->machine_recent : t->recent;

		if (!w || !refaultwindow_pages(w, now_s))
			continue;
		prom_put_header_once(out, &header, m->name, "gauge", m->help);
		put_short(out, m, targets, t, w, now_s);
	}
}

void promrefaults_put(FILE *out, const struct counters *counts, const struct target_list *targets)
{
	bool header = false;

	for (size_t i = 0; i < counts->nr_targets; i++) {
		const struct target_total *t = &counts->targets[i];

		if (!t->paged)
			continue;
		prom_put_header_once(out, &header, DISTANCE_METRIC, "histogram",
				     "Pages of a target added with pages read back from swap (a unit"
				     " or cgroup: and of its files read again), by their refault"
				     " distance: the memory beyond what the target had that would"
				     " have kept them in (the pages it sent to swap or evicted"
				     " between their going and their return). Pages whose going"
				     " pfprofd did not see have none and are left out.");
		put_series(out, targets, t);
	}
	for (size_t m = 0; m < sizeof(short_metrics) / sizeof(short_metrics[0]); m++)
		put_shorts(out, &short_metrics[m], counts, targets);
}
