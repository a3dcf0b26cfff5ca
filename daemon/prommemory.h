/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The cgroups of the units and cgroups added with pages, for promfile.c:
 * what pfprofd read of each last (groupmemory.h), labelled by target as
 * pfprof's other series, so that a rule can join a target's swap traffic
 * and the memory it is short of with its limit and its memory pressure.
 */
#ifndef PFPROF_PROMMEMORY_H
#define PFPROF_PROMMEMORY_H

#include <stdio.h>

#include "counters.h"
#include "targets.h"

void prommemory_put(FILE *out, const struct counters *counts, const struct target_list *targets);

#endif /* PFPROF_PROMMEMORY_H */
