/* SPDX-License-Identifier: GPL-2.0 */
/*
 * How long pfprofd's processes and targets waited, for promfile.c: delay
 * accounting's waits where measured, the targets' histograms of fault
 * durations, their cgroups' memory pressure.
 */
#ifndef PFPROF_PROMWAITS_H
#define PFPROF_PROMWAITS_H

#include <stdio.h>

#include "counters.h"
#include "targets.h"

/* How long the faults of the targets whose processes' faults are timed took. */
void promwaits_put_durations(FILE *out, const struct counters *counts,
			     const struct target_list *targets);

/*
 * What the processes and targets waited for: delay accounting's waits where
 * measured, whether they are measured now, the cgroups' PSI. 0 or -ENOMEM.
 */
int promwaits_put(FILE *out, struct counters *counts, const struct target_list *targets);

#endif /* PFPROF_PROMWAITS_H */
