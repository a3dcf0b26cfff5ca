// SPDX-License-Identifier: GPL-2.0
#include "registrar.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "daemon_log.h"
#include "pidlist.h"
#include "procstatus.h"

static void report_bad_line(void *ctx, const char *file, unsigned int line, const char *message)
{
	(void)ctx;
	dlog(LOG_WARNING, "%s:%u: %s (line ignored)", file, line, message);
}

/* Registers one PID; returns 1 if it is registered now, 0 if not, -ESRCH if gone. */
static int register_pid(const struct pfprof_config *config, pid_t pid)
{
	int err = procstatus_command(config->status_file, 'R', pid);

	switch (err) {
	case 0:
		dlog(LOG_INFO, "profiling PID %d", (int)pid);
		return 1;
	case -EEXIST:
		return 1;
	case -ESRCH:
		return -ESRCH;
	default:
		dlog(LOG_ERR, "cannot register PID %d with %s: %s", (int)pid,
		     config->status_file, strerror(-err));
		return 0;
	}
}

static void drop_dead(const struct pfprof_config *config, const pid_t *dead, size_t count)
{
	int err = pidlist_remove(config->pid_file, dead, count);

	for (size_t i = 0; i < count; i++)
		dlog(LOG_INFO, "PID %d has exited%s %s", (int)dead[i],
		     err ? "; cannot remove it from" : "; removed it from", config->pid_file);
	if (err)
		dlog(LOG_ERR, "updating %s: %s", config->pid_file, strerror(-err));
}

int registrar_sync(const struct pfprof_config *config)
{
	struct pidlist list = { 0 };
	pid_t *dead;
	size_t nr_dead = 0;
	int err, registered = 0;

	err = pidlist_read(config->pid_file, &list, report_bad_line, NULL);
	if (err) {
		dlog(LOG_ERR, "reading %s: %s", config->pid_file, strerror(-err));
		return 0;
	}
	dead = calloc(list.count ? list.count : 1, sizeof(*dead));
	if (!dead) {
		pidlist_free(&list);
		dlog(LOG_ERR, "out of memory");
		return 0;
	}
	for (size_t i = 0; i < list.count; i++) {
		int r = register_pid(config, list.pids[i]);

		if (r == -ESRCH)
			dead[nr_dead++] = list.pids[i];
		else
			registered += r;
	}
	if (nr_dead)
		drop_dead(config, dead, nr_dead);
	free(dead);
	pidlist_free(&list);
	return registered;
}
