// SPDX-License-Identifier: GPL-2.0
/*
 * pfprofd's event loop, one sd_event: the device (poll() wakes it at a
 * sample after a quiet spell; while samples keep coming it is left
 * unwatched and the batch timer writes them once per write_interval),
 * signals, the targets file's directory (targetsync.h), a retry timer while the
 * logs cannot be written and a status timer. The metrics exporter
 * (exporter.h) and the groups' cgroup watches (groupsync.h) add their own
 * sources to the same loop.
 */
#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <systemd/sd-daemon.h>

#include "daemon.h"
#include "daemon_log.h"
#include "pfprof.h"
#include "procstatus.h"
#include "psi.h"
#include "settings.h"
#include "state.h"
#include "targetsync.h"

#define RETRY_USEC 1000000ULL		/* retrying a log that cannot be written */
/*
 * Refreshing STATUS=, the state file and the units' cgroups. Every 2 s it
 * cost a sixth of pfprofd's CPU at 20 Hz (0.124 % of a guest's CPU against
 * 0.102 % every 5 s); a status says how old it is.
 */
#define STATUS_USEC 5000000ULL

static uint64_t wall_seconds(void)
{
	return (uint64_t)time(NULL);
}

/*
 * A source that cannot be armed or disarmed leaves pfprofd deaf or spinning:
 * it stops instead, and systemd starts it again (Restart=on-failure).
 */
static void check_source(struct daemon *d, int err, const char *what)
{
	if (err >= 0)
		return;
	dlog(LOG_ERR, "event loop: %s: %s; stopping", what, strerror(-err));
	sd_event_exit(d->loop, err);
}

/* Lines of the logs waiting for the disk. */
static size_t queued_lines(const struct daemon *d)
{
	size_t n = 0;

	for (int k = 0; k < LOG_KINDS; k++)
		n += logwriter_queued(d->logs[k]);
	return n;
}

static void notify_status(struct daemon *d)
{
	struct pfprof_state st = {
		.pid = getpid(),
		.load_id = d->collector.ring.load_id,
		.head = mp3ring_head(&d->collector.ring),
		.logged = d->samples_written,
		.missed = d->collector.missed,
		.queued = queued_lines(d),
		.updated_s = wall_seconds(),
	};
	struct pidlist procs;
	int err = procstatus_list(d->config.status_file, &procs);

	if (err)
		procs.count = 0;
	snprintf(st.log_file, sizeof(st.log_file), "%s", logwriter_path(d->logs[LOGKIND_SAMPLES]));
	if (d->log_error)
		snprintf(st.log_error, sizeof(st.log_error), "%s", strerror(-d->log_error));
	err = state_write(d->config.runtime_dir, &st);
	if (err)
		dlog(LOG_WARNING, "writing the state in %s: %s", d->config.runtime_dir, strerror(-err));
	sd_notifyf(0, "STATUS=%zu processes; %" PRIu64 " samples logged, %" PRIu64
		   " missed; %s%s%s", procs.count, st.logged, st.missed,
		   st.log_file, d->log_error ? ": " : "", st.log_error);
	pidlist_free(&procs);
}

static void become_ready(struct daemon *d)
{
	if (d->ready)
		return;
	d->ready = true;
	dlog(LOG_INFO, "logging to %s", logwriter_path(d->logs[LOGKIND_SAMPLES]));
	sd_notify(0, "READY=1");
	notify_status(d);
}

static void arm_retry(struct daemon *d)
{
	int err = sd_event_source_set_time_relative(d->retry, RETRY_USEC);

	if (err >= 0)
		err = sd_event_source_set_enabled(d->retry, SD_EVENT_ONESHOT);
	check_source(d, err, "arming the retry timer");
}

/* Counts the sample lines that reached the disk, for the state file and the metrics. */
static void count_written(struct daemon *d)
{
	uint64_t n = logwriter_take_samples_written(d->logs[LOGKIND_SAMPLES]);

	d->samples_written += n;
	d->counters.samples_written += n;
}

/*
 * Writes what is queued, the memory, pages, faults and per-process lines first: after a
 * crash the samples log never holds a sample whose processes' lines are
 * missing. Failures are reported once and retried.
 */
static void flush_log(struct daemon *d)
{
	static const enum log_kind order[] = { LOGKIND_MEMORY, LOGKIND_PAGES, LOGKIND_FAULTS,
						LOGKIND_PROCS, LOGKIND_SAMPLES };
	struct logwriter *failed = NULL;
	int err = 0;

	for (size_t i = 0; !err && i < sizeof(order) / sizeof(order[0]); i++) {
		failed = d->logs[order[i]];
		err = logwriter_flush(failed, wall_seconds());
	}
	count_written(d);
	if (err) {
		if (err != d->log_error)
			dlog(LOG_ERR, "writing %s: %s; %zu lines held, retrying every second",
			     logwriter_path(failed), strerror(-err), queued_lines(d));
		d->log_error = err;
		arm_retry(d);
		return;
	}
	if (d->log_error)
		dlog(LOG_NOTICE, "writing the logs in %s again", d->config.log_dir);
	d->log_error = 0;
	become_ready(d);
}

/*
 * Reads memory pressure for the sample lines, at most every 2 s: when a
 * batch is written, so that it costs no wakeup of its own. Without PSI the
 * columns stay "-", after one notice.
 */
static void refresh_psi(struct daemon *d, uint64_t now)
{
	int err;

	if (d->psi_missing || !psi_cache_refresh(&d->psi, PSI_MEMORY_PATH, now * 1000))
		return;
	err = d->psi.err;
	if (err == -ENOENT || err == -EOPNOTSUPP) {
		dlog(LOG_NOTICE, "no memory pressure information (%s: %s): its log columns stay '-'",
		     PSI_MEMORY_PATH, strerror(-err));
		d->psi_missing = true;
	} else if (err) {
		dlog(LOG_WARNING, "reading %s: %s", PSI_MEMORY_PATH, strerror(-err));
	}
}

/*
 * STATUS=, the state file and a look for units started where no watch saw
 * them (and inotify's dropped events), every STATUS_USEC, if due at now.
 * While samples come a batch's wakeup does it, a little early, and pushes
 * the status timer on: that fires only when pfprofd would not wake otherwise.
 */
static void refresh_status(struct daemon *d, uint64_t now)
{
	int err;

	if (now < d->next_status_usec)
		return;
	notify_status(d);
	groups_sync(&d->groups);
	d->next_status_usec = now + STATUS_USEC;
	err = sd_event_source_set_time(d->status, d->next_status_usec);
	if (err >= 0)
		err = sd_event_source_set_enabled(d->status, SD_EVENT_ONESHOT);
	check_source(d, err, "the status timer");
}

/* Queues what the ring holds and writes it; a full queue is written out and refilled. */
static void drain_and_write(struct daemon *d, uint64_t now)
{
	uint64_t head = mp3ring_head(&d->collector.ring);

	refresh_psi(d, now);
	groupmemory_log(&d->groupmemory, &d->targets, &d->counters, d->logs[LOGKIND_MEMORY],
			head ? head - 1 : 0, now);
	do {
		collector_drain(&d->collector);
		/* While the log fails, the retry timer writes, not every sample. */
		if (!d->log_error)
			flush_log(d);
	} while (!d->log_error && collector_behind(&d->collector));
}

/*
 * Drains the ring into the log; returns whether there was anything new. The
 * next batch is due after write_interval, or sooner when the ring would
 * overflow before that (thousands of processes fill the records' ring in
 * less than a second).
 */
static bool write_samples(struct daemon *d)
{
	uint64_t before = d->collector.queued + d->collector.missed, now, wait_usec, safe_usec;

	sd_event_now(d->loop, CLOCK_MONOTONIC, &now);
	drain_and_write(d, now);
	sd_event_now(d->loop, CLOCK_MONOTONIC, &now);
	wait_usec = d->config.write_interval_s * 1000000ULL;
	safe_usec = collector_safe_wait_usec(&d->collector);
	d->next_write_usec = now + (safe_usec < wait_usec ? safe_usec : wait_usec);
	/* Due before the next batch: done now rather than at a wakeup of its own. */
	refresh_status(d, d->next_write_usec);
	return d->collector.queued + d->collector.missed != before;
}

/*
 * A sample arrived. After a quiet spell it is written at once; while samples
 * keep coming they are written once per write_interval, by the batch timer,
 * with the device left unwatched meanwhile: one wakeup per interval rather
 * than one per sample.
 */
static void sample_arrived(struct daemon *d)
{
	uint64_t now;
	int err;

	sd_event_now(d->loop, CLOCK_MONOTONIC, &now);
	if (now >= d->next_write_usec) {
		write_samples(d);
		return;
	}
	if ((err = sd_event_source_set_enabled(d->samples, SD_EVENT_OFF)) >= 0 &&
	    (err = sd_event_source_set_time(d->batch, d->next_write_usec)) >= 0)
		err = sd_event_source_set_enabled(d->batch, SD_EVENT_ONESHOT);
	check_source(d, err, "gathering a batch");
}

static int on_sample(sd_event_source *s, int fd, uint32_t revents, void *userdata)
{
	(void)s;
	(void)fd;
	(void)revents;
	sample_arrived(userdata);
	return 0;
}

static int on_batch_timer(sd_event_source *s, uint64_t usec, void *userdata)
{
	struct daemon *d = userdata;
	int err;

	(void)usec;
	/* Still busy: the next batch too is written by this timer. */
	if (write_samples(d) && d->config.write_interval_s) {
		err = sd_event_source_set_time(s, d->next_write_usec);
		if (err >= 0)
			err = sd_event_source_set_enabled(s, SD_EVENT_ONESHOT);
	} else {
		err = sd_event_source_set_enabled(d->samples, SD_EVENT_ON);
	}
	check_source(d, err, "the next batch");
	return 0;
}

static int on_retry(sd_event_source *s, uint64_t usec, void *userdata)
{
	struct daemon *d = userdata;

	(void)s;
	(void)usec;
	flush_log(d);
	/* Samples left in the ring while the queue was full. */
	if (!d->log_error)
		sample_arrived(d);
	return 0;
}

static int on_status_timer(sd_event_source *s, uint64_t usec, void *userdata)
{
	(void)s;
	refresh_status(userdata, usec);
	return 0;
}

static bool log_settings_differ(const struct pfprof_config *a, const struct pfprof_config *b)
{
	return strcmp(a->log_dir, b->log_dir) || a->rotate_size != b->rotate_size ||
	       a->rotate_age_s != b->rotate_age_s || a->keep != b->keep;
}

/* New log settings apply once everything queued for the old log is out. */
static void apply_log_settings(struct daemon *d, const struct pfprof_config *old)
{
	struct logwriter *logs[LOG_KINDS];
	int err;

	if (!log_settings_differ(old, &d->config))
		return;
	flush_log(d);
	if (queued_lines(d)) {
		dlog(LOG_WARNING, "log settings unchanged: %zu lines still wait for %s; reload later",
		     queued_lines(d), old->log_dir);
		goto keep_old;
	}
	err = settings_new_logs(&d->config, logs);
	if (err) {
		dlog(LOG_ERR, "new log settings: %s", strerror(-err));
		goto keep_old;
	}
	settings_free_logs(d->logs);
	memcpy(d->logs, logs, sizeof(logs));
	collector_set_logs(&d->collector, logs);
	flush_log(d);
	return;
keep_old:
	/* So that the next reload tries again, and the config says what is used. */
	memcpy(d->config.log_dir, old->log_dir, sizeof(old->log_dir));
	d->config.rotate_size = old->rotate_size;
	d->config.rotate_age_s = old->rotate_age_s;
	d->config.keep = old->keep;
}

static int on_reload(sd_event_source *s, const struct signalfd_siginfo *si, void *userdata)
{
	struct daemon *d = userdata;
	struct pfprof_config old = d->config;

	(void)s;
	(void)si;
	sd_notify(0, "RELOADING=1");
	dlog(LOG_INFO, "reloading");
	if (settings_load(&d->config, d->config_path))
		d->config = old;
	if (strcmp(old.device, d->config.device) || strcmp(old.runtime_dir, d->config.runtime_dir) ||
	    strcmp(old.state_dir, d->config.state_dir))
		dlog(LOG_WARNING, "device, runtime_dir and state_dir changes take effect at restart");
	memcpy(d->config.device, old.device, sizeof(old.device));
	memcpy(d->config.runtime_dir, old.runtime_dir, sizeof(old.runtime_dir));
	memcpy(d->config.state_dir, old.state_dir, sizeof(old.state_dir));
	apply_log_settings(d, &old);
	d->counters.owners.user_lines = d->config.user_log_lines;
	targets_watch(d);
	targets_sync(d);
	sd_notify(0, "READY=1");
	notify_status(d);
	return 0;
}

static int on_stop(sd_event_source *s, const struct signalfd_siginfo *si, void *userdata)
{
	struct daemon *d = userdata;

	(void)s;
	dlog(LOG_INFO, "stopping on signal %u", si->ssi_signo);
	return sd_event_exit(d->loop, 0);
}

static int add_sources(struct daemon *d)
{
	sigset_t mask;
	int err;

	sigemptyset(&mask);
	sigaddset(&mask, SIGTERM);
	sigaddset(&mask, SIGINT);
	sigaddset(&mask, SIGHUP);
	/* sd_event takes signals through a signalfd: they must be blocked. */
	sigprocmask(SIG_BLOCK, &mask, NULL);
	if ((err = sd_event_add_signal(d->loop, NULL, SIGTERM, on_stop, d)) < 0 ||
	    (err = sd_event_add_signal(d->loop, NULL, SIGINT, on_stop, d)) < 0 ||
	    (err = sd_event_add_signal(d->loop, NULL, SIGHUP, on_reload, d)) < 0 ||
	    (err = sd_event_add_io(d->loop, &d->samples, d->collector.fd, EPOLLIN, on_sample,
				   d)) < 0 ||
	    (err = sd_event_add_time_relative(d->loop, &d->retry, CLOCK_MONOTONIC, RETRY_USEC,
					      0, on_retry, d)) < 0 ||
	    (err = sd_event_add_time_relative(d->loop, &d->batch, CLOCK_MONOTONIC, 0,
					      0, on_batch_timer, d)) < 0 ||
	    (err = sd_event_add_time_relative(d->loop, &d->status, CLOCK_MONOTONIC, STATUS_USEC,
					      0, on_status_timer, d)) < 0 ||
	    (err = exporter_start(&d->exporter, d->loop, &d->config, &d->counters,
				  &d->psi, &d->targets)) < 0 ||
	    (err = sd_event_set_watchdog(d->loop, true)) < 0)
		return err;
	if ((err = sd_event_source_set_enabled(d->retry, SD_EVENT_OFF)) < 0 ||
	    (err = sd_event_source_set_enabled(d->batch, SD_EVENT_OFF)) < 0)
		return err;
	targets_watch(d);
	return 0;
}

int daemon_run(struct daemon *d)
{
	uint64_t now;
	int err = sd_event_default(&d->loop);

	if (err < 0 || (err = add_sources(d)) < 0) {
		dlog(LOG_ERR, "event loop: %s", strerror(-err));
		return PFPROF_EXIT_FAILED;
	}
	groups_start(&d->groups, d->loop, &d->config, &d->targets);
	targets_sync(d);
	/* What arrived before the loop runs; the next sample is written at once. */
	sd_event_now(d->loop, CLOCK_MONOTONIC, &now);
	drain_and_write(d, now);
	err = sd_event_loop(d->loop);
	sd_notify(0, "STOPPING=1");
	collector_drain(&d->collector);
	flush_log(d);
	notify_status(d);
	exporter_stop(&d->exporter);
	groups_stop(&d->groups);
	target_list_free(&d->targets);
	if (queued_lines(d)) {
		dlog(LOG_ERR, "%zu lines could not be written to %s and are lost",
		     queued_lines(d), d->config.log_dir);
		return PFPROF_EXIT_FAILED;
	}
	return err < 0 ? PFPROF_EXIT_FAILED : PFPROF_EXIT_OK;
}
