// SPDX-License-Identifier: GPL-2.0
/* pfprofctl add and del: what they say when the targets file or the module refuses. */
#include <errno.h>

#include "add.h"
#include "ctl.h"
#include "targetsfile.h"

int ctl_targets_file_error(const struct ctl *ctl, int err)
{
	ctl_error(err, "updating %s", ctl->config.targets_file);
	if (err == -EACCES || err == -EPERM)
		ctl_hint("run pfprofctl as root to change what pfprofd keeps profiled");
	else if (err == -ENOENT)
		ctl_hint("is pfprof installed? the directory of %s is missing", ctl->config.targets_file);
	return PFPROF_EXIT_FAILED;
}

bool ctl_hint_option_refused(unsigned int options, int err)
{
	if (err == -EOPNOTSUPP && (options & TARGETSFILE_OPT_PAGES)) {
		ctl_hint("--pages needs a kernel with memory cgroups: a swapped page's process is "
			 "its memory map's owner, which they keep");
		return true;
	}
	if (err != -EPERM || !(options & (TARGETSFILE_OPT_LATENCY | TARGETSFILE_OPT_PAGES)))
		return false;
	ctl_hint("--%s is an administrator's: while it is on, %s passes a kernel probe",
		 options & TARGETSFILE_OPT_LATENCY ? "latency" : "pages",
		 options & TARGETSFILE_OPT_LATENCY ? "every fault of the machine" :
		 "reclaim and every swap-in fault of the machine");
	return true;
}
