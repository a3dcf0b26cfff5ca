/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pfprofd and pfprofctl run in the guest by the tests of both: a
 * configuration in DAEMON_DIR, the daemon started, waited for and stopped,
 * pfprofctl's output and its metrics file read.
 */
#ifndef PFPROF_GUEST_DAEMONRUN_H
#define PFPROF_GUEST_DAEMONRUN_H

#include "harness.h"
#include "logformat.h"

#define DAEMON_DIR "/tmp/pfprof"
#define CONF DAEMON_DIR "/pfprofd.conf"
#define LOG_DIR DAEMON_DIR "/log"
#define PID_FILE DAEMON_DIR "/pids"
#define RUN_DIR DAEMON_DIR "/run"
#define STATE_DIR DAEMON_DIR "/state"
#define STDERR_FILE DAEMON_DIR "/pfprofd.stderr"

/* text into path, fopen()ed with mode ("w", "a"); fails the test if it cannot. */
void daemon_write_text(const char *path, const char *text, const char *mode);

/* A fresh directory and a config pointing everything into it. */
void daemon_setup(const char *extra_config);

/* pfprofd started with the test config, its stderr into STDERR_FILE. */
pid_t start_daemon(void);

/*
 * pfprofd writes its state file once it is ready (log open, device mapped).
 * Its first start after boot loads libsystemd from a cold page cache: on
 * the debug kernel under TCG that alone was seen to take over 5 s. 15 s,
 * below the shortest daemon test's own limit (20 s), so that what it was
 * doing is shown before the runner ends the test.
 */
void daemon_wait_ready(pid_t daemon);

/* start_daemon(), then daemon_wait_ready(). */
pid_t start_ready_daemon(void);

/* SIGTERM, and its exit awaited: it must end cleanly. */
void stop_daemon(pid_t pid);

/* Runs pfprofctl with the test config; stdout to out (may be NULL). */
int daemon_ctl(const char *out, const char *a1, const char *a2, const char *a3);

/* pfprofctl add OPTION PID, after which the targets file has the line "WORD PID". */
void add_keeping_line(const char *option, const char *pid_arg, const char *word);
/*
 * pfprofctl add OPTION PID keeps "WORD PID" and registers it; unregistered
 * in the module only, pfprofd, started now, registers it again from the
 * file and logs "profiling PID N with its WHAT". Returns pfprofd's PID.
 */
pid_t expect_kept_by_daemon(const char *option, pid_t pid, const char *word, const char *what);

/* A worker started and added with pfprofctl add; its PID. */
pid_t add_worker(struct worker *w);

#define PROM_DIR DAEMON_DIR "/prom"
#define PROM_FILE PROM_DIR "/pfprof.prom"

/* The value of the first line of the metrics file that starts with prefix; -1 if none. */
double prom_value(const char *prefix);

/* The metrics file as it was at one read (pfprofd replaces it whole): a whole copy. */
struct prom_snapshot {
	char text[1 << 18];
};

/* A snapshot of the metrics file into s; false if pfprofd has not written it yet. */
bool prom_snapshot(struct prom_snapshot *s);
/* The line after line's end, or its terminating nul. */
const char *prom_next_line(const char *line);
/* The value of the snapshot's first line that starts with prefix; -1 if none. */
double prom_snapshot_value(const struct prom_snapshot *s, const char *prefix);

#define PROCS_LOG LOG_DIR "/" LOGFORMAT_PROCS_FILE

#endif /* PFPROF_GUEST_DAEMONRUN_H */
