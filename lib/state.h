/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What a running pfprofd tells pfprofctl, in its runtime directory:
 *   pfprofd.pid  its PID, flock()ed for as long as it runs
 *   state        "key value" lines, replaced atomically every few seconds
 */
#ifndef PFPROF_STATE_H
#define PFPROF_STATE_H

#include <limits.h>
#include <stdint.h>
#include <sys/types.h>

struct pfprof_state {
	pid_t pid;
	uint64_t load_id;
	uint64_t head;		/* samples the module has published */
	uint64_t logged;	/* samples this daemon has written */
	uint64_t missed;	/* samples it could not get */
	uint64_t queued;	/* lines waiting for the disk */
	uint64_t updated_s;	/* wall clock of this state */
	char log_file[PATH_MAX];
	char log_error[128];	/* why the log cannot be written, or "" */
};

/* Daemon: takes the lock and writes our PID; -EWOULDBLOCK if one runs. */
int state_lock(const char *runtime_dir, int *lock_fd);
int state_write(const char *runtime_dir, const struct pfprof_state *state);
/* Daemon: records our PID again in the locked file (after daemon()). */
int state_write_pid(int lock_fd);

/* pfprofctl: the PID of the running daemon, or -ESRCH if none runs. */
int state_daemon_pid(const char *runtime_dir, pid_t *pid);
int state_read(const char *runtime_dir, struct pfprof_state *state);

#endif /* PFPROF_STATE_H */
