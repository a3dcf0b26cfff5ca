// SPDX-License-Identifier: GPL-2.0
/*
 * pfprofctl heatmap --record: DAMON's picture of which memory a process
 * keeps using, a snapshot a second into a heatmap log (heatmaplog.h). Run
 * by root, like perf record: DAMON's sysfs files are root's, and pfprofd
 * runs as its own user with /sys read-only (docs/damon.md).
 */
#include <errno.h>
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
#include "heatmap.h"
#include "heatmaplog.h"

#define SNAPSHOT_INTERVAL_NS 1000000000ULL

static volatile sig_atomic_t stop_signal;

static void on_stop_signal(int sig)
{
	stop_signal = sig;
}

/* /proc/<pid>/<file>'s whole text (free() it); NULL with errno set. */
static char *read_proc_file(pid_t pid, const char *file)
{
	char path[64], *text = NULL;
	size_t size = 0;
	FILE *f, *out;
	int c;

	snprintf(path, sizeof(path), "/proc/%d/%s", (int)pid, file);
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
	char *text = read_proc_file(pid, "comm");
	int err;

	if (!text) {
		err = -errno;
		ctl_error(err == -ENOENT ? -ESRCH : err, "process %d", (int)pid);
		return PFPROF_EXIT_FAILED;
	}
	snprintf(comm, size, "%.*s", (int)strcspn(text, "\n"), text);
	free(text);
	return -1;
}

/*
 * Whether pid is a process DAMON can watch: one with an address space. A
 * kernel thread has none (its maps file is empty): EINVAL.
 */
static int check_address_space(pid_t pid, const char *comm)
{
	char *text = read_proc_file(pid, "maps");
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
		ctl_error(err, "stopping DAMON's kdamond (%s/kdamonds/0/state)", DAMON_ADMIN);
	if (stat_taken) {
		err = damon_stat_set(DAMON_STAT_ENABLED, 1);
		if (err)
			ctl_error(err, "turning damon_stat on again (%s)", DAMON_STAT_ENABLED);
	}
}

/*
 * One snapshot into the log, with the mappings if they changed; -ESRCH
 * once pid exited. *empty: DAMON tried no region however often asked.
 */
static int record_snapshot(FILE *log, pid_t pid, char **last_maps, bool *empty)
{
	uint64_t wall_ns = clock_ns(CLOCK_REALTIME);
	struct damon_region *regions;
	char *maps;
	size_t count;
	int err = damon_snapshot(DAMON_ADMIN, &regions, &count);

	if (err)
		return err;
	*empty = !count;
	maps = read_proc_file(pid, "maps");
	if (maps && (!*last_maps || strcmp(maps, *last_maps))) {
		err = heatmap_log_maps(log, wall_ns, maps);
		free(*last_maps);
		*last_maps = maps;
	} else {
		free(maps);
	}
	if (!err)
		err = heatmap_log_regions(log, wall_ns, regions, count);
	free(regions);
	if (!err && fflush(log))
		err = -errno;
	return err;
}

/*
 * A snapshot a second from a second after DAMON started, until seconds
 * have passed (0: no limit), pid exits, or a signal. Not at once: right
 * after "on" the scheme has been applied to no region yet, and the first
 * snapshot was empty (seen in a fresh run on 6.12).
 */
static int record(FILE *log, const char *log_path, pid_t pid, uint64_t seconds)
{
	uint64_t start = clock_ns(CLOCK_MONOTONIC), next = start + SNAPSHOT_INTERVAL_NS;
	unsigned long snapshots = 0, empty_snapshots = 0;
	char *maps = NULL;
	int err = 0;

	while (!stop_signal && (!seconds || next - start <= seconds * SNAPSHOT_INTERVAL_NS)) {
		struct timespec wake = { .tv_sec = next / 1000000000ULL,
					 .tv_nsec = next % 1000000000ULL };
		bool empty;

		if (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &wake, NULL))
			continue;
		err = record_snapshot(log, pid, &maps, &empty);
		if (err)
			break;
		snapshots++;
		empty_snapshots += empty;
		if (isatty(STDERR_FILENO))
			fprintf(stderr, "\rpfprofctl heatmap: %lu snapshots of PID %d in %s", snapshots,
				(int)pid, log_path);
		next += SNAPSHOT_INTERVAL_NS;
	}
	if (isatty(STDERR_FILENO) && snapshots)
		fputc('\n', stderr);
	free(maps);
	if (err && err != -ESRCH) {
		ctl_error(err, snapshots ? "%s, after %lu snapshots" : "%s", log_path, snapshots);
		return PFPROF_EXIT_FAILED;
	}
	if (err)
		printf("process %d exited: %lu snapshots in %s\n", (int)pid, snapshots, log_path);
	else
		printf("%lu snapshots of process %d in %s\n", snapshots, (int)pid, log_path);
	if (empty_snapshots)
		printf("%lu of them empty: DAMON tried no region in %d updates (its kdamond was "
		       "behind: a busy CPU)\n", empty_snapshots, DAMON_SNAPSHOT_TRIES);
	return PFPROF_EXIT_OK;
}

int heatmap_record_command(const struct ctl *ctl, const struct ctl_call *call)
{
	const struct damon_attrs attrs = DAMON_ATTRS_DEFAULT;
	struct sigaction stop = { .sa_handler = on_stop_signal };
	char default_log[PATH_MAX], comm[32];
	const char *log_path = call->option[OPT_OUTPUT].string;
	bool stat_taken;
	int status, err;
	FILE *log;
	pid_t pid;

	if (!ctl_parse_pid(call->operands[0], &pid))
		return ctl_usage_error(&ctl_heatmap_command, "'%s' is not a PID",
				       call->operands[0]);
	status = process_comm(pid, comm, sizeof(comm));
	if (status < 0)
		status = may_record(pid);
	if (status < 0)
		status = check_address_space(pid, comm);
	if (status >= 0)
		return status;
	if (!log_path) {
		if (!heatmap_log_of(ctl, pid, default_log, sizeof(default_log)))
			return PFPROF_EXIT_FAILED;
		log_path = default_log;
	}
	status = take_damon(call->option[OPT_TAKE_DAMON].set, &stat_taken);
	if (status >= 0)
		return status;
	sigaction(SIGINT, &stop, NULL);
	sigaction(SIGTERM, &stop, NULL);
	log = fopen(log_path, "we");
	if (!log) {
		ctl_error(-errno, "%s", log_path);
		give_back_damon(stat_taken);
		return PFPROF_EXIT_FAILED;
	}
	err = damon_start(DAMON_ADMIN, pid, &attrs);
	if (err)
		ctl_error(err, "starting DAMON on process %d (%s/kdamonds/0)", (int)pid,
			  DAMON_ADMIN);
	else if ((err = heatmap_log_header(log, pid, comm, &attrs)))
		ctl_error(err, "%s", log_path);
	status = err ? PFPROF_EXIT_FAILED : record(log, log_path, pid,
						   call->option[OPT_SECONDS].number);
	if (fclose(log) && !status) {
		ctl_error(-errno, "%s", log_path);
		status = PFPROF_EXIT_FAILED;
	}
	give_back_damon(stat_taken);
	return status;
}
