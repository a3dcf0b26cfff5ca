// SPDX-License-Identifier: GPL-2.0
/*
 * pfprofctl status: is everything in place, and how far has it got? Read
 * once into a struct status_report, shown as text or as JSON.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "ctl.h"
#include "module/advice.h"
#include "ctljson.h"
#include "faulttime.h"
#include "mp3ring.h"
#include "procstatus.h"
#include "stalls.h"
#include "state.h"

enum { OPT_JSON };

/* What the module, its device and pfprofd say; errors are -errno, 0 for none. */
struct status_report {
	const char *device;
	bool loaded;
	struct module_advice advice;	/* when not loaded: why, and what to do */
	bool installed;			/* mp3.ko is, for the running kernel */
	int device_error;		/* opening or mapping the device */
	uint64_t load_id, period_ms, samples;
	unsigned int hz;
	bool events_sampler;		/* MP3_RING_ACTIVE_ONLY */
	bool stalls;			/* MP3_RING_STALLS: the module sends the waits */
	int delayacct;			/* the kernel measures them: 1, 0 or -errno */
	uint64_t faults_dropped, faults_summed, unfollowed_skipped, unfollowed_missed;
	unsigned int fault_records_max;	/* the bound faults_summed counts past */
	uint64_t latency_missed;	/* faults of timed processes not timed */
	uint64_t swap_dropped;		/* swap events of "pages" registrations not written */
	int fault_times_error;		/* reading the ring's latency records */
	struct fault_times fault_times;
	struct target_list targets;	/* the targets file's, for the fault times' labels */
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
	r->fault_records_max = mp3ring_fault_records_max(&ring);
	mp3ring_unfollowed(&ring, &r->unfollowed_skipped, &r->unfollowed_missed);
	r->latency_missed = mp3ring_latency_missed(&ring);
	r->swap_dropped = mp3ring_swap_dropped(&ring);
	r->fault_times_error = fault_times_read(&ring, &r->fault_times);
	mp3ring_unmap(&ring);
}

static void read_module(const struct ctl *ctl, struct status_report *r)
{
	struct pidlist procs;
	int fd;

	r->device = ctl->config.device;
	r->loaded = !access("/sys/module/mp3", F_OK);
	if (!r->loaded) {
		struct module_facts facts;

		module_facts_read("", NULL, &facts);
		module_advise(&facts, &r->advice);
		r->installed = facts.installed;
		return;
	}
	fd = open(ctl->config.device, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		r->device_error = -errno;
	} else {
		read_ring(r, fd);
		close(fd);
	}
	/* Unreadable (not in the group pfprof): the targets are labelled by number. */
	if (r->fault_times.count)
		target_list_read(ctl->config.targets_file, &r->targets, NULL, NULL);
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
	printf("module:    not loaded\n");
	for (size_t i = 0; i < r->advice.count; i++)
		printf("           %s\n", r->advice.line[i]);
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

/* A duration for people: in ns, µs, ms or s, as 1.2 or 12. */
static void format_duration(char *buf, size_t size, double seconds)
{
	static const struct {
		double scale;
		const char *unit;
	} units[] = { { 1, "s" }, { 1e-3, "ms" }, { 1e-6, "µs" }, { 1e-9, "ns" } };
	size_t u = 0;
	double v;

	while (u < sizeof(units) / sizeof(units[0]) - 1 && seconds < units[u].scale)
		u++;
	v = seconds / units[u].scale;
	snprintf(buf, size, v < 10 ? "%.1f %s" : "%.0f %s", v, units[u].unit);
}

/* "minor 1.2 µs mean, p99 4.0 µs (12345 faults)", or "minor none". */
static void print_fault_kind(const struct latency_hist *h, enum latency_kind kind)
{
	uint64_t count = latency_count(h);
	char mean[32], p99[32];

	if (!count) {
		printf("%s none", latency_kind_word(kind));
		return;
	}
	format_duration(mean, sizeof(mean), latency_mean_seconds(h));
	format_duration(p99, sizeof(p99), latency_quantile_seconds(h, 0.99));
	printf("%s %s mean, p99 %s (%" PRIu64 " faults)", latency_kind_word(kind), mean, p99,
	       count);
}

/* Whose fault times f are: a target's label, or "pid N (comm)". */
static const char *fault_time_owner(const struct status_report *r, const struct fault_time *f,
				    char *buf, size_t size)
{
	if (f->target)
		return target_label(&r->targets, f->target, buf, size);
	snprintf(buf, size, "pid %d (%s)", (int)f->pid, f->comm);
	return buf;
}

/* A line per timed target or process of none, as the ring's samples tell; then those missed. */
static void print_fault_times(const struct status_report *r)
{
	const struct fault_times *t = &r->fault_times;

	if (r->fault_times_error)
		printf("fault time: unknown: %s\n", strerror(-r->fault_times_error));
	for (size_t i = 0; i < t->count; i++) {
		char owner[PATH_MAX + 32], window[32];

		printf("fault time: %s: ", fault_time_owner(r, &t->v[i], owner, sizeof(owner)));
		print_fault_kind(&t->v[i].latency[LATENCY_MINOR], LATENCY_MINOR);
		fputs("; ", stdout);
		print_fault_kind(&t->v[i].latency[LATENCY_MAJOR], LATENCY_MAJOR);
		format_duration(window, sizeof(window), t->seconds);
		printf("; in the last %s\n", window);
	}
	if (r->latency_missed)
		printf("fault time: %" PRIu64 " faults of timed processes not timed: the module's"
		       " probe had no free instance (its latency_active parameter)\n",
		       r->latency_missed);
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
	print_fault_times(r);
	if (r->faults_dropped)
		printf("faults:    %llu of processes added with --maps not placed: a CPU's"
		       " buffer was full\n", (unsigned long long)r->faults_dropped);
	if (r->faults_summed)
		printf("faults:    %llu of processes added with --maps counted as not"
		       " placed: a process faulted in more mappings in one sample than"
		       " its %u records\n", (unsigned long long)r->faults_summed,
		       r->fault_records_max);
	if (r->swap_dropped)
		printf("pages:     %" PRIu64 " swap-outs and swap-ins of processes added with"
		       " --pages not recorded: a CPU's buffer was full\n", r->swap_dropped);
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

/* A kind's fault times: faults, and in ns their sum, mean and p99 (0 without faults). */
static struct json_object *fault_kind_json(const struct latency_hist *h)
{
	struct json_object *o = ctl_json_object();

	ctl_json_add_uint(o, "faults", latency_count(h));
	ctl_json_add_uint(o, "sum_ns", h->time_ns);
	ctl_json_add_uint(o, "mean_ns", (uint64_t)(latency_mean_seconds(h) * 1e9 + 0.5));
	ctl_json_add_uint(o, "p99_ns", (uint64_t)(latency_quantile_seconds(h, 0.99) * 1e9 + 0.5));
	return o;
}

/* The timed targets and processes of none, as objects; null if the ring could not be read. */
static struct json_object *fault_times_json(const struct status_report *r)
{
	struct json_object *a;

	if (r->fault_times_error)
		return NULL;
	a = ctl_json_array();
	for (size_t i = 0; i < r->fault_times.count; i++) {
		const struct fault_time *f = &r->fault_times.v[i];
		struct json_object *o = ctl_json_object();
		char label[PATH_MAX + 32];

		ctl_json_add_string(o, "target", f->target ?
				    target_label(&r->targets, f->target, label, sizeof(label)) : NULL);
		if (f->target)
			ctl_json_add(o, "pid", NULL);
		else
			ctl_json_add_int(o, "pid", f->pid);
		ctl_json_add_string(o, "comm", f->target ? NULL : f->comm);
		for (int k = 0; k < LATENCY_KINDS; k++)
			ctl_json_add(o, latency_kind_word(k), fault_kind_json(&f->latency[k]));
		ctl_json_add(a, NULL, o);
	}
	return a;
}

static struct json_object *module_json(const struct status_report *r)
{
	struct json_object *m = ctl_json_object();

	ctl_json_add_bool(m, "loaded", r->loaded);
	if (!r->loaded) {
		struct json_object *advice = ctl_json_array();

		ctl_json_add_bool(m, "installed", r->installed);
		for (size_t i = 0; i < r->advice.count; i++)
			ctl_json_add_string(advice, NULL, r->advice.line[i]);
		ctl_json_add(m, "advice", advice);
	}
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
		ctl_json_add_uint(m, "latency_missed", r->latency_missed);
		ctl_json_add_uint(m, "swap_dropped", r->swap_dropped);
		ctl_json_add_double(m, "fault_time_seconds", r->fault_times.seconds);
		ctl_json_add(m, "fault_time", fault_times_json(r));
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
	fault_times_free(&r.fault_times);
	target_list_free(&r.targets);
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
