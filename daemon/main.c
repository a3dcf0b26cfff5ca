// SPDX-License-Identifier: GPL-2.0
/*
 * pfprofd: drains the mp3 module's samples into rotating logs and keeps the
 * processes and groups its targets file lists registered. This file starts
 * it: command line, configuration, directories, lock, device and logs;
 * loop.c runs it.
 *
 * Exit status: 0 stopped by SIGTERM/SIGINT, 1 error (also: lines left
 * unwritten at the stop), 2 usage error,
 * 3 the mp3 module (its device) is not available.
 * With --check-config: 0 every line of the configuration is good, 1 a bad
 * line or a file that cannot be read. With --delay-accounting: 0 done (or
 * nothing to do), 1 the sysctl or the marker could not be read or written.
 */
#include <errno.h>
#include <getopt.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "daemon.h"
#include "daemon_log.h"
#include "delayacct_mode.h"
#include "pfprof.h"
#include "privfile.h"
#include "settings.h"
#include "state.h"

#define PROG "pfprofd"

/* What the command line asks for beside the configuration file. */
struct start_options {
	bool foreground;
	bool check_config;
	const char *delay_accounting;	/* --delay-accounting: "start", "stop", or NULL */
};

/* Long options without a short one. */
enum { OPT_DELAY_ACCOUNTING = 256 };

/* Says that the module is not loaded, as err (from the device) tells; the exit status. */
static int module_missing(const struct daemon *d, int err)
{
	dlog(LOG_ERR, "cannot open %s: %s; load the module first: modprobe mp3",
	     d->config.device, strerror(-err));
	return PFPROF_EXIT_NO_MODULE;
}

/* Opens the device and the logs; returns an exit status, or -1 to go on. */
static int start_collecting(struct daemon *d)
{
	int err;

	err = settings_new_logs(&d->config, d->logs);
	if (err) {
		dlog(LOG_ERR, "log writer: %s", strerror(-err));
		return PFPROF_EXIT_FAILED;
	}
	ownerbudget_init(&d->counters.owners, d->config.user_log_lines);
	err = collector_open(&d->collector, d->config.device, d->logs, &d->counters, &d->psi);
	if (pfprof_module_missing(err))
		return module_missing(d, err);
	if (err) {
		dlog(LOG_ERR, "cannot use %s: %s%s", d->config.device, strerror(-err),
		     err == -EPROTO ? " (module and pfprofd versions do not match)" :
		     err == -ENOTTY ? " (not a character device: the device setting names "
				      "another file)" : "");
		return PFPROF_EXIT_FAILED;
	}
	return -1;
}

/*
 * Creates the directory (not its parents) if it is missing, mode 0750 and
 * the group pfprof (private_mkdir()), saying so; if it cannot be created or
 * written in, says why at priority (LOG_ERR: pfprofd cannot run without it)
 * and returns -errno. An existing directory keeps its mode.
 */
static int need_dir(const char *what, const char *dir, int priority)
{
	const char *problem = "cannot create it";
	struct stat st;
	int err = private_mkdir(dir);

	if (!err) {
		dlog(LOG_NOTICE, "created %s, the %s", dir, what);
		return 0;
	}
	errno = -err;
	if (errno == EEXIST) {
		problem = "cannot use it";
		if (!stat(dir, &st) && !S_ISDIR(st.st_mode))
			errno = ENOTDIR;
		else if (!access(dir, W_OK | X_OK))
			return 0;
	}
	err = errno;
	dlog(priority, "%s %s: %s: %s", what, dir, problem, strerror(err));
	return -err;
}

/*
 * The directories pfprofd writes in, which make install and the service
 * create: the logs', the targets file's (it removes exited PIDs) and, for the
 * metrics' counters, the state directory (without it they start from 0).
 */
static int need_dirs(const struct pfprof_config *config)
{
	char targets_dir[PATH_MAX];
	int err;

	snprintf(targets_dir, sizeof(targets_dir), "%s", config->targets_file);
	err = need_dir("log directory (log_dir)", config->log_dir, LOG_ERR);
	if (!err)
		err = need_dir("directory of the targets file (targets_file)", dirname(targets_dir),
			       LOG_ERR);
	if (!err)
		need_dir("state directory (state_dir)", config->state_dir, LOG_WARNING);
	return err;
}

static int take_lock(struct daemon *d)
{
	pid_t other;
	int err;

	err = need_dir("runtime directory (runtime_dir)", d->config.runtime_dir, LOG_ERR);
	if (err)
		return err;
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
		"listed in the targets file registered.\n"
		"\n"
		"  -c, --config FILE   configuration file (default " PFPROF_CONFIG_PATH ")\n"
		"  -t, --check-config  check the configuration file and exit: status 1\n"
		"                      and FILE:LINE for each bad line\n"
		"  -f, --foreground    stay in the foreground and log to stderr\n"
		"      --delay-accounting=start|stop\n"
		"                      turn the kernel's delay accounting on as the\n"
		"                      configuration says, or off again if pfprofd turned\n"
		"                      it on, and exit (as root; pfprofd.service runs them)\n"
		"  -h, --help          show this help\n"
		"  -V, --version       show the version\n"
		"\n"
		"Signals: SIGHUP reloads the configuration and the targets file; SIGTERM\n"
		"and SIGINT stop after writing everything collected.\n"
		"Exit status: 0 stopped by a signal, 1 error, 2 usage error, 3 the mp3\n"
		"module is not loaded. See pfprofd(8) and pfprofd.conf(5).\n");
}

static int parse_args(int argc, char **argv, struct daemon *d, struct start_options *start)
{
	static const struct option options[] = {
		{ "config", required_argument, NULL, 'c' },
		{ "check-config", no_argument, NULL, 't' },
		{ "foreground", no_argument, NULL, 'f' },
		{ "delay-accounting", required_argument, NULL, OPT_DELAY_ACCOUNTING },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ 0 }
	};
	int opt;

	while ((opt = getopt_long(argc, argv, "c:tfhV", options, NULL)) != -1) {
		switch (opt) {
		case 'c':
			d->config_path = optarg;
			break;
		case 't':
			start->check_config = true;
			break;
		case 'f':
			start->foreground = true;
			break;
		case OPT_DELAY_ACCOUNTING:
			if (strcmp(optarg, "start") && strcmp(optarg, "stop")) {
				fprintf(stderr, PROG ": --delay-accounting takes start or stop, "
					"not '%s'\n", optarg);
				return PFPROF_EXIT_USAGE;
			}
			start->delay_accounting = optarg;
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
	if (start->check_config && start->delay_accounting) {
		fprintf(stderr, PROG ": --check-config and --delay-accounting exclude each other\n");
		return PFPROF_EXIT_USAGE;
	}
	return 0;
}

/* Detaches unless in the foreground, and runs until stopped; the exit status. */
static int detach_and_run(struct daemon *d, bool foreground)
{
	/* Errors so far went to the terminal; from here on, to the journal. */
	if (!foreground && (daemon(0, 0) || state_write_pid(d->lock_fd))) {
		dlog(LOG_ERR, "detaching: %s", strerror(errno));
		return PFPROF_EXIT_FAILED;
	}
	dlog_to_journal(!foreground);
	return daemon_run(d);
}

int main(int argc, char **argv)
{
	struct daemon d = { .lock_fd = -1, .collector.fd = -1, .psi = PSI_CACHE_INIT };
	struct start_options start = { 0 };
	bool restore_delayacct = false;
	int status, err;

	status = parse_args(argc, argv, &d, &start);
	if (status)
		return status;
	dlog_to_journal(false);
	if (start.check_config)
		return settings_check(d.config_path) ? PFPROF_EXIT_FAILED : PFPROF_EXIT_OK;
	if (settings_load(&d.config, d.config_path))
		return PFPROF_EXIT_FAILED;
	if (start.delay_accounting)
		return delayacct_command(&d.config, !strcmp(start.delay_accounting, "start"));
	/* Before any directory is made: without the module, nothing is left behind. */
	err = access(d.config.device, F_OK) ? -errno : 0;
	if (pfprof_module_missing(err))
		return module_missing(&d, err);
	if (take_lock(&d) || need_dirs(&d.config))
		return PFPROF_EXIT_FAILED;
	status = start_collecting(&d);
	/* Only once pfprofd is sure to run: a failed start leaves the system as it was. */
	if (status < 0) {
		restore_delayacct = delayacct_daemon_start(&d.config);
		status = detach_and_run(&d, start.foreground);
	}
	if (restore_delayacct)
		delayacct_daemon_exit(&d.config);
	collector_close(&d.collector);
	psi_cache_close(&d.psi);
	settings_free_logs(d.logs);
	counters_free(&d.counters);
	sd_event_unref(d.loop);
	return status;
}
