// SPDX-License-Identifier: GPL-2.0
/*
 * pfprofctl: that the mp3 module is not there, said the same way by every
 * command, with why and what to do (facts.h, advice.h).
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "advice.h"
#include "ctl.h"
#include "facts.h"

int ctl_module_error(int err, const char *object)
{
	struct module_facts facts;
	struct module_advice advice;

	if (pfprof_module_missing(err)) {
		module_facts_read("", NULL, &facts);
		module_advise(&facts, &advice);
		fprintf(stderr, "pfprofctl: the mp3 module is not loaded\n");
		for (size_t i = 0; i < advice.count; i++)
			fprintf(stderr, "pfprofctl: %s\n", advice.line[i]);
		return PFPROF_EXIT_NO_MODULE;
	}
	ctl_error(err, "%s", object);
	if (err == -EACCES || err == -EPERM)
		ctl_hint("you need more privileges for %s (root, or the group that owns it)",
			 object);
	return PFPROF_EXIT_FAILED;
}

bool ctl_module_missing_note(const struct ctl *ctl, int err, const char *fmt, ...)
{
	va_list ap;

	if (!pfprof_module_missing(err))
		return false;
	fprintf(stderr, "pfprofctl: the mp3 module is not loaded (%s: %s): ",
		ctl->config.status_file, strerror(-err));
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	return true;
}
