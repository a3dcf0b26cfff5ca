// SPDX-License-Identifier: GPL-2.0
/*
 * pfprofd's Prometheus export: every prometheus_interval, the metrics the
 * collector counted go to node_exporter's textfile directory (promfile.h).
 * Nothing is written while the directory does not exist; it is looked for
 * again at every write. (Under pfprofd.service a directory that appears later
 * is still read-only for pfprofd: the unit makes it writable at start.)
 */
#include <errno.h>
#include <string.h>

#include "daemon.h"
#include "daemon_log.h"
#include "procstatus.h"
#include "promfile.h"

void exporter_init(struct daemon *d)
{
	const char *dir = d->config.prometheus_dir;
	int err;

	collector_set_metrics(&d->collector, &d->metrics);
	if (!dir[0])
		return;
	err = promfile_seed(dir, &d->metrics);
	if (!err)
		dlog(LOG_INFO, "%s/%s: counting on from its counters", dir, PROMFILE_NAME);
	else if (err != -ENOENT)
		dlog(LOG_WARNING, "reading %s/%s: %s; counters start from 0", dir, PROMFILE_NAME,
		     strerror(-err));
}

/*
 * Says once what goes wrong, and once that it works again: with the status
 * file (status_file true) or with the metrics file.
 */
static void report(struct daemon *d, int err, bool status_file)
{
	const char *dir = d->config.prometheus_dir;

	if (err == d->metrics_error)
		return;
	if (err && status_file)
		dlog(LOG_WARNING, "metrics not updated: reading %s: %s", d->config.status_file,
		     strerror(-err));
	else if (err == -ENOENT)
		dlog(LOG_INFO, "prometheus_dir %s does not exist: no metrics written until it does",
		     dir);
	else if (err)
		dlog(LOG_ERR, "writing %s/%s: %s", dir, PROMFILE_NAME, strerror(-err));
	else if (d->metrics_error)
		dlog(LOG_NOTICE, "writing %s/%s again", dir, PROMFILE_NAME);
	d->metrics_error = err;
}

/* What the device and the registered processes say now. */
static void update(struct daemon *d, const struct pidlist *registered)
{
	uint64_t runs, ns;

	mp3ring_sampler_cost(&d->collector.ring, &runs, &ns);
	metrics_set_sampler(&d->metrics, d->collector.ring.load_id, ns, runs);
	if (metrics_select(&d->metrics, registered, d->config.prometheus_max_processes))
		dlog(LOG_WARNING, "metrics: %s; exited processes are kept until the next write",
		     strerror(ENOMEM));
}

void exporter_write(struct daemon *d)
{
	struct pidlist registered;
	int err = procstatus_list(d->config.status_file, &registered);

	if (err) {
		report(d, err, true);
		return;
	}
	update(d, &registered);
	pidlist_free(&registered);
	if (d->config.prometheus_dir[0])
		report(d, promfile_write(d->config.prometheus_dir, &d->metrics), false);
	else
		d->metrics_error = 0;
}

static uint64_t interval_usec(const struct daemon *d)
{
	return d->config.prometheus_interval_s * 1000000ULL;
}

static int on_timer(sd_event_source *s, uint64_t usec, void *userdata)
{
	struct daemon *d = userdata;

	(void)usec;
	exporter_write(d);
	/* Read again each time: a reload may have changed it. */
	sd_event_source_set_time_relative(s, interval_usec(d));
	return sd_event_source_set_enabled(s, SD_EVENT_ONESHOT);
}

int exporter_add_timer(struct daemon *d)
{
	return sd_event_add_time_relative(d->loop, &d->metrics_timer, CLOCK_MONOTONIC,
					  interval_usec(d), 0, on_timer, d);
}
