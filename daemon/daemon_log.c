// SPDX-License-Identifier: GPL-2.0
#include "daemon_log.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <systemd/sd-journal.h>

/* systemd sets JOURNAL_STREAM when stderr is connected to the journal. */
static bool to_journal;

void dlog_to_journal(bool journal)
{
	to_journal = journal || getenv("JOURNAL_STREAM");
}

void dlog(int priority, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	if (to_journal) {
		sd_journal_printv(priority, fmt, ap);
	} else {
		fputs("pfprofd: ", stderr);
		vfprintf(stderr, fmt, ap);
		fputc('\n', stderr);
	}
	va_end(ap);
}
