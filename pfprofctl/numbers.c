// SPDX-License-Identifier: GPL-2.0
/* pfprofctl: numbers as people type and read them: a PID, a size in bytes. */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>

#include "ctl.h"

bool ctl_parse_pid(const char *arg, pid_t *pid)
{
	char *end;
	long v;

	if (*arg < '0' || *arg > '9')
		return false;
	errno = 0;
	v = strtol(arg, &end, 10);
	if (errno || *end || v <= 0 || v > INT_MAX)
		return false;
	*pid = (pid_t)v;
	return true;
}

void ctl_format_bytes(char *buf, size_t size, uint64_t bytes)
{
	static const char *const units[] = { "B", "KiB", "MiB", "GiB", "TiB" };
	double v = (double)bytes;
	unsigned int u = 0;

	while (v >= 1024 && u + 1 < sizeof(units) / sizeof(units[0])) {
		v /= 1024;
		u++;
	}
	/* Two or three digits: a tenth shown only where it is a tenth of a small number. */
	snprintf(buf, size, v < 10 && u ? "%.1f %s" : "%.0f %s", v, units[u]);
}
