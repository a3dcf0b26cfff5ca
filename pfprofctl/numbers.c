// SPDX-License-Identifier: GPL-2.0
/* pfprofctl: numbers as people type and read them: a PID, a size in bytes, a time. */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

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

double ctl_pages_mib(uint64_t pages)
{
	return (double)pages * (double)sysconf(_SC_PAGESIZE) / (1 << 20);
}

void ctl_format_utc(char *buf, size_t size, uint64_t ns)
{
	time_t t = (time_t)(ns / 1000000000);
	struct tm tm;

	if (!gmtime_r(&t, &tm) || !strftime(buf, size, "%Y-%m-%d %H:%M:%S", &tm))
		snprintf(buf, size, "?");
}

void ctl_format_age(char *buf, size_t size, uint64_t ns)
{
	double s = (double)ns / 1e9;

	if (s < 1)
		snprintf(buf, size, "%.0f ms", s * 1e3);
	else if (s < 120)
		snprintf(buf, size, "%.1f s", s);
	else if (s < 7200)
		snprintf(buf, size, "%.1f min", s / 60);
	else
		snprintf(buf, size, "%.1f h", s / 3600);
}
