// SPDX-License-Identifier: GPL-2.0
/*
 * pfprofd: drains the mp3 module's samples into rotating logs and keeps the
 * processes listed in its PID file registered. One sd_event loop: the device
 * (poll() wakes it per sample), signals, the PID file's directory (inotify),
 * a retry timer while the log cannot be written and a status timer.
 *
 * Exit status: 0 stopped by SIGTERM/SIGINT, 1 error (also: lines left
 * unwritten at the stop), 2 usage error,
 * 3 the mp3 module (its device) is not available.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <libgen.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <systemd/sd-daemon.h>
#include <systemd/sd-event.h>

#include "collector.h"
#include "config.h"
#include "daemon_log.h"
#include "logwriter.h"
#include "pfprof.h"
#include "procstatus.h"
#include "registrar.h"
#include "state.h"

#define PROG "pfprofd"
#define RETRY_USEC 1000000ULL		/* retrying a log that cannot be written */
#define STATUS_USEC 2000000ULL		/* refreshing STATUS= and the state file */

struct daemon {
	sd_event *loop;
	const char *config_path;
	struct pfprof_config config;
	struct logwriter *log;
	struct collector collector;
	sd_event_source *retry;		/* armed while lines wait for the disk */
	sd_event_source *samples;	/* the device: off while a batch is gathering */
	sd_event_source *batch;		/* writes a batch once write_interval has passed */
	uint64_t next_write_usec;	/* CLOCK_MONOTONIC: no write before this */
	sd_event_source *pid_watch;
	int lock_fd;
	int log_error;			/* last error reported, 0 once writing works */
	bool ready;
};

static uint64_t wall_seconds(void)
{
	return (uint64_t)time(NULL);
}

static void report_config(void *ctx, const char *file, unsigned int line, const char *message)
{
	(void)ctx;
	dlog(LOG_WARNING, "%s:%u: %s (line ignored)", file, line, message);
}

/* Reads the config; an explicit --config that cannot be read is an error. */
static int load_config(struct daemon *d)
{
	const char *path = d->config_path ? d->config_path : PFPROF_CONFIG_PATH;
	int err = config_load(&d->config, path, report_config, NULL);

	if (err == -ENOENT && !d->config_path)
		return 0;
	if (err)
		dlog(LOG_ERR, "reading %s: %s", path, strerror(-err));
	return err;
}

static struct logwriter *new_log(const struct pfprof_config *config)
{
	struct logrotate_policy policy = {
		.size = config->rotate_size,
		.age_s = config->rotate_age_s,
		.keep = config->keep,
	};

	return logwriter_new(config->log_dir, &policy);
}

static void notify_status(struct daemon *d)
{
	struct pfprof_state st = {
		.pid = getpid(),
		.load_id = d->collector.ring.load_id,
		.head = mp3ring_head(&d->collector.ring),
		.logged = d->collector.logged,
		.missed = d->collector.missed,
		.queued = logwriter_queued(d->log),
		.updated_s = wall_seconds(),
	};
	struct pidlist procs;
	int err = procstatus_list(d->config.status_file, &procs);

	if (err)
		procs.count = 0;
	snprintf(st.log_file, sizeof(st.log_file), "%s", logwriter_path(d->log));
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
	dlog(LOG_INFO, "logging to %s", logwriter_path(d->log));
	sd_notify(0, "READY=1");
	notify_status(d);
}

static void arm_retry(struct daemon *d)
{
	sd_event_source_set_time_relative(d->retry, RETRY_USEC);
	sd_event_source_set_enabled(d->retry, SD_EVENT_ONESHOT);
}

/* Writes what is queued; failures are reported once and retried. */
static void flush_log(struct daemon *d)
{
	int err = logwriter_flush(d->log, wall_seconds());

	if (err) {
		if (err != d->log_error)
			dlog(LOG_ERR, "writing %s: %s; %zu lines held, retrying every second",
			     logwriter_path(d->log), strerror(-err), logwriter_queued(d->log));
		d->log_error = err;
		arm_retry(d);
		return;
	}
	if (d->log_error)
		dlog(LOG_NOTICE, "writing %s again", logwriter_path(d->log));
	d->log_error = 0;
	become_ready(d);
}

/* Drains the ring into the log; returns whether there was anything new. */
static bool write_samples(struct daemon *d)
{
	uint64_t before = d->collector.logged + d->collector.missed, now;

	collector_drain(&d->collector);
	/* While the log fails, the retry timer writes, not every sample. */
	if (!d->log_error)
		flush_log(d);
	sd_event_now(d->loop, CLOCK_MONOTONIC, &now);
	d->next_write_usec = now + d->config.write_interval_s * 1000000ULL;
	return d->collector.logged + d->collector.missed != before;
}

/*
 * A sample arrived. After a quiet spell it is written at once; while samples
 * keep coming they are written once per write_interval, by the batch timer,
 * with the device left unwatched meanwhile: one wakeup per interval rather
 * than one per sample.
 */
static int on_sample(sd_event_source *s, int fd, uint32_t revents, void *userdata)
{
	struct daemon *d = userdata;
	uint64_t now;

	(void)s;
	(void)fd;
	(void)revents;
	sd_event_now(d->loop, CLOCK_MONOTONIC, &now);
	if (now < d->next_write_usec) {
		sd_event_source_set_enabled(d->samples, SD_EVENT_OFF);
		sd_event_source_set_time(d->batch, d->next_write_usec);
		sd_event_source_set_enabled(d->batch, SD_EVENT_ONESHOT);
		return 0;
	}
	write_samples(d);
	return 0;
}

static int on_batch_timer(sd_event_source *s, uint64_t usec, void *userdata)
{
	struct daemon *d = userdata;

	(void)usec;
	/* Still busy: the next batch too is written by this timer. */
	if (write_samples(d) && d->config.write_interval_s) {
		sd_event_source_set_time(s, d->next_write_usec);
		return sd_event_source_set_enabled(s, SD_EVENT_ONESHOT);
	}
	return sd_event_source_set_enabled(d->samples, SD_EVENT_ON);
}

static int on_retry(sd_event_source *s, uint64_t usec, void *userdata)
{
	struct daemon *d = userdata;

	(void)s;
	(void)usec;
	flush_log(d);
	/* Samples left in the ring while the queue was full. */
	if (!d->log_error)
		on_sample(NULL, -1, 0, d);
	return 0;
}

static int on_status_timer(sd_event_source *s, uint64_t usec, void *userdata)
{
	notify_status(userdata);
	sd_event_source_set_time(s, usec + STATUS_USEC);
	return sd_event_source_set_enabled(s, SD_EVENT_ONESHOT);
}

static int on_pid_dir_event(sd_event_source *s, const struct inotify_event *ev, void *userdata)
{
	struct daemon *d = userdata;
	char path[PATH_MAX];

	(void)s;
	snprintf(path, sizeof(path), "%s", d->config.pid_file);
	if (ev->len && !strcmp(ev->name, basename(path)))
		registrar_sync(&d->config);
	return 0;
}

/* Watches the PID file's directory: editors and pfprofctl replace the file. */
static void watch_pid_file(struct daemon *d)
{
	char dir[PATH_MAX];
	int err;

	d->pid_watch = sd_event_source_disable_unref(d->pid_watch);
	snprintf(dir, sizeof(dir), "%s", d->config.pid_file);
	err = sd_event_add_inotify(d->loop, &d->pid_watch, dirname(dir),
				   IN_CLOSE_WRITE | IN_MOVED_TO, on_pid_dir_event, d);
	if (err < 0)
		dlog(LOG_WARNING, "cannot watch %s for changes: %s; reload to re-read it",
		     dir, strerror(-err));
}

static bool log_settings_differ(const struct pfprof_config *a, const struct pfprof_config *b)
{
	return strcmp(a->log_dir, b->log_dir) || a->rotate_size != b->rotate_size ||
	       a->rotate_age_s != b->rotate_age_s || a->keep != b->keep;
}

/* New log settings apply once everything queued for the old log is out. */
static void apply_log_settings(struct daemon *d, const struct pfprof_config *old)
{
	struct logwriter *log;

	if (!log_settings_differ(old, &d->config))
		return;
	flush_log(d);
	if (logwriter_queued(d->log)) {
		dlog(LOG_WARNING, "log settings unchanged: %zu lines still wait for %s; reload later",
		     logwriter_queued(d->log), logwriter_path(d->log));
		goto keep_old;
	}
	log = new_log(&d->config);
	if (!log) {
		dlog(LOG_ERR, "new log settings: %s", strerror(errno));
		goto keep_old;
	}
	logwriter_free(d->log);
	d->log = log;
	collector_set_log(&d->collector, log);
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
	if (load_config(d))
		d->config = old;
	if (strcmp(old.device, d->config.device) || strcmp(old.runtime_dir, d->config.runtime_dir))
		dlog(LOG_WARNING, "device and runtime_dir changes take effect at restart");
	memcpy(d->config.device, old.device, sizeof(old.device));
	memcpy(d->config.runtime_dir, old.runtime_dir, sizeof(old.runtime_dir));
	apply_log_settings(d, &old);
	watch_pid_file(d);
	registrar_sync(&d->config);
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
	    (err = sd_event_add_time_relative(d->loop, NULL, CLOCK_MONOTONIC, STATUS_USEC,
					      0, on_status_timer, d)) < 0 ||
	    (err = sd_event_set_watchdog(d->loop, true)) < 0)
		return err;
	sd_event_source_set_enabled(d->retry, SD_EVENT_OFF);
	sd_event_source_set_enabled(d->batch, SD_EVENT_OFF);
	watch_pid_file(d);
	return 0;
}

/* Opens the device and the log; returns an exit status, or -1 to go on. */
static int start_collecting(struct daemon *d)
{
	int err;

	d->log = new_log(&d->config);
	if (!d->log) {
		dlog(LOG_ERR, "log writer: %s", strerror(errno));
		return PFPROF_EXIT_FAILED;
	}
	err = collector_open(&d->collector, d->config.device, d->log);
	if (pfprof_module_missing(err)) {
		dlog(LOG_ERR, "cannot open %s: %s; load the module first: modprobe mp3",
		     d->config.device, strerror(-err));
		return PFPROF_EXIT_NO_MODULE;
	}
	if (err) {
		dlog(LOG_ERR, "cannot use %s: %s%s", d->config.device, strerror(-err),
		     err == -EPROTO ? " (module and pfprofd versions do not match)" : "");
		return PFPROF_EXIT_FAILED;
	}
	return -1;
}

static int take_lock(struct daemon *d)
{
	pid_t other;
	int err;

	if (mkdir(d->config.runtime_dir, 0755) && errno != EEXIST) {
		dlog(LOG_ERR, "creating %s: %s", d->config.runtime_dir, strerror(errno));
		return -errno;
	}
	err = state_lock(d->config.runtime_dir, &d->lock_fd);
	if (err == -EWOULDBLOCK && !state_daemon_pid(d->config.runtime_dir, &other))
		dlog(LOG_ERR, "another pfprofd is running (PID %d)", (int)other);
	else if (err)
		dlog(LOG_ERR, "locking %s/pfprofd.pid: %s", d->config.runtime_dir, strerror(-err));
	return err;
}

static void usage(FILE *out)
{
	fprintf(out,
		"Usage: " PROG " [options]\n"
		"Collect the mp3 module's samples into rotating logs and keep the processes\n"
		"listed in the PID file registered.\n"
		"\n"
		"  -c, --config FILE  configuration file (default " PFPROF_CONFIG_PATH ")\n"
		"  -f, --foreground   stay in the foreground and log to stderr\n"
		"  -h, --help         show this help\n"
		"  -V, --version      show the version\n"
		"\n"
		"Signals: SIGHUP reloads the configuration and the PID file; SIGTERM and\n"
		"SIGINT stop after writing everything collected.\n"
		"Exit status: 0 stopped by a signal, 1 error, 2 usage error, 3 the mp3\n"
		"module is not loaded. See pfprofd(8) and pfprofd.conf(5).\n");
}

static int parse_args(int argc, char **argv, struct daemon *d, bool *foreground)
{
	static const struct option options[] = {
		{ "config", required_argument, NULL, 'c' },
		{ "foreground", no_argument, NULL, 'f' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ 0 }
	};
	int opt;

	while ((opt = getopt_long(argc, argv, "c:fhV", options, NULL)) != -1) {
		switch (opt) {
		case 'c':
			d->config_path = optarg;
			break;
		case 'f':
			*foreground = true;
			break;
		case 'h':
			usage(stdout);
			exit(PFPROF_EXIT_OK);
		case 'V':
			printf(PROG " (pfprof) %s\n", pfprof_version);
			exit(PFPROF_EXIT_OK);
		default:
			fprintf(stderr, "Try '" PROG " --help' for more information.\n");
			return PFPROF_EXIT_USAGE;
		}
	}
	if (optind < argc) {
		fprintf(stderr, PROG ": unexpected argument '%s'\n", argv[optind]);
		return PFPROF_EXIT_USAGE;
	}
	return 0;
}

static int run(struct daemon *d)
{
	int err = sd_event_default(&d->loop);

	if (err < 0 || (err = add_sources(d)) < 0) {
		dlog(LOG_ERR, "event loop: %s", strerror(-err));
		return PFPROF_EXIT_FAILED;
	}
	registrar_sync(&d->config);
	collector_drain(&d->collector);	/* what arrived before the loop runs */
	flush_log(d);
	err = sd_event_loop(d->loop);
	sd_notify(0, "STOPPING=1");
	collector_drain(&d->collector);
	flush_log(d);
	notify_status(d);
	if (logwriter_queued(d->log)) {
		dlog(LOG_ERR, "%zu lines could not be written to %s and are lost",
		     logwriter_queued(d->log), logwriter_path(d->log));
		return PFPROF_EXIT_FAILED;
	}
	return err < 0 ? PFPROF_EXIT_FAILED : PFPROF_EXIT_OK;
}

int main(int argc, char **argv)
{
	struct daemon d = { .lock_fd = -1, .collector.fd = -1 };
	bool foreground = false;
	int status;

	status = parse_args(argc, argv, &d, &foreground);
	if (status)
		return status;
	dlog_to_journal(false);
	if (load_config(&d))
		return PFPROF_EXIT_FAILED;
	if (take_lock(&d))
		return PFPROF_EXIT_FAILED;
	status = start_collecting(&d);
	if (status >= 0)
		return status;
	/* Errors so far went to the terminal; from here on, to the journal. */
	if (!foreground && (daemon(0, 0) || state_write_pid(d.lock_fd))) {
		dlog(LOG_ERR, "detaching: %s", strerror(errno));
		return PFPROF_EXIT_FAILED;
	}
	dlog_to_journal(!foreground);
	status = run(&d);
	collector_close(&d.collector);
	logwriter_free(d.log);
	sd_event_unref(d.loop);
	return status;
}
