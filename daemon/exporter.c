// SPDX-License-Identifier: GPL-2.0
#include "exporter.h"

#include <errno.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "counterfile.h"
#include "daemon_log.h"
#include "procstatus.h"
#include "promfile.h"
#include "timer.h"

/*
 * Says once what goes wrong, and once that it works again: with the module's
 * status file (status_file true) or with the metrics file.
 */
static void report(struct exporter *x, int err, bool status_file)
{
	const char *dir = x->config->prometheus_dir;

	if (err == x->error)
		return;
	if (err && status_file)
		dlog(LOG_WARNING, "metrics not updated: reading %s: %s", x->config->status_file,
		     strerror(-err));
	else if (err == -ENOENT)
		dlog(LOG_INFO, "prometheus_dir %s does not exist: no metrics written until it does",
		     dir);
	else if (err)
		dlog(LOG_ERR, "writing %s/%s: %s", dir, PROMFILE_NAME, strerror(-err));
	else	/* err is 0 and x->error was not */
		dlog(LOG_NOTICE, "writing %s/%s again", dir, PROMFILE_NAME);
	x->error = err;
}

/* The same for the saved counters. */
static void report_save(struct exporter *x, int err)
{
	const char *dir = x->config->state_dir;

	if (err == x->save_error)
		return;
	if (err)
		dlog(LOG_WARNING, "saving the counters in %s/%s: %s; after a restart they start "
		     "from 0", dir, COUNTERFILE_NAME, strerror(-err));
	else	/* err is 0 and x->save_error was not */
		dlog(LOG_NOTICE, "saving the counters in %s/%s again", dir, COUNTERFILE_NAME);
	x->save_error = err;
}

/* 0 when prometheus_dir is a directory, else -errno. */
static int check_dir(const char *dir)
{
	struct stat st;

	if (stat(dir, &st))
		return -errno;
	return S_ISDIR(st.st_mode) ? 0 : -ENOTDIR;
}

/* Which processes have series, among those the module samples now; -errno of the status file. */
static int select_series(struct exporter *x)
{
	struct pidlist registered;
	int err = procstatus_list(x->config->status_file, &registered);

	if (err) {
		report(x, err, true);
		return err;
	}
	err = counters_select_series(x->counters, &registered,
				     x->config->prometheus_max_processes);
	if (err)
		dlog(LOG_WARNING, "metrics: %s; the series stay as they were", strerror(-err));
	pidlist_free(&registered);
	return 0;
}

/* Writes the metrics file, then saves the counters it shows; durable: at the stop. */
static void write_metrics(struct exporter *x, bool durable)
{
	const char *dir = x->config->prometheus_dir;
	int err;

	if (!dir[0]) {
		x->error = 0;
		return;
	}
	err = check_dir(dir);
	if (!err && select_series(x))
		return;
	if (!err)
		err = promfile_write(dir, x->counters, x->targets, psi_cache_value(x->psi));
	/* After the write: the last counts of a target that is gone were shown once. */
	if (!err)
		counters_forget_targets(x->counters, x->targets);
	report(x, err, false);
	if (!err)
		report_save(x, counterfile_save(x->config->state_dir, x->counters, durable));
}

static uint64_t interval_usec(const struct exporter *x)
{
	return x->config->prometheus_interval_s * 1000000ULL;
}

/* due_usec: when this pass was due. */
static int on_timer(sd_event_source *s, uint64_t due_usec, void *userdata)
{
	struct exporter *x = userdata;

	write_metrics(x, false);
	/* The interval is read again each time: a reload may have changed it. */
	return timer_next_beat(s, due_usec, interval_usec(x));
}

int exporter_start(struct exporter *x, sd_event *loop, const struct pfprof_config *config,
		   struct counters *counters, const struct psi_cache *psi,
		   const struct target_list *targets)
{
	int err;

	*x = (struct exporter){ .config = config, .counters = counters, .psi = psi,
				.targets = targets };
	err = counterfile_load(config->state_dir, counters);
	if (!err)
		dlog(LOG_INFO, "%s/%s: counting on from its counters", config->state_dir,
		     COUNTERFILE_NAME);
	else if (err != -ENOENT)
		dlog(LOG_WARNING, "reading %s/%s: %s; counters start from 0", config->state_dir,
		     COUNTERFILE_NAME, strerror(-err));
	return sd_event_add_time_relative(loop, &x->timer, CLOCK_MONOTONIC, interval_usec(x), 0,
					  on_timer, x);
}

void exporter_stop(struct exporter *x)
{
	write_metrics(x, true);
	x->timer = sd_event_source_disable_unref(x->timer);
}
