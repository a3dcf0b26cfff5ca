/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What pfprofd, pfprofctl and the tools share: the version, the exit
 * statuses their man pages document, the default paths.
 */
#ifndef PFPROF_H
#define PFPROF_H

#include <errno.h>
#include <stdbool.h>

/* The package version (dkms.conf's PACKAGE_VERSION, see version.mk). */
extern const char pfprof_version[];

/* Exit statuses of pfprofd and pfprofctl. */
enum pfprof_exit {
	PFPROF_EXIT_OK = 0,
	PFPROF_EXIT_FAILED = 1,		/* the message says why */
	PFPROF_EXIT_USAGE = 2,		/* bad command line */
	PFPROF_EXIT_NO_MODULE = 3,	/* the mp3 module is not loaded */
	PFPROF_EXIT_NO_DAEMON = 4,	/* pfprofctl status: pfprofd is not running */
};

/* Defaults; pfprofd.conf(5) changes all but the first. */
#define PFPROF_CONFIG_PATH "/etc/pfprof/pfprofd.conf"
#define PFPROF_LOG_DIR "/var/log/pfprof"
#define PFPROF_TARGETS_FILE "/var/lib/pfprof/pids"
#define PFPROF_RUNTIME_DIR "/run/pfprofd"
#define PFPROF_STATE_DIR "/var/lib/pfprof"
/* node_exporter's textfile collector directory on Debian (prometheus-node-exporter). */
#define PFPROF_PROMETHEUS_DIR "/var/lib/prometheus/node-exporter"

/* Whether err (-errno) from opening the device or /proc/mp3/status means "no module". */
static inline bool pfprof_module_missing(int err)
{
	return err == -ENOENT || err == -ENXIO || err == -ENODEV;
}

#endif /* PFPROF_H */
