/* SPDX-License-Identifier: GPL-2.0 */
/* pfprofd's periodic timers on sd_event (one-shot sources re-armed each time). */
#ifndef PFPROF_TIMER_H
#define PFPROF_TIMER_H

#include <stdint.h>
#include <systemd/sd-event.h>

/*
 * Re-arms the CLOCK_MONOTONIC timer s, which was due at due_usec, on its
 * beat: at due_usec + period_usec, so that a pass that waited or took long
 * does not stretch the period; after a stall of a whole period, a period
 * from now. 0 or the sd_event error.
 */
int timer_next_beat(sd_event_source *s, uint64_t due_usec, uint64_t period_usec);

#endif /* PFPROF_TIMER_H */
