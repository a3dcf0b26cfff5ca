// SPDX-License-Identifier: GPL-2.0
/* pfprofctl: what every command says on stderr: errors, hints, a misused command. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

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
