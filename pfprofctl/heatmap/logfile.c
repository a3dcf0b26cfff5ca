// SPDX-License-Identifier: GPL-2.0
#include "logfile.h"

#include <errno.h>
#include <stdio.h>

#include "log.h"

bool heatmap_log_of(const struct ctl *ctl, pid_t pid, char *buf, size_t size)
{
	if (snprintf(buf, size, "%s/heatmap-%d.log", ctl->config.log_dir, (int)pid) < (int)size)
		return true;
	ctl_error(-ENAMETOOLONG, "%s/heatmap-%d.log", ctl->config.log_dir, (int)pid);
	return false;
}

bool heatmap_log_named(const struct ctl *ctl, const char *operand, char *path, size_t size)
{
	pid_t pid;

	if (ctl_parse_pid(operand, &pid))
		return heatmap_log_of(ctl, pid, path, size);
	snprintf(path, size, "%s", operand);
	return true;
}

void heatmap_log_failed(const char *path, int err, unsigned long line)
{
	if (err == -EPROTO && line == 1)
		ctl_error(0, "%s is not a heatmap log: its first line is not '"
			  HEATMAP_LOG_MAGIC "'", path);
	else if (err == -EPROTO)
		ctl_error(0, "%s:%lu: not a line of a heatmap log", path, line);
	else if (err == -ENODATA)
		ctl_error(0, "%s holds no snapshot of mapped regions yet (a recording adds one "
			  "a second)", path);
	else
		ctl_error(err, "reading %s", path);
}
