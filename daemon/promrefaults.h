/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The targets' refault distances for promfile.c: per target added with
 * pages, a histogram of its pages read back from swap by how much more
 * memory would have kept them in (refaultdist.h), and what that memory is
 * for half, 90 % and 99 % of those of the last 10 minutes
 * (refaultwindow.h).
 */
#ifndef PFPROF_PROMREFAULTS_H
#define PFPROF_PROMREFAULTS_H

#include <stdio.h>

#include "counters.h"
#include "targets.h"

void promrefaults_put(FILE *out, const struct counters *counts, const struct target_list *targets);

#endif /* PFPROF_PROMREFAULTS_H */
