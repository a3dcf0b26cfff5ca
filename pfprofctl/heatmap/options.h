/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pfprofctl heatmap's options, indexed as ctl_heatmap_command's table
 * (command.c) lists them: what the parts it runs read of a call.
 */
#ifndef PFPROF_HEATMAP_OPTIONS_H
#define PFPROF_HEATMAP_OPTIONS_H

enum { OPT_RECORD, OPT_SECONDS, OPT_OUTPUT, OPT_TAKE_DAMON, OPT_WATCH, OPT_DELAY, OPT_TREE,
       OPT_UNIT, OPT_LOG, OPT_JSON };

#endif /* PFPROF_HEATMAP_OPTIONS_H */
