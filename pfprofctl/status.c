// SPDX-License-Identifier: GPL-2.0
/*
 * pfprofctl status: is everything in place, and how far has it got? Read
 * once into a struct status_report, shown as text or as JSON.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "ctl.h"
#include "ctljson.h"
#include "mp3ring.h"
#include "procstatus.h"
#include "stalls.h"
#include "state.h"

enum { OPT_JSON };

/* What the module, its device and pfprofd say; errors are -errno, 0 for none. */
struct status_report {
	const char *device;
	bool loaded, installed;
	struct utsname uts;		/* the running kernel's release, when not installed */
	int device_error;		/* opening or mapping the device */
	uint64_t load_id, period_ms, samples;
	unsigned int hz;
	bool events_sampler;		/* MP3_RING_ACTIVE_ONLY */
	bool stalls;			/* MP3_RING_STALLS: the module sends the waits */
	int delayacct;			/* the kernel measures them: 1, 0 or -errno */
	uint64_t faults_dropped, faults_summed, unfollowed_skipped, unfollowed_missed;
	int processes_error;		/* reading the control file */
	size_t processes;
	int daemon_error;		/* -ESRCH: not running; -EACCES: cannot tell */
	pid_t daemon_pid;
	int state_error;		/* reading its state file */
	struct pfprof_state state;
	const char *runtime_dir;
};

static void read_ring(struct status_report *r, int fd)
{
	struct mp3ring ring;

	r->device_error = mp3ring_map(&ring, fd);
	if (r->device_error)
		return;
	r->load_id = ring.load_id;
	r->period_ms = ring.hdr->period_ns / 1000000;
	r->hz = ring.hdr->hz;
	r->samples = mp3ring_head(&ring);
	r->events_sampler = ring.hdr->flags & MP3_RING_ACTIVE_ONLY;
	r->stalls = stalls_in_ring(ring.hdr);
	r->delayacct = delayacct_read(DELAYACCT_SYSCTL);
	/* Versions 5's and 6's; 0 from an older module, whose header has no such field. */
	r->faults_dropped = ring.hdr->faults_dropped;
	r->faults_summed = ring.hdr->faults_summed;
	mp3ring_unfollowed(&ring, &r->unfollowed_skipped, &r->unfollowed_missed);
	mp3ring_unmap(&ring);
}

static void read_module(const struct ctl *ctl, struct status_report *r)
{
	struct pidlist procs;
	int fd;

	r->device = ctl->config.device;
	r->loaded = !access("/sys/module/mp3", F_OK);
	if (!r->loaded) {
		r->installed = ctl_module_installed(&r->uts);
		return;
	}
	fd = open(ctl->config.device, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		r->device_error = -errno;
	} else {
		read_ring(r, fd);
		close(fd);
	}
	r->processes_error = procstatus_list(ctl->config.status_file, &procs);
	if (!r->processes_error) {
		r->processes = procs.count;
		pidlist_free(&procs);
	}
}

static void read_daemon(const struct ctl *ctl, struct status_report *r)
{
	r->runtime_dir = ctl->config.runtime_dir;
	r->daemon_error = state_daemon_pid(ctl->config.runtime_dir, &r->daemon_pid);
	if (!r->daemon_error)
		r->state_error = state_read(ctl->config.runtime_dir, &r->state);
}

static void print_module_missing(const struct status_report *r)
{
	if (r->installed) {
		printf("module:    not loaded (load it with: modprobe mp3)\n");
		return;
	}
	printf("module:    not loaded, and not installed for the running kernel %s: DKMS\n"
	       "           builds it once that kernel's headers are installed (on Debian: apt\n"
	       "           install linux-headers-%s); from a build tree: insmod module/mp3.ko\n",
	       r->uts.release, r->uts.release);
}

/* Whether the time lost waiting is measured, and if not, why. */
static void print_waits(const struct status_report *r)
{
	if (!r->stalls)
		printf("waits:     not measured: the module is older than ring version 7, or the"
		       " kernel has no delay accounting\n");
	else if (r->delayacct == 1)
		printf("waits:     measured (kernel.task_delayacct is on)\n");
	else if (r->delayacct == 0)
		printf("waits:     not measured: kernel.task_delayacct is off (pfprofd turns it"
		       " on; see pfprofd(8), DELAY ACCOUNTING)\n");
	else
		printf("waits:     unknown: %s: %s\n", DELAYACCT_SYSCTL, strerror(-r->delayacct));
}

static void print_ring(const struct status_report *r)
{
	printf("module:    loaded, load %016" PRIx64 ", period %" PRIu64 " ms, HZ %u\n",
	       r->load_id, r->period_ms, r->hz);
	printf("device:    %s, %" PRIu64 " samples taken since load\n", r->device, r->samples);
	printf("sampler:   %s\n", r->events_sampler ?
	       "events: each sample visits the processes that ran" :
	       "visit: each sample visits every registered process");
	print_waits(r);
	if (r->faults_dropped)
		printf("faults:    %llu of processes added with --maps not placed: a CPU's"
		       " buffer was full\n", (unsigned long long)r->faults_dropped);
	if (r->faults_summed)
		printf("faults:    %llu of processes added with --maps counted as not"
		       " placed: a process faulted in more mappings in one sample than"
		       " its %d records\n", (unsigned long long)r->faults_summed,
		       MP3_FAULT_RECORDS_MAX);
	if (r->unfollowed_skipped)
		printf("followed:  %" PRIu64 " processes left out: whoever added their unit, tree"
		       " or name may not read them (another user's, or a setuid program)\n",
		       r->unfollowed_skipped);
	if (r->unfollowed_missed)
		printf("followed:  %" PRIu64 " processes left out: the kernel had no memory for"
		       " them at their fork\n", r->unfollowed_missed);
}

static void print_module(const struct status_report *r)
{
	if (!r->loaded) {
		print_module_missing(r);
		return;
	}
	if (r->device_error)
		printf("module:    loaded\ndevice:    %s: %s\n", r->device, strerror(-r->device_error));
	else
		print_ring(r);
	if (!r->processes_error)
		printf("processes: %zu profiled\n", r->processes);
}

static void print_daemon(const struct status_report *r)
{
	const struct pfprof_state *st = &r->state;

	if (r->daemon_error == -EACCES) {
		/* The runtime directory is the group pfprof's (privfile.h). */
		printf("daemon:    unknown: %s/pfprofd.pid: %s (the group pfprof may read it)\n",
		       r->runtime_dir, strerror(-r->daemon_error));
		return;
	}
	if (r->daemon_error) {
		printf("daemon:    not running%s%s (start it with: systemctl start pfprofd)\n",
		       r->daemon_error == -ESRCH ? "" : ": ",
		       r->daemon_error == -ESRCH ? "" : strerror(-r->daemon_error));
		return;
	}
	printf("daemon:    running, PID %d\n", (int)r->daemon_pid);
	if (r->state_error) {
		printf("logs:      unknown (%s/state: %s)\n", r->runtime_dir,
		       strerror(-r->state_error));
		return;
	}
	printf("logged:    %" PRIu64 " samples, %" PRIu64 " missed, %" PRIu64
	       " waiting for the disk (as of %lld s ago)\n", st->logged, st->missed, st->queued,
	       (long long)time(NULL) - (long long)st->updated_s);
	printf("log file:  %s%s%s\n", st->log_file, st->log_error[0] ? ": cannot write: " : "",
	       st->log_error);
}

/* err's text, or null for none. */
static void add_error(struct json_object *o, const char *key, int err)
{
	ctl_json_add_string(o, key, err ? strerror(-err) : NULL);
}

static struct json_object *module_json(const struct status_report *r)
{
	struct json_object *m = ctl_json_object();

	ctl_json_add_bool(m, "loaded", r->loaded);
	if (!r->loaded)
		ctl_json_add_bool(m, "installed", r->installed);
	ctl_json_add_string(m, "device", r->device);
	if (!r->loaded)
		return m;
	add_error(m, "device_error", r->device_error);
	if (!r->device_error) {
		char load_id[32];

		snprintf(load_id, sizeof(load_id), "%016" PRIx64, r->load_id);
		ctl_json_add_string(m, "load_id", load_id);
		ctl_json_add_uint(m, "period_ms", r->period_ms);
		ctl_json_add_uint(m, "hz", r->hz);
		ctl_json_add_uint(m, "samples", r->samples);
		ctl_json_add_string(m, "sampler", r->events_sampler ? "events" : "visit");
		/* null: it cannot tell (the sysctl unreadable). */
		if (r->stalls && r->delayacct < 0)
			ctl_json_add(m, "waits_measured", NULL);
		else
			ctl_json_add_bool(m, "waits_measured", r->stalls && r->delayacct == 1);
		ctl_json_add_uint(m, "faults_dropped", r->faults_dropped);
		ctl_json_add_uint(m, "faults_summed", r->faults_summed);
		ctl_json_add_uint(m, "followed_skipped", r->unfollowed_skipped);
		ctl_json_add_uint(m, "followed_missed", r->unfollowed_missed);
	}
	if (r->processes_error)
		ctl_json_add(m, "processes", NULL);
	else
		ctl_json_add_uint(m, "processes", r->processes);
	return m;
}

static struct json_object *daemon_json(const struct status_report *r)
{
	struct json_object *d = ctl_json_object();
	const struct pfprof_state *st = &r->state;

	/* EACCES: its targets file cannot be read, so whether it runs is unknown. */
	if (r->daemon_error == -EACCES)
		ctl_json_add(d, "running", NULL);
	else
		ctl_json_add_bool(d, "running", !r->daemon_error);
	add_error(d, "error", r->daemon_error == -ESRCH ? 0 : r->daemon_error);
	if (r->daemon_error)
		return d;
	ctl_json_add_int(d, "pid", r->daemon_pid);
	add_error(d, "state_error", r->state_error);
	if (r->state_error)
		return d;
	ctl_json_add_uint(d, "samples_logged", st->logged);
	ctl_json_add_uint(d, "samples_missed", st->missed);
	ctl_json_add_uint(d, "lines_queued", st->queued);
	ctl_json_add_uint(d, "updated_unix_time", st->updated_s);
	ctl_json_add_string(d, "log_file", st->log_file);
	ctl_json_add_string(d, "log_error", st->log_error[0] ? st->log_error : NULL);
	return d;
}

static bool print_json(const struct status_report *r)
{
	struct json_object *o = ctl_json_object();

	ctl_json_add(o, "module", module_json(r));
	ctl_json_add(o, "daemon", daemon_json(r));
	return ctl_json_print(o);
}

static int status(struct ctl *ctl, const struct ctl_call *call)
{
	struct status_report r = { 0 };
	bool printed = true;

	read_module(ctl, &r);
	read_daemon(ctl, &r);
	if (call->option[OPT_JSON].set) {
		printed = print_json(&r);
	} else {
		print_module(&r);
		print_daemon(&r);
	}
	if (!printed)
		return PFPROF_EXIT_FAILED;
	if (!r.loaded)
		return PFPROF_EXIT_NO_MODULE;
	return r.daemon_error ? PFPROF_EXIT_NO_DAEMON : PFPROF_EXIT_OK;
}

const struct ctl_command ctl_status_command = {
	.name = "status", .operands = "",
	.summary = "Show the module, the device, the daemon and the logs",
	.details = "--json: one object, its fields in pfprofctl(8).\n"
		   "Exit status: 0 all is running, 3 the module is not loaded, 4 pfprofd is not\n"
		   "running.\n",
	.options = {
		[OPT_JSON] = { "json", 0, CTL_STRING, NULL, "the same as JSON" },
	},
	.run = status,
};
