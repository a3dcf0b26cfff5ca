/* SPDX-License-Identifier: GPL-2.0 */
/* pfprofctl add and del: what their files share. */
#ifndef PFPROF_CTL_ADD_H
#define PFPROF_CTL_ADD_H

#include <stdbool.h>

#include "ctl.h"
#include "targets.h"

/*
 * add/del --unit, --cgroup or --comm: the operands are units, cgroups' paths
 * or names; with --comm, user (NULL: none) takes that user's processes alone.
 */
int ctl_change_groups(const struct ctl *ctl, enum target_kind kind, bool add, unsigned int options,
		      const char *user, const struct ctl_call *call);

/*
 * After the module refused an add with options (TARGETSFILE_OPT_*): whether
 * it was for --latency, an administrator's (EPERM), which it then says.
 */
bool ctl_hint_option_refused(unsigned int options, int err);

/* Reports a failure to update the targets file (err is -errno), with a hint; PFPROF_EXIT_FAILED. */
int ctl_targets_file_error(const struct ctl *ctl, int err);

#endif /* PFPROF_CTL_ADD_H */
