/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pfprofd's targets file: read once each time it changes (inotify on its
 * directory, as editors and pfprofctl replace it) and at a reload, into
 * the daemon's list, which is applied: processes and trees registered
 * (registrar.h), the groups that came followed and those that went dropped
 * (groupsync.h); the metrics are labelled by it (exporter.h).
 */
#ifndef PFPROF_TARGETSYNC_H
#define PFPROF_TARGETSYNC_H

#include "daemon.h"

/* Reads the targets file and applies what changed; one that cannot be read changes nothing. */
void targets_sync(struct daemon *d);

/* Watches the targets file's directory (again, after a reload may have moved it). */
void targets_watch(struct daemon *d);

#endif /* PFPROF_TARGETSYNC_H */
