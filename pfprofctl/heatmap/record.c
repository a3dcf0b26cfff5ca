// SPDX-License-Identifier: GPL-2.0
/*
 * pfprofctl heatmap --record: DAMON's picture of which memory a process
 * keeps using, a snapshot a second into a heatmap log (log.h). Run
 * by root, like perf record: DAMON's sysfs files are root's, and pfprofd
 * runs as its own user with /sys read-only (docs/design/damon.md).
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "clock.h"
#include "ctl.h"
#include "damon.h"
#include "log.h"
#include "logfile.h"
#include "logrotate.h"
#include "options.h"
#include "privfile.h"
#include "proccomm.h"
#include "record.h"
#include "targetpids.h"

#define SNAPSHOT_INTERVAL_NS 1000000000ULL

static volatile sig_atomic_t stop_signal;

static void on_stop_signal(int sig)
{
	stop_signal = sig;
}

/* /proc/<pid>/maps's whole text (free() it); NULL with errno set. */
static char *read_maps(pid_t pid)
{
	char path[64], *text = NULL;
	size_t size = 0;
	FILE *f, *out;
	int c;

	snprintf(path, sizeof(path), "/proc/%d/maps", (int)pid);
	f = fopen(path, "re");
	if (!f)
		return NULL;
	out = open_memstream(&text, &size);
	if (!out) {
		fclose(f);
		return NULL;
	}
	while ((c = getc(f)) != EOF)
		putc(c, out);
	c = ferror(f) ? errno : 0;
	fclose(f);
	if (fclose(out) || c) {
		free(text);
		errno = c ?: ENOMEM;
		return NULL;
	}
	return text;
}

/*
 * The kernel has DAMON, and the caller may drive it: root, since DAMON's
 * sysfs files are root's, whichever process it would watch. -1 to go on,
 * else the exit status.
 */
static int may_record(pid_t pid)
{
	if (damon_check(DAMON_ADMIN) == -ENOENT) {
		ctl_error(0, "this kernel has no DAMON (CONFIG_DAMON is not set, or no "
			  "CONFIG_DAMON_SYSFS): fault maps only (pfprofctl where)");
		return PFPROF_EXIT_FAILED;
	}
	if (geteuid()) {
		ctl_error(-EPERM, "recording process %d: DAMON's files in %s are root's",
			  (int)pid, DAMON_ADMIN);
		ctl_hint("run it as root, as perf record would be");
		return PFPROF_EXIT_FAILED;
	}
	return -1;
}

/* pid's command name into comm; -1 to go on, else the exit status (ESRCH said). */
static int process_comm(pid_t pid, char *comm, size_t size)
{
	int err = proccomm_read(pid, comm, size);

	if (!err)
		return -1;
	ctl_error(err == -ENOENT ? -ESRCH : err, "process %d", (int)pid);
	return PFPROF_EXIT_FAILED;
}

/*
 * Whether pid is a process DAMON can watch: one with an address space. A
 * kernel thread has none (its maps file is empty): EINVAL.
 */
static int check_address_space(pid_t pid, const char *comm)
{
	char *text = read_maps(pid);
	int err = !text ? -errno : !*text ? -EINVAL : 0;

	free(text);
	if (!err)
		return -1;
	ctl_error(err, "process %d (%s)%s", (int)pid, comm,
		  err == -EINVAL ? " is a kernel thread: it has no address space" : "");
	return PFPROF_EXIT_FAILED;
}

/*
 * DAMON for us: the kernel has it, no kdamond of its sysfs interface is on
 * (someone else's: left alone), and damon_stat is off, or turned off if
 * allowed (*stat_taken then). -1 to go on, else the exit status.
 */
static int take_damon(bool may_take_stat, bool *stat_taken)
{
	int err = damon_check(DAMON_ADMIN), stat;

	*stat_taken = false;
	if (err == -EBUSY) {
		ctl_error(err, "DAMON: a kdamond of %s is on, someone else's; it is left alone",
			  DAMON_ADMIN);
		return PFPROF_EXIT_FAILED;
	}
	if (err) {
		ctl_error(err, "%s", DAMON_ADMIN);
		return PFPROF_EXIT_FAILED;
	}
	stat = damon_stat_enabled(DAMON_STAT_ENABLED);
	if (stat <= 0)
		return -1;
	if (!may_take_stat) {
		ctl_error(-EBUSY, "DAMON is held by damon_stat, which this kernel starts at boot");
		ctl_hint("--take-damon turns damon_stat off while recording, and on again after");
		return PFPROF_EXIT_FAILED;
	}
	err = damon_stat_set(DAMON_STAT_ENABLED, 0);
	if (err) {
		ctl_error(err, "turning damon_stat off (%s)", DAMON_STAT_ENABLED);
		return PFPROF_EXIT_FAILED;
	}
	*stat_taken = true;
	return -1;
}

static void give_back_damon(bool stat_taken)
{
	int err = damon_stop(DAMON_ADMIN);

	if (err)
		ctl_error(err, "stopping DAMON's kdamonds (%s/kdamonds/*/state)", DAMON_ADMIN);
	if (stat_taken) {
		err = damon_stat_set(DAMON_STAT_ENABLED, 1);
		if (err)
			ctl_error(err, "turning damon_stat on again (%s)", DAMON_STAT_ENABLED);
	}
}

/* One process recorded: its kdamond, its log, and how its recording went. */
struct recording {
	pid_t pid;
	size_t kdamond;
	char comm[32];
	char log_path[PATH_MAX];
	FILE *log;
	uint64_t log_created_s;		/* the current file's, wall clock */
	char *maps;			/* the last written to the current file */
	unsigned long snapshots;
	unsigned long empty_snapshots;	/* of them */
	int err;			/* -ESRCH: it exited; else it failed, if not 0 */
};

/* r's log opened anew (a private file: privfile.h), with its header; 0 or -errno. */
static int open_log(struct recording *r, const struct damon_attrs *attrs)
{
	int fd = private_open(r->log_path, O_WRONLY | O_TRUNC);
	FILE *log;

	if (fd < 0)
		return fd;
	log = fdopen(fd, "w");
	if (!log) {
		int err = -errno;

		close(fd);
		return err;
	}
	r->log = log;
	r->log_created_s = (uint64_t)time(NULL);
	return heatmap_log_header(r->log, r->pid, r->comm, attrs);
}

/* How the logs are rotated (the configuration's rotate_size, rotate_age, keep), and their header. */
struct rotation {
	struct logrotate_policy policy;
	const struct damon_attrs *attrs;
};

/*
 * r's log rotated if due, as pfprofd rotates its logs: the current file
 * to .1 and so on. The new file starts with the header, and the mappings
 * are written again at its first snapshot, so that each file can be drawn
 * on its own. 0 or -errno.
 */
static int rotate_if_due(struct recording *r, const struct rotation *rot)
{
	long size = ftell(r->log);
	int err;

	if (size < 0)
		return -errno;
	if (!logrotate_due(&rot->policy, r->log_created_s, (uint64_t)size, r->snapshots > 0,
			   (uint64_t)time(NULL)))
		return 0;
	err = fclose(r->log) ? -errno : 0;
	r->log = NULL;
	free(r->maps);
	r->maps = NULL;
	if (!err)
		err = logrotate_shift_path(r->log_path, rot->policy.keep);
	return err ? err : open_log(r, rot->attrs);
}

/*
 * One snapshot into r's log, rotated first if due, with the mappings if
 * they changed; -ESRCH once the process exited.
 */
static int record_snapshot(struct recording *r, const struct rotation *rot)
{
	uint64_t wall_ns = clock_ns(CLOCK_REALTIME);
	struct damon_region *regions;
	char *maps;
	size_t count;
	int err = damon_snapshot(DAMON_ADMIN, r->kdamond, &regions, &count);

	if (!err)
		err = rotate_if_due(r, rot);
	if (err) {
		free(regions);
		return err;
	}
	r->snapshots++;
	r->empty_snapshots += !count;
	maps = read_maps(r->pid);
	if (maps && (!r->maps || strcmp(maps, r->maps))) {
		err = heatmap_log_maps(r->log, wall_ns, maps);
		free(r->maps);
		r->maps = maps;
	} else {
		free(maps);
	}
	if (!err)
		err = heatmap_log_regions(r->log, wall_ns, regions, count);
	free(regions);
	if (!err && fflush(r->log))
		err = -errno;
	return err;
}

/* The snapshots so far, on a terminal. */
static void show_progress(const struct recording *recs, size_t nr)
{
	unsigned long snapshots = 0;

	if (!isatty(STDERR_FILENO))
		return;
	for (size_t i = 0; i < nr; i++)
		snapshots += recs[i].snapshots;
	fprintf(stderr, "\rpfprofctl heatmap: %lu snapshots of %zu process%s", snapshots, nr,
		nr == 1 ? "" : "es");
}

/*
 * A round a second from a second after DAMON started, until seconds have
 * passed (0: no limit), every process exited, or a signal: a snapshot of
 * each process still recorded, in turn. Not at once: right after "on" the
 * scheme has been applied to no region yet, and the first snapshot was
 * empty (seen in a fresh run on 6.12). In turn, because DAMON's sysfs
 * interface takes one command at a time (6.12: EBUSY for another, and an
 * update waits in steps of 100 ms, damon_sysfs_handle_cmd()): a round of
 * n processes takes n aggregation intervals or more, and with more than
 * about five processes the rounds come back to back.
 */
static void record(struct recording *recs, size_t nr, uint64_t seconds,
		   const struct rotation *rot)
{
	uint64_t start = clock_ns(CLOCK_MONOTONIC), next = start + SNAPSHOT_INTERVAL_NS;
	size_t recorded = nr;

	while (recorded && !stop_signal &&
	       (!seconds || next - start <= seconds * SNAPSHOT_INTERVAL_NS)) {
		struct timespec wake = { .tv_sec = next / 1000000000ULL,
					 .tv_nsec = next % 1000000000ULL };

		if (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &wake, NULL))
			continue;
		for (size_t i = 0; i < nr; i++) {
			if (recs[i].err)
				continue;
			recs[i].err = record_snapshot(&recs[i], rot);
			recorded -= recs[i].err != 0;
		}
		show_progress(recs, nr);
		/* After a round longer than the interval, the next ones at once: seconds rounds. */
		next += SNAPSHOT_INTERVAL_NS;
	}
	if (isatty(STDERR_FILENO))
		fputc('\n', stderr);
}

/* How r's recording went, said; false if it failed. */
static bool report(const struct recording *r)
{
	unsigned long snapshots = r->snapshots;

	if (r->err && r->err != -ESRCH) {
		ctl_error(r->err, snapshots ? "%s, after %lu snapshots" : "%s", r->log_path,
			  snapshots);
		return false;
	}
	if (r->err)
		printf("process %d exited: %lu snapshots in %s\n", (int)r->pid, snapshots,
		       r->log_path);
	else
		printf("%lu snapshots of process %d in %s\n", snapshots, (int)r->pid, r->log_path);
	if (r->empty_snapshots)
		printf("%lu of them empty: DAMON tried no region in %d updates (its kdamond was "
		       "behind: a busy CPU)\n", r->empty_snapshots, DAMON_SNAPSHOT_TRIES);
	return true;
}

/*
 * The processes, checked: each has an address space, and the caller may
 * record. Their logs' names. -1 to go on, else the exit status.
 */
static int take_processes(const struct ctl *ctl, const struct ctl_call *call,
			  const struct ctl_command *cmd, struct recording *recs, size_t nr)
{
	/* -o was the log's name with --record before --log. */
	int log_option = call->option[OPT_LOG].set ? OPT_LOG : OPT_OUTPUT;
	const char *out = call->option[log_option].string;
	int status = -1;

	if (out && nr > 1)
		return ctl_usage_error(cmd, "%s names one log: give one PID, or "
				       "none to have a log each", call->option[log_option].typed);
	for (size_t i = 0; i < nr && status < 0; i++) {
		struct recording *r = &recs[i];

		r->kdamond = i;
		status = process_comm(r->pid, r->comm, sizeof(r->comm));
		if (status < 0 && !i)
			status = may_record(r->pid);
		if (status < 0)
			status = check_address_space(r->pid, r->comm);
		if (status < 0 && out)
			snprintf(r->log_path, sizeof(r->log_path), "%s", out);
		else if (status < 0 && !heatmap_log_of(ctl, r->pid, r->log_path,
						       sizeof(r->log_path)))
			status = PFPROF_EXIT_FAILED;
	}
	return status;
}

/* Every log opened, with its header; 0, or the failure said. */
static int open_logs(struct recording *recs, size_t nr, const struct damon_attrs *attrs)
{
	int err = 0;

	for (size_t i = 0; i < nr && !err; i++) {
		err = open_log(&recs[i], attrs);
		if (err)
			ctl_error(err, "%s", recs[i].log_path);
	}
	return err;
}

/* The logs closed, the mappings kept freed; false if one failed (said). */
static bool close_logs(struct recording *recs, size_t nr)
{
	bool ok = true;

	for (size_t i = 0; i < nr; i++) {
		free(recs[i].maps);
		if (recs[i].log && fclose(recs[i].log)) {
			ctl_error(-errno, "%s", recs[i].log_path);
			ok = false;
		}
	}
	return ok;
}

/* DAMON on every process, a kdamond each; 0, or the failure said. */
static int start_damon(const struct recording *recs, size_t nr, const struct damon_attrs *attrs)
{
	pid_t pids[DAMON_MAX_PROCESSES] = { 0 };
	int err;

	for (size_t i = 0; i < nr; i++)
		pids[i] = recs[i].pid;
	err = damon_start(DAMON_ADMIN, pids, nr, attrs);
	if (err)
		ctl_error(err, nr == 1 ? "starting DAMON on process %d (%s/kdamonds/0)" :
			  "starting DAMON on processes %d and on (%s/kdamonds)", (int)recs[0].pid,
			  DAMON_ADMIN);
	return err;
}

int heatmap_record_command(const struct ctl *ctl, const struct ctl_call *call,
			   const struct ctl_command *cmd)
{
	const struct damon_attrs attrs = DAMON_ATTRS_DEFAULT;
	const struct rotation rot = {
		.policy = { .size = ctl->config.rotate_size, .age_s = ctl->config.rotate_age_s,
			    .keep = ctl->config.keep },
		.attrs = &attrs,
	};
	struct sigaction stop = { .sa_handler = on_stop_signal };
	pid_t pids[DAMON_MAX_PROCESSES];
	struct recording *recs = NULL;
	bool stat_taken, ok = true;
	size_t nr = 0;
	int status = heatmap_pids_to_record(call, cmd, pids, &nr);

	if (status < 0) {
		recs = calloc(nr, sizeof(*recs));
		if (!recs) {
			ctl_error(-ENOMEM, "recording %zu processes", nr);
			return PFPROF_EXIT_FAILED;
		}
		for (size_t i = 0; i < nr; i++)
			recs[i].pid = pids[i];
		status = take_processes(ctl, call, cmd, recs, nr);
	}
	if (status < 0)
		status = take_damon(call->option[OPT_TAKE_DAMON].set, &stat_taken);
	if (status >= 0) {
		free(recs);
		return status;
	}
	sigaction(SIGINT, &stop, NULL);
	sigaction(SIGTERM, &stop, NULL);
	if (open_logs(recs, nr, &attrs) || start_damon(recs, nr, &attrs)) {
		ok = false;
	} else {
		record(recs, nr, call->option[OPT_SECONDS].number, &rot);
		for (size_t i = 0; i < nr; i++)
			ok = report(&recs[i]) && ok;
	}
	ok = close_logs(recs, nr) && ok;
	give_back_damon(stat_taken);
	free(recs);
	return ok ? PFPROF_EXIT_OK : PFPROF_EXIT_FAILED;
}
