/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The kernel's delay accounting (kernel.task_delayacct), which the stall
 * times of mp3.h's version 7 need, turned on for pfprofd and off again only
 * if pfprofd turned it on: someone else (an administrator, the boot
 * parameter delayacct, iotop's user) may want it on. A marker file records
 * that pfprofd turned it on; it lives in /run (the runtime directory), so
 * that it is gone after a reboot, as the sysctl's value is. The paths are
 * parameters so that the unit tests can use plain files.
 */
#ifndef PFPROF_DELAYACCT_H
#define PFPROF_DELAYACCT_H

/* The sysctl is stalls.h's DELAYACCT_SYSCTL, read with its delayacct_read(). */
#include "stalls.h"

/* In runtime_dir. */
#define DELAYACCT_MARKER "delayacct"

enum delayacct_outcome {
	DELAYACCT_TURNED_ON,	/* it was off: on now, and the marker made */
	DELAYACCT_WAS_ON,	/* on, and not by pfprofd: left as it is */
	DELAYACCT_STILL_OURS,	/* the marker of an earlier start (a crash): on */
	DELAYACCT_TURNED_OFF,	/* off again, the marker removed */
	DELAYACCT_NOT_OURS,	/* no marker: left as it is */
};

/*
 * Turns delay accounting on (sysctl: DELAYACCT_SYSCTL, or a test's file) if
 * it is off, and makes the marker first. An enum delayacct_outcome with
 * *failed NULL, or -errno with *failed set to the path concerned; a failure
 * leaves no marker but an earlier one.
 */
int delayacct_start(const char *sysctl, const char *marker, const char **failed);

/*
 * If the marker exists, turns delay accounting off and removes the marker.
 * An enum delayacct_outcome with *failed NULL, or -errno with *failed set
 * to the path concerned.
 */
int delayacct_stop(const char *sysctl, const char *marker, const char **failed);

#endif /* PFPROF_DELAYACCT_H */
