/* SPDX-License-Identifier: GPL-2.0 */
/* Whether the module's probes are armed, as the kernel's kprobes' list says. */
#ifndef PFPROF_KPROBES_H
#define PFPROF_KPROBES_H

#include <stdbool.h>

#define KPROBES_LIST "/sys/kernel/debug/kprobes/list"

/*
 * Whether a probe of type ('k' a kprobe, 'r' a return probe) is on symbol
 * and enabled: 1 or 0, -1 if the list cannot be read (no debugfs);
 * *ftrace: whether it is a kprobe on ftrace.
 */
int kprobe_armed(const char *symbol, char type, bool *ftrace);

/*
 * Waits up to 2 s for the probe to be armed as wanted (the sampler's next
 * tick disarms what nothing asks for any more), and dies if it is not:
 * kprobe_armed()'s answer.
 */
int kprobe_expect(const char *symbol, char type, bool wanted, bool *ftrace);

#endif
