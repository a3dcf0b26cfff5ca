// SPDX-License-Identifier: GPL-2.0
/* pfprofctl: what its commands share: messages and hints, a PID, a picture's format, bytes. */
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "ctl.h"

void ctl_error(int err, const char *fmt, ...)
{
	va_list ap;

	fputs("pfprofctl: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	if (err)
		fprintf(stderr, ": %s", strerror(-err));
	fputc('\n', stderr);
}

void ctl_hint(const char *fmt, ...)
{
	va_list ap;

	fputs("pfprofctl: hint: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

int ctl_usage_error(const struct ctl_command *cmd, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "pfprofctl %s: ", cmd->name);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\nTry 'pfprofctl %s --help' for more information.\n", cmd->name);
	return PFPROF_EXIT_USAGE;
}

int ctl_targets_file_error(const struct ctl *ctl, int err)
{
	ctl_error(err, "updating %s", ctl->config.targets_file);
	if (err == -EACCES || err == -EPERM)
		ctl_hint("run pfprofctl as root to change what pfprofd keeps profiled");
	else if (err == -ENOENT)
		ctl_hint("is pfprof installed? the directory of %s is missing", ctl->config.targets_file);
	return PFPROF_EXIT_FAILED;
}

bool ctl_hint_latency_refused(unsigned int options, int err)
{
	if (err != -EPERM || !(options & TARGETSFILE_OPT_LATENCY))
		return false;
	ctl_hint("--latency is an administrator's: while it is on, every fault of the machine "
		 "passes a kernel probe");
	return true;
}

enum ctl_picture ctl_picture_of(const char *path)
{
	const char *dot = strrchr(path, '.');

	if (dot && !strcasecmp(dot, ".png"))
		return CTL_PICTURE_PNG;
	if (dot && !strcasecmp(dot, ".svg"))
		return CTL_PICTURE_SVG;
	return CTL_PICTURE_OTHER;
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
