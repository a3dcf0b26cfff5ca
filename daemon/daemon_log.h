/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pfprofd's messages: to the journal when systemd runs it (or once it has
 * detached), to stderr otherwise. Priorities are syslog's (LOG_ERR, ...).
 */
#ifndef PFPROF_DAEMON_LOG_H
#define PFPROF_DAEMON_LOG_H

#include <stdbool.h>
#include <syslog.h>

void dlog_to_journal(bool journal);

__attribute__((format(printf, 2, 3)))
void dlog(int priority, const char *fmt, ...);

#endif /* PFPROF_DAEMON_LOG_H */
