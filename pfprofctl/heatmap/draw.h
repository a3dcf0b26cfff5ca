/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pfprofctl heatmap PID|LOG: a heatmap log drawn by gnuplot into a PNG or
 * SVG, time across and the mapped address ranges up (data.h), with the
 * process's fault rates from pfprofd's log above when it was profiled.
 */
#ifndef PFPROF_HEATMAP_DRAW_H
#define PFPROF_HEATMAP_DRAW_H

#include "ctl.h"

/* Its exit status. */
int heatmap_draw_command(const struct ctl *ctl, const struct ctl_call *call);

#endif /* PFPROF_HEATMAP_DRAW_H */
