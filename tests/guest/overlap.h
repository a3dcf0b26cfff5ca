/* SPDX-License-Identifier: GPL-2.0 */
#ifndef OVERLAP_H
#define OVERLAP_H

#include <stdbool.h>

/*
 * Starts tracing the outermost calls into mp3's functions (ftrace's
 * function_graph tracer); false, said on stdout in test's name, where the
 * kernel cannot.
 */
bool overlap_start(const char *test);
/*
 * Stops it and prints, in test's name, how many of the calls traced
 * overlapped a call on the other CPU; fails the test unless both CPUs made
 * calls, which the measure needs.
 */
void overlap_report(const char *test);

#endif
