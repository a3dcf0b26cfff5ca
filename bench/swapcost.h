/* SPDX-License-Identifier: GPL-2.0 */
#ifndef PFPROF_SWAPCOST_H
#define PFPROF_SWAPCOST_H

/*
 * swap PAGES ROUNDS none|other|self|bpftrace: what the page trace ("R <pid> pages",
 * module/pages.c) costs a page sent to swap and a swap-in: ROUNDS times,
 * PAGES anonymous pages pushed out (MADV_PAGEOUT, reclaimed in this
 * process) and touched again; the CPU time of each, per page. A child that
 * sleeps is registered in every mode, so that the sampler runs in all
 * three: "none" with it registered plainly (no registration asks for
 * pages: the hooks are not armed), "other" with it registered with pages
 * (the hooks armed, this process not traced: what every other process of
 * the machine pays), "self" with it registered plainly and this process
 * with pages; "bpftrace" as "none" with bpftrace tracing this process
 * with the same hooks (an event line per page out and per swap-in, with its
 * stall) instead. Prints whether the module's hooks were armed (the
 * kprobes' list, if readable) and, for "self" and "bpftrace", the events
 * traced of this process against the kernel's counts, those dropped, and
 * bpftrace's own CPU time per event; and the sampler's ticks and their time
 * meanwhile (what the module's ticks spent turning events into records).
 */
int cmd_swap_cost(unsigned long pages, unsigned int rounds, const char *mode);

#endif
