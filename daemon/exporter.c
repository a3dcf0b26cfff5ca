// SPDX-License-Identifier: GPL-2.0
/*
 * pfprofd's Prometheus export: every prometheus_interval, the metrics the
 * collector counted go to node_exporter's textfile directory (promfile.h).
 * While prometheus_dir is empty or does not exist nothing is written, nor
 * counted; the directory is looked for again every interval. (Under
 * pfprofd.service a directory that appears later is still read-only for
 * pfprofd: the unit makes it writable at start.)
 */
#include <errno.h>
#include <string.h>
#include <sys/stat.h>

#include "daemon.h"
#include "daemon_log.h"
#include "procstatus.h"
#include "promfile.h"

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

/* What the device, the registered processes and memory pressure say now. */
static void update(struct daemon *d, const struct pidlist *registered)
{
	uint64_t runs, ns;

	mp3ring_sampler_cost(&d->collector.ring, &runs, &ns);
	metrics_set_sampler(&d->metrics, d->collector.ring.load_id, ns, runs);
	/* The loop's last reading of memory pressure, if it has one. */
	metrics_set_psi(&d->metrics, d->psi.read_ns && !d->psi.err ? &d->psi.value : NULL);
	if (metrics_select(&d->metrics, registered, d->config.prometheus_max_processes))
		dlog(LOG_WARNING, "metrics: %s; exited processes are kept until the next write",
		     strerror(ENOMEM));
}

/*
 * Whether the metrics go anywhere: prometheus_dir is set and is a directory.
 * The collector counts for them only then.
 */
static bool exporting(struct daemon *d)
{
	const char *dir = d->config.prometheus_dir;
	struct stat st;
	int err = 0;

	if (!dir[0])
		d->metrics_error = 0;
	else if (stat(dir, &st))
		err = -errno;
	else if (!S_ISDIR(st.st_mode))
		err = -ENOTDIR;
	if (err)
		report(d, err, false);
	collector_set_metrics(&d->collector, dir[0] && !err ? &d->metrics : NULL);
	return dir[0] && !err;
}

void exporter_init(struct daemon *d)
{
	const char *dir = d->config.prometheus_dir;
	int err;

	if (!exporting(d))
		return;
	err = promfile_seed(dir, &d->metrics);
	if (!err)
		dlog(LOG_INFO, "%s/%s: counting on from its counters", dir, PROMFILE_NAME);
	else if (err != -ENOENT)
		dlog(LOG_WARNING, "reading %s/%s: %s; counters start from 0", dir, PROMFILE_NAME,
		     strerror(-err));
}

void exporter_write(struct daemon *d)
{
	struct pidlist registered;
	int err;

	if (!exporting(d))
		return;
	err = procstatus_list(d->config.status_file, &registered);
	if (err) {
		report(d, err, true);
		return;
	}
	update(d, &registered);
	pidlist_free(&registered);
	report(d, promfile_write(d->config.prometheus_dir, &d->metrics), false);
}

static uint64_t interval_usec(const struct daemon *d)
{
	return d->config.prometheus_interval_s * 1000000ULL;
}

/* usec: when this pass was due. */
static int on_timer(sd_event_source *s, uint64_t usec, void *userdata)
{
	struct daemon *d = userdata;
	/* The interval is read again each time: a reload may have changed it. */
	uint64_t now, next = usec + interval_usec(d);

	exporter_write(d);
	/*
	 * On the interval's beat, so that a pass that waited or took long does
	 * not stretch the period; after a stall of a whole interval, from now.
	 */
	sd_event_now(d->loop, CLOCK_MONOTONIC, &now);
	if (next <= now)
		next = now + interval_usec(d);
	sd_event_source_set_time(s, next);
	return sd_event_source_set_enabled(s, SD_EVENT_ONESHOT);
}

int exporter_add_timer(struct daemon *d)
{
	return sd_event_add_time_relative(d->loop, &d->metrics_timer, CLOCK_MONOTONIC,
					  interval_usec(d), 0, on_timer, d);
}
