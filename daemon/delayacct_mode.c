// SPDX-License-Identifier: GPL-2.0
#include "delayacct_mode.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "daemon_log.h"
#include "delayacct.h"
#include "pfprof.h"
#include "privfile.h"
#include "state.h"

/* The marker's path in config's runtime_dir; false (said) if it does not fit. */
static bool marker_path(const struct pfprof_config *config, char path[PATH_MAX])
{
	if (snprintf(path, PATH_MAX, "%s/" DELAYACCT_MARKER, config->runtime_dir) < PATH_MAX)
		return true;
	dlog(LOG_ERR, "runtime directory (runtime_dir) %s: %s", config->runtime_dir,
	     strerror(ENAMETOOLONG));
	return false;
}

/* What err from path means here, beyond strerror(). */
static const char *hint(int err, const char *path)
{
	if (err == -ENOENT && !strcmp(path, DELAYACCT_SYSCTL))
		return " (this kernel has no delay accounting, CONFIG_TASK_DELAY_ACCT)";
	if (err == -EPERM || err == -EACCES || err == -EROFS)
		return " (it takes root with CAP_SYS_ADMIN, outside pfprofd.service's sandbox)";
	if (err == -EPROTO)
		return " (neither 0 nor 1)";
	return "";
}

/*
 * Says what delayacct_start() or delayacct_stop() did, outcome and failed as
 * it returned them; 0, or outcome's -errno.
 */
static int report(int outcome, const char *marker, const char *failed, bool start)
{
	if (failed) {
		dlog(LOG_ERR, "turning delay accounting %s: %s: %s%s", start ? "on" : "off", failed,
		     strerror(-outcome), hint(outcome, failed));
		return outcome;
	}
	switch (outcome) {
	case DELAYACCT_TURNED_ON:
		dlog(LOG_NOTICE, "turned delay accounting on (%s) for the stall times; "
		     "it is turned off again when pfprofd stops", DELAYACCT_SYSCTL);
		break;
	case DELAYACCT_WAS_ON:
		dlog(LOG_INFO, "delay accounting is on already (%s): it stays on when pfprofd stops",
		     DELAYACCT_SYSCTL);
		break;
	case DELAYACCT_STILL_OURS:
		dlog(LOG_INFO, "delay accounting is on (%s), as an earlier pfprofd left it (%s): "
		     "it is turned off when pfprofd stops", DELAYACCT_SYSCTL, marker);
		break;
	case DELAYACCT_TURNED_OFF:
		dlog(LOG_NOTICE, "turned delay accounting off again (%s), as it was before pfprofd",
		     DELAYACCT_SYSCTL);
		break;
	case DELAYACCT_NOT_OURS:
		dlog(LOG_INFO, "delay accounting left as it is (%s): pfprofd did not turn it on",
		     DELAYACCT_SYSCTL);
		break;
	}
	return 0;
}

/* A pfprofd that runs with config's runtime_dir turns it off itself when it stops. */
static bool other_daemon_runs(const struct pfprof_config *config)
{
	pid_t pid;

	if (state_daemon_pid(config->runtime_dir, &pid))
		return false;
	dlog(LOG_NOTICE, "pfprofd (PID %d) still runs: delay accounting left as it is (%s)",
	     (int)pid, DELAYACCT_SYSCTL);
	return true;
}

int delayacct_command(const struct pfprof_config *config, bool start)
{
	const char *failed;
	char marker[PATH_MAX];
	int err;

	if (start && !config->delay_accounting) {
		dlog(LOG_INFO, "delay_accounting = leave: %s left as it is", DELAYACCT_SYSCTL);
		return PFPROF_EXIT_OK;
	}
	if (!marker_path(config, marker))
		return PFPROF_EXIT_FAILED;
	if (!start && other_daemon_runs(config))
		return PFPROF_EXIT_OK;
	/* By hand the runtime directory may not exist yet; pfprofd.service makes it. */
	err = start ? private_mkdir(config->runtime_dir) : 0;
	if (err && err != -EEXIST) {
		dlog(LOG_ERR, "runtime directory (runtime_dir) %s: cannot create it: %s",
		     config->runtime_dir, strerror(-err));
		return PFPROF_EXIT_FAILED;
	}
	err = start ? delayacct_start(DELAYACCT_SYSCTL, marker, &failed) :
		      delayacct_stop(DELAYACCT_SYSCTL, marker, &failed);
	return report(err, marker, failed, start) ? PFPROF_EXIT_FAILED : PFPROF_EXIT_OK;
}

bool delayacct_daemon_start(const struct pfprof_config *config)
{
	const char *failed;
	char marker[PATH_MAX];
	int err;

	if (!config->delay_accounting || !marker_path(config, marker))
		return false;
	/* Under pfprofd.service it may not (user pfprof, /proc/sys read-only): the unit does it. */
	if (access(DELAYACCT_SYSCTL, W_OK)) {
		err = -errno;
		if (delayacct_read(DELAYACCT_SYSCTL) == 1)
			return false;
		dlog(LOG_WARNING, "delay accounting is not on and pfprofd cannot turn it on: %s: %s%s; "
		     "the stall times are unknown until it is on", DELAYACCT_SYSCTL,
		     strerror(-err), hint(err, DELAYACCT_SYSCTL));
		return false;
	}
	err = delayacct_start(DELAYACCT_SYSCTL, marker, &failed);
	return !report(err, marker, failed, true);
}

void delayacct_daemon_exit(const struct pfprof_config *config)
{
	const char *failed;
	char marker[PATH_MAX];
	int err;

	if (!marker_path(config, marker))
		return;
	err = delayacct_stop(DELAYACCT_SYSCTL, marker, &failed);
	report(err, marker, failed, false);
}
