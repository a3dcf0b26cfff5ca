/* SPDX-License-Identifier: GPL-2.0 */
/* Checks of struct counters shared by the counters and counterfile tests. */
#ifndef PFPROF_EXPECT_COUNTERS_H
#define PFPROF_EXPECT_COUNTERS_H

#include "counters.h"
#include "unit.h"

/* The sampler's counters, over every module load, are ns and runs. */
static inline void expect_sampler(const struct counters *m, uint64_t ns, uint64_t runs,
				  const char *when)
{
	uint64_t got_ns = load_counter_total(&m->sampler_ns);
	uint64_t got_runs = load_counter_total(&m->sampler_runs);

	expect(got_ns == ns && got_runs == runs, "%s: %llu ns, %llu runs; want %llu, %llu", when,
	       (unsigned long long)got_ns, (unsigned long long)got_runs, (unsigned long long)ns,
	       (unsigned long long)runs);
}

#endif /* PFPROF_EXPECT_COUNTERS_H */
