/* SPDX-License-Identifier: GPL-2.0 */
#ifndef PFPROF_WAITS_H
#define PFPROF_WAITS_H

/*
 * waits PAGES ROUNDS PIPE_LOOPS: what the kernel's delay accounting costs
 * the waits it times, under whatever kernel.task_delayacct is now (the
 * guest script switches it between runs): ROUNDS times, PAGES anonymous
 * pages pushed out to swap (MADV_PAGEOUT) and touched again, each touch a
 * swap-in the kernel times; then PIPE_LOOPS round trips through pipes with
 * a child, sleeps it does not time. Prints the CPU time per swap-in and the
 * time per round trip; needs swap.
 */
int cmd_waits(unsigned long pages, unsigned int rounds, unsigned long pipe_loops);

#endif
