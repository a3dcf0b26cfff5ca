/* SPDX-License-Identifier: GPL-2.0 */
/* pfprofctl heatmap --record: DAMON's snapshots of processes into their heatmap logs. */
#ifndef PFPROF_HEATMAP_RECORD_H
#define PFPROF_HEATMAP_RECORD_H

#include "ctl.h"

/* Its exit status; usage errors are said as cmd's. */
int heatmap_record_command(const struct ctl *ctl, const struct ctl_call *call,
			   const struct ctl_command *cmd);

#endif /* PFPROF_HEATMAP_RECORD_H */
