/* SPDX-License-Identifier: GPL-2.0 */
#ifndef PFPROF_FAULTLATENCY_H
#define PFPROF_FAULTLATENCY_H

/*
 * latency PAGES ROUNDS none|other|self: what timing faults ("R <pid>
 * latency", module/latency.c) costs a minor fault: ROUNDS times, PAGES
 * fresh anonymous pages mapped, each touched once (a minor fault, THP off)
 * and unmapped; the CPU time of the touches alone, per fault. A child that
 * sleeps is registered in every mode, so that the sampler runs in all
 * three: "none" with it registered plainly (no registration asks for
 * latency: the probe on handle_mm_fault is not armed), "other" with it
 * registered with latency (the probe armed, this process not timed: what
 * every other process of the machine pays), "self" with it registered
 * plainly and this process with latency (its faults timed). Prints whether
 * the probe was armed (from /sys/kernel/debug/kprobes/list, if readable)
 * and, for "self", the faults the module's MP3_RECORD_LATENCY records
 * timed and their mean duration.
 */
int cmd_fault_latency(unsigned long pages, unsigned int rounds, const char *mode);

#endif
