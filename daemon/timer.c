// SPDX-License-Identifier: GPL-2.0
#include "timer.h"

#include <time.h>

int timer_next_beat(sd_event_source *s, uint64_t due_usec, uint64_t period_usec)
{
	uint64_t now, next = due_usec + period_usec;
	int err = sd_event_now(sd_event_source_get_event(s), CLOCK_MONOTONIC, &now);

	if (err < 0)
		return err;
	if (next <= now)
		next = now + period_usec;
	err = sd_event_source_set_time(s, next);
	return err < 0 ? err : sd_event_source_set_enabled(s, SD_EVENT_ONESHOT);
}
