// SPDX-License-Identifier: GPL-2.0
/*
 * pfprofd's Prometheus metrics, delay accounting's waits and fault
 * latency, in its logs and its metrics file.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "daemonrun.h"
#include "harness.h"
#include "jsonout.h"
#include "logformat.h"
#include "psi.h"
#include "stalls.h"
#include "tests.h"

/* The sysctl reads want (0 or 1). */
static bool delayacct_is(int want)
{
	int on = delayacct_read(DELAYACCT_SYSCTL);

	if (on < 0)
		fail("%s: %s (a kernel without delay accounting?)", DELAYACCT_SYSCTL, strerror(-on));
	return on == want;
}

static void set_delayacct(const char *value)
{
	daemon_write_text(DELAYACCT_SYSCTL, value, "w");
}

/*
 * pfprofd run by hand as root turns delay accounting on while it runs and
 * off at its exit, if it was off before (pfprofd(8), DELAY ACCOUNTING);
 * on before, it stays on; with delay_accounting = leave it is not touched.
 */
void test_daemon_delay_accounting(void)
{
	pid_t daemon;

	if (!kernel_stalls_flag()) {
		/* A kernel without delay accounting (the debug kernel's): pfprofd runs all the same. */
		daemon_setup("");
		daemon = start_ready_daemon();
		stop_daemon(daemon);
		printf("  daemon_delay_accounting: no %s here: pfprofd ran without it\n",
		       DELAYACCT_SYSCTL);
		return;
	}
	set_delayacct("0\n");
	daemon_setup("");
	daemon = start_ready_daemon();
	expect(delayacct_is(1), "off before: not on while pfprofd runs");
	expect(!access(RUN_DIR "/delayacct", F_OK), "no marker in the runtime directory");
	stop_daemon(daemon);
	expect(delayacct_is(0), "off before: not off again after pfprofd");
	expect(access(RUN_DIR "/delayacct", F_OK), "the marker is left");
	expect(file_contains(STDERR_FILE, "turned delay accounting on (" DELAYACCT_SYSCTL ")") &&
	       file_contains(STDERR_FILE, "turned delay accounting off again (" DELAYACCT_SYSCTL ")"),
	       "pfprofd did not say what it did");

	set_delayacct("1\n");
	daemon_setup("");
	daemon = start_ready_daemon();
	stop_daemon(daemon);
	expect(delayacct_is(1), "on before: turned off by pfprofd");

	set_delayacct("0\n");
	daemon_setup("delay_accounting = leave\n");
	daemon = start_ready_daemon();
	expect(delayacct_is(0), "delay_accounting = leave: turned on");
	stop_daemon(daemon);
}

struct prom_counters {
	double minor;		/* the worker's */
	double samples, sampler_s;
};

static void read_prom(pid_t pid, struct prom_counters *c)
{
	char series[128];

	snprintf(series, sizeof(series), "pfprof_process_minor_faults_total{pid=\"%d\",", (int)pid);
	c->minor = prom_value(series);
	c->samples = prom_value("pfprof_samples_written_total ");
	c->sampler_s = prom_value("pfprof_sampler_seconds_total ");
}

/* Waits for the worker's minor faults to reach at least minor in the file; returns them all. */
static struct prom_counters wait_prom(pid_t pid, double minor)
{
	uint64_t deadline = now_ns() + 10000000000ULL;
	struct prom_counters c;

	for (read_prom(pid, &c); c.minor < minor; read_prom(pid, &c)) {
		expect(now_ns() < deadline, "%s says %.0f minor faults for PID %d after 10 s, want %.0f",
		       PROM_FILE, c.minor, (int)pid, minor);
		sleep_ms(100);
	}
	return c;
}

static void expect_not_back(const struct prom_counters *before, const struct prom_counters *now,
			    const char *when)
{
	expect(now->minor >= before->minor && now->samples >= before->samples &&
	       now->sampler_s >= before->sampler_s,
	       "counters went back %s: minor %.0f -> %.0f, samples %.0f -> %.0f, sampler %.6f -> %.6f",
	       when, before->minor, now->minor, before->samples, now->samples, before->sampler_s,
	       now->sampler_s);
}

/* The system's counters are there, and memory pressure exactly when the kernel has PSI. */
static void expect_prom_context(void)
{
	struct psi_memory psi;
	bool have_psi = !psi_read(PSI_MEMORY_PATH, &psi);
	double some = prom_value("pfprof_memory_pressure_some_ratio ");
	double full = prom_value("pfprof_memory_pressure_full_ratio ");

	expect(prom_value("pfprof_system_major_faults_total ") >= 0 &&
	       prom_value("pfprof_swap_in_pages_total ") >= 0 &&
	       prom_value("pfprof_swap_out_pages_total ") >= 0,
	       "%s lacks the system's counters", PROM_FILE);
	if (have_psi)
		expect(some >= 0 && some <= 1 && full >= 0 && full <= 1,
		       "memory pressure ratios %.4f %.4f, PSI readable", some, full);
	else
		expect(some < 0 && full < 0, "memory pressure exported without PSI");
}

/*
 * The Prometheus textfile: the worker's faults counted, readable by others,
 * and no counter going back when pfprofd restarts or the module is reloaded.
 */
void test_daemon_prometheus(void)
{
	struct prom_counters first, stopped, restarted, reloaded;
	struct stat st;
	struct worker w;
	pid_t daemon, pid;

	daemon_setup("prometheus_dir = " PROM_DIR "\nprometheus_interval = 1s\n");
	expect(!mkdir(PROM_DIR, 0755), "mkdir %s: %s", PROM_DIR, strerror(errno));
	daemon = start_ready_daemon();
	pid = add_worker(&w);
	worker_do(&w, 't', 2000);
	first = wait_prom(pid, 2000);
	expect(!stat(PROM_FILE, &st) && (st.st_mode & 0777) == 0644, "%s: mode %o, want 644",
	       PROM_FILE, st.st_mode & 0777);
	expect(prom_value("pfprof_registered_processes ") == 1, "registered processes: %.0f",
	       prom_value("pfprof_registered_processes "));
	expect(first.samples > 0 && first.sampler_s > 0, "samples %.0f, sampler %.6f s",
	       first.samples, first.sampler_s);
	/* The module's own counters, there with their value: root's worker left nothing out. */
	expect(prom_value("pfprof_followed_processes_skipped_total ") == 0 &&
	       prom_value("pfprof_followed_processes_missed_total ") == 0,
	       "processes left out: %.0f skipped, %.0f missed (-1: no such line)",
	       prom_value("pfprof_followed_processes_skipped_total "),
	       prom_value("pfprof_followed_processes_missed_total "));
	expect_prom_context();
	stop_daemon(daemon);
	read_prom(pid, &stopped);
	expect_not_back(&first, &stopped, "at the stop");

	daemon = start_ready_daemon();
	worker_do(&w, 't', 1000);
	restarted = wait_prom(pid, stopped.minor + 1000);
	expect_not_back(&stopped, &restarted, "across a restart");
	expect(file_contains(STDERR_FILE, "counting on from its counters"),
	       "pfprofd did not say it went on from the last file");
	stop_daemon(daemon);
	read_prom(pid, &stopped);

	expect_ok(module_unload(), "rmmod once pfprofd has stopped");
	expect_ok(module_load(NULL), "insmod again");
	daemon = start_ready_daemon();
	worker_do(&w, 't', 1000);
	reloaded = wait_prom(pid, stopped.minor + 1000);
	expect_not_back(&stopped, &reloaded, "across a module reload");
	stop_daemon(daemon);
	printf("  daemon_prometheus: worker's minor faults %.0f, %.0f after a restart, %.0f after a "
	       "module reload; %.0f samples written\n", first.minor, restarted.minor, reloaded.minor,
	       reloaded.samples);
}

#define DURATIONS "pfprof_target_fault_duration_seconds"

struct duration_kind {
	double count, sum_s;
	unsigned int buckets;
	double inf;		/* the +Inf bucket, -1 if none */
};

/*
 * One kind's histogram of target in the snapshot: its _count and _sum, and its
 * _bucket lines, which must be as many as the module's buckets, in order of
 * growing le, cumulative, the last le="+Inf".
 */
static void snapshot_durations(const struct prom_snapshot *s, const char *target,
			       const char *kind, struct duration_kind *d)
{
	char prefix[256];
	double last_le = 0, last = 0;
	size_t len;

	*d = (struct duration_kind){ .inf = -1 };
	snprintf(prefix, sizeof(prefix), DURATIONS "_count{target=\"%s\",kind=\"%s\"} ", target,
		 kind);
	d->count = prom_snapshot_value(s, prefix);
	snprintf(prefix, sizeof(prefix), DURATIONS "_sum{target=\"%s\",kind=\"%s\"} ", target,
		 kind);
	d->sum_s = prom_snapshot_value(s, prefix);
	len = (size_t)snprintf(prefix, sizeof(prefix),
			       DURATIONS "_bucket{target=\"%s\",kind=\"%s\",le=\"", target, kind);
	for (const char *line = s->text; *line; line = prom_next_line(line)) {
		char le[32];
		double value, bound;
		int end = 0;

		if (strncmp(line, prefix, len))
			continue;
		expect(sscanf(line + len, "%31[^\"]\"} %lf%n", le, &value, &end) == 2 &&
		       (line[len + end] == '\n' || !line[len + end]),
		       "%s: not a bucket line: %.*s", PROM_FILE,
		       (int)(strchrnul(line, '\n') - line), line);
		expect(d->inf < 0, "%s: a %s bucket le=\"%s\" after le=\"+Inf\"", PROM_FILE, kind,
		       le);
		if (!strcmp(le, "+Inf")) {
			d->inf = value;
		} else {
			bound = strtod(le, NULL);
			expect(bound > last_le, "%s: %s buckets' le %s after %.9f", PROM_FILE, kind,
			       le, last_le);
			last_le = bound;
		}
		expect(value >= last, "%s: %s bucket le=\"%s\" is %.0f, below the one before"
		       " (%.0f): not cumulative", PROM_FILE, kind, le, value, last);
		last = value;
		d->buckets++;
	}
}

/* The fault_time entry of status --json for label; NULL if none. */
static struct json_object *fault_time_entry(struct json_object *status, const char *label)
{
	struct json_object *a = json_at(status, "module.fault_time");

	expect(json_object_is_type(a, json_type_array), "module.fault_time is no array: %s",
	       json_object_to_json_string(a));
	for (size_t i = 0; i < json_object_array_length(a); i++) {
		struct json_object *e = json_object_array_get_idx(a, i), *t;

		if (json_object_object_get_ex(e, "target", &t) &&
		    json_object_is_type(t, json_type_string) &&
		    !strcmp(json_object_get_string(t), label))
			return e;
	}
	return NULL;
}

#define LATENCY_PAGES 4096

/*
 * pfprofctl where --tree, once the faults log has the worker's faults: the
 * time of its mappings' minor faults is nearly all the histogram's
 * (@minor_s; a fault whose thread changed CPU before its return is not
 * joined to its place), and no more.
 */
static void expect_where_timed(const char *tree, double minor_s)
{
	uint64_t deadline = now_ns() + 20000000000ULL;
	double timed = 0, time_ns = 0;
	struct json_object *o;

	char *argv[] = { "./pfprofctl", "--config", CONF, "where", "--json", "--tree", (char *)tree,
			 NULL };

	for (;;) {
		expect(run_program_err(argv, DAEMON_DIR "/where.json", DAEMON_DIR "/ctl.stderr") == 0,
		       "pfprofctl where --json --tree %s failed", tree);
		o = json_read_line(DAEMON_DIR "/where.json");
		timed = json_number_at(o, "minor_timed_faults");
		time_ns = json_number_at(o, "minor_time_ns");
		json_object_put(o);
		if (timed >= LATENCY_PAGES || now_ns() > deadline)
			break;
		sleep_ms(200);
	}
	printf("  daemon_latency: where --tree: %.0f minor faults timed, %.0f ns; the histogram"
	       " %.0f ns\n", timed, time_ns, minor_s * 1e9);
	expect(timed >= LATENCY_PAGES, "where --tree %s: %.0f minor faults timed, the worker "
	       "touched %d pages", tree, timed, LATENCY_PAGES);
	expect(time_ns <= minor_s * 1e9 + 1 && time_ns >= minor_s * 1e9 * 0.8, "where --tree %s:"
	       " its mappings' minor faults took %.0f ns, the histogram says %.0f ns", tree,
	       time_ns, minor_s * 1e9);
}

/*
 * Field n (1-based, past the PID's) of a per-process log line, as ns from
 * its ms; false for a comment or another process's line. A line of pid
 * without field n fails the test.
 */
static bool procs_line_ns(const char *line, pid_t pid, int n, double *ns, bool *known)
{
	char *copy = strdup(line), *save = NULL, *field;
	bool ours;
	int i;

	expect(copy, "strdup: %s", strerror(errno));
	field = strtok_r(copy, "\t\n", &save);
	for (i = 1; field && i < 3; i++)
		field = strtok_r(NULL, "\t\n", &save);
	ours = field && *copy != '#' && atoi(field) == pid;
	for (; ours && field && i < n; i++)
		field = strtok_r(NULL, "\t\n", &save);
	if (ours) {
		expect(field, "%s: a line of PID %d has no field %d: %s", PROCS_LOG, (int)pid, n,
		       line);
		*known = strcmp(field, "-");
		*ns = *known ? strtod(field, NULL) * 1e6 : 0;
	}
	free(copy);
	return ours;
}

/*
 * The per-process log's fault times of pid (format 4): they add up to the
 * target's histogram (@minor_s, @major_s; pid is its only process), once
 * pfprofd wrote the samples the histogram has.
 */
static void expect_procs_log_timed(pid_t pid, double minor_s, double major_s)
{
	uint64_t deadline = now_ns() + 20000000000ULL;
	double minor_ns, major_ns, ns;
	unsigned int known, lines;
	char *line = NULL;
	size_t size = 0;
	bool is_known;
	FILE *f;

	for (;;) {
		minor_ns = major_ns = 0;
		known = lines = 0;
		f = fopen(PROCS_LOG, "r");
		while (f && getline(&line, &size, f) > 0) {
			if (!procs_line_ns(line, pid, 14, &ns, &is_known))
				continue;
			lines++;
			minor_ns += ns;
			known += is_known;
			procs_line_ns(line, pid, 15, &ns, &is_known);
			major_ns += ns;
		}
		if (f)
			fclose(f);
		if (minor_ns >= minor_s * 1e9 - 1.5 || now_ns() > deadline)
			break;
		sleep_ms(200);
	}
	free(line);
	printf("  daemon_latency: %s: %u lines of PID %d, %u with its faults' time: minor %.0f ns,"
	       " major %.0f ns\n", PROCS_LOG, lines, (int)pid, known, minor_ns, major_ns);
	expect(known > 0 && fabs(minor_ns - minor_s * 1e9) < 1.5 &&
	       fabs(major_ns - major_s * 1e9) < 1.5,
	       "%s: PID %d's minor faults took %.0f ns, major %.0f ns (%u lines known);"
	       " the histograms %.0f, %.0f", PROCS_LOG, (int)pid, minor_ns, major_ns, known,
	       minor_s * 1e9, major_s * 1e9);
}

/* top --json's fault_time_percent of pid from DIR/top.json; -1 if null, -2 if pid is absent. */
static double top_fault_percent_of(pid_t pid)
{
	struct json_object *o = json_read_line(DAEMON_DIR "/top.json"), *procs = json_at(o, "processes");
	double percent = -2;

	for (size_t i = 0; i < json_object_array_length(procs); i++) {
		struct json_object *p = json_object_array_get_idx(procs, i), *v;

		if (json_number_at(p, "pid") != pid)
			continue;
		v = json_at(p, "fault_time_percent");
		percent = json_object_is_type(v, json_type_null) ? -1 : json_object_get_double(v);
	}
	json_object_put(o);
	return percent;
}

/*
 * pfprofctl add --latency --tree of a worker that then touches fresh pages:
 * pfprofd's histogram of the target's minor faults counts every minor fault
 * its fault counter counts (read from one file pfprofd wrote after a sample
 * taken once the work was done), its buckets are cumulative up to +Inf, which
 * is the count; pfprofctl status --json times the same faults from the ring
 * (the ring holds all this test's samples: the same count and sum),
 * pfprofctl list says the tree is kept with latency, where and the
 * per-process log give the same time, and top shows a share of it.
 */
void test_daemon_latency(void)
{
	struct duration_kind minor, major;
	struct json_object *o, *e, *targets;
	static struct prom_snapshot snap;
	double target_minor, target_major, written, time_ns, fault_percent;
	char arg[16], label[32], series[128], line[64], kept[64];
	uint64_t head, deadline;
	struct mp3ring ring;
	struct worker w;
	pid_t daemon, top;
	bool listed = false;
	int fd, rc;

	daemon_setup("prometheus_dir = " PROM_DIR "\nprometheus_interval = 1s\n");
	expect(!mkdir(PROM_DIR, 0755), "mkdir %s: %s", PROM_DIR, strerror(errno));
	daemon = start_ready_daemon();
	worker_spawn(&w);
	snprintf(arg, sizeof(arg), "%d", (int)w.pid);
	snprintf(label, sizeof(label), "tree:%d", (int)w.pid);
	{
		char *argv[] = { "./pfprofctl", "--config", CONF, "add", "--maps", "--latency",
				 "--tree", arg, NULL };

		rc = run_program_err(argv, NULL, DAEMON_DIR "/ctl.stderr");
	}
	expect(rc == 0 && status_lists(w.pid), "pfprofctl add --maps --latency --tree %s: exit %d, "
	       "listed %d", arg, rc, status_lists(w.pid));
	snprintf(kept, sizeof(kept), "maps latency tree %s\n", arg);
	expect(file_contains(PID_FILE, kept), "no line 'maps latency tree %s' in %s", arg,
	       PID_FILE);

	/* pfprofctl top over the worker's touches: the share of its time in the fault handler. */
	{
		char *argv[] = { "./pfprofctl", "top", "--json", "-n", "1", "-d", "3", NULL };

		top = start_program_err(argv, DAEMON_DIR "/top.json", DAEMON_DIR "/top.stderr");
	}
	sleep_ms(500);
	worker_do(&w, 't', LATENCY_PAGES);
	rc = wait_program(top, "pfprofctl top");
	fault_percent = top_fault_percent_of(w.pid);
	printf("  daemon_latency: top --json: PID %d spent %.3f %% of 3 s in the fault handler\n",
	       (int)w.pid, fault_percent);
	expect(rc == 0 && fault_percent > 0 && fault_percent < 100,
	       "pfprofctl top --json exited %d; PID %d's fault_time_percent %.3f (-1: null,"
	       " -2: no row), it touched %d fresh pages with latency", rc, (int)w.pid,
	       fault_percent, LATENCY_PAGES);
	/* Its faults are all in the samples from head on: wait for pfprofd to have written one. */
	map_ring(&ring, &fd);
	head = mp3ring_head(&ring);
	mp3ring_unmap(&ring);
	close(fd);
	deadline = now_ns() + 20000000000ULL;
	for (;;) {
		written = prom_snapshot(&snap) ?
			  prom_snapshot_value(&snap, "pfprof_samples_written_total ") : -1;
		if (written >= (double)head + 1)
			break;
		expect(now_ns() < deadline, "after 20 s %s says %.0f samples written (-1: no file),"
		       " want %llu",
		       PROM_FILE, written, (unsigned long long)head + 1);
		sleep_ms(100);
	}
	snprintf(series, sizeof(series), "pfprof_target_minor_faults_total{target=\"%s\"} ", label);
	target_minor = prom_snapshot_value(&snap, series);
	snprintf(series, sizeof(series), "pfprof_target_major_faults_total{target=\"%s\"} ", label);
	target_major = prom_snapshot_value(&snap, series);
	snapshot_durations(&snap, label, "minor", &minor);
	snapshot_durations(&snap, label, "major", &major);
	printf("  daemon_latency: %s: %.0f minor %.0f major faults counted; timed: minor %.0f "
	       "(%.6f s, %u buckets, +Inf %.0f), major %.0f (%.6f s, %u buckets, +Inf %.0f); "
	       "%.0f samples written, head %llu\n", label, target_minor, target_major, minor.count,
	       minor.sum_s, minor.buckets, minor.inf, major.count, major.sum_s, major.buckets,
	       major.inf, written, (unsigned long long)head);
	expect(target_minor >= LATENCY_PAGES, "%s: target %s has %.0f minor faults (-1: no series),"
	       " the worker touched %d fresh pages", PROM_FILE, label, target_minor, LATENCY_PAGES);
	expect(minor.count == target_minor && major.count == target_major,
	       "%s: target %s's histogram counts %.0f minor %.0f major faults, its counters"
	       " %.0f %.0f",
	       PROM_FILE, label, minor.count, major.count, target_minor, target_major);
	expect(minor.buckets == MP3_LATENCY_BUCKETS && major.buckets == MP3_LATENCY_BUCKETS,
	       "%s: %u minor and %u major buckets, want %d each", PROM_FILE, minor.buckets,
	       major.buckets, MP3_LATENCY_BUCKETS);
	expect(minor.inf == minor.count && major.inf == major.count,
	       "%s: le=\"+Inf\" minor %.0f major %.0f, _count %.0f %.0f", PROM_FILE, minor.inf,
	       major.inf, minor.count, major.count);
	/* 4096 faults of a few µs each, not nothing and not seconds apiece. */
	expect(minor.sum_s > 0 && minor.sum_s < minor.count * 0.1,
	       "%s: the %.0f minor faults took %.9f s in all", PROM_FILE, minor.count, minor.sum_s);
	expect(prom_snapshot_value(&snap, "pfprof_fault_latency_missed_total ") == 0,
	       "%s: pfprof_fault_latency_missed_total %.0f (-1: no series), one thread faulting",
	       PROM_FILE, prom_snapshot_value(&snap, "pfprof_fault_latency_missed_total "));

	rc = daemon_ctl(DAEMON_DIR "/status.json", "status", "--json", NULL);
	expect(rc == 0, "pfprofctl status --json exited with %d", rc);
	o = json_read_line(DAEMON_DIR "/status.json");
	e = fault_time_entry(o, label);
	expect(e, "status --json: no fault_time entry for %s: %s", label,
	       json_object_to_json_string(json_at(o, "module.fault_time")));
	time_ns = json_number_at(e, "minor.sum_ns");
	printf("  daemon_latency: status --json: minor %.0f faults, mean %.0f ns, p99 %.0f ns; "
	       "major %.0f faults\n", json_number_at(e, "minor.faults"),
	       json_number_at(e, "minor.mean_ns"), json_number_at(e, "minor.p99_ns"),
	       json_number_at(e, "major.faults"));
	expect(json_number_at(e, "minor.faults") > 0 && json_number_at(e, "minor.mean_ns") > 0 &&
	       json_number_at(e, "minor.p99_ns") >= json_number_at(e, "minor.mean_ns") / 2,
	       "status --json: %s", json_object_to_json_string(e));
	/* The ring holds every sample of this test: the faults pfprofd added up, no more. */
	expect(json_number_at(e, "minor.faults") == minor.count &&
	       json_number_at(e, "major.faults") == major.count &&
	       fabs(time_ns - minor.sum_s * 1e9) < 1.5,
	       "status --json's minor %.0f faults (%.0f ns), major %.0f; %s: minor %.0f (%.9f s), "
	       "major %.0f", json_number_at(e, "minor.faults"), time_ns,
	       json_number_at(e, "major.faults"), PROM_FILE, minor.count, minor.sum_s, major.count);
	expect(json_number_at(o, "module.latency_missed") == 0 &&
	       json_number_at(o, "module.fault_time_seconds") > 0,
	       "status --json: latency_missed %.0f, fault_time_seconds %.3f",
	       json_number_at(o, "module.latency_missed"),
	       json_number_at(o, "module.fault_time_seconds"));
	json_object_put(o);
	rc = daemon_ctl(DAEMON_DIR "/status.out", "status", NULL, NULL);
	snprintf(line, sizeof(line), "fault time: %s: minor ", label);
	expect(rc == 0 && file_contains(DAEMON_DIR "/status.out", line),
	       "pfprofctl status: exit %d, no line '%s...'", rc, line);

	rc = daemon_ctl(DAEMON_DIR "/list.out", "list", NULL, NULL);
	expect(rc == 0 && file_contains(DAEMON_DIR "/list.out",
					"kept with maps and latency, 1 processes profiled"),
	       "pfprofctl list: exit %d, no 'kept with maps and latency, 1 processes profiled'", rc);
	expect(daemon_ctl(DAEMON_DIR "/list.json", "list", "--json", NULL) == 0, "pfprofctl list --json failed");
	o = json_read_line(DAEMON_DIR "/list.json");
	targets = json_at(o, "targets");
	for (size_t i = 0; i < json_object_array_length(targets); i++) {
		struct json_object *t = json_object_array_get_idx(targets, i);

		if (!strcmp(json_object_get_string(json_at(t, "target")), label))
			listed = json_bool_at(t, "latency") && json_bool_at(t, "maps") &&
				 json_number_at(t, "processes") == 1;
	}
	expect(listed, "list --json: %s is not kept with latency (and 1 process): %s", label,
	       json_object_to_json_string(o));
	json_object_put(o);
	expect_where_timed(arg, minor.sum_s);
	expect_procs_log_timed(w.pid, minor.sum_s, major.sum_s);

	expect(daemon_ctl(NULL, "del", "--tree", arg) == 0, "pfprofctl del --tree %s failed", arg);
	expect(!file_contains(PID_FILE, kept) && !status_lists(w.pid),
	       "del --tree left the line or the registration");
	stop_daemon(daemon);
	kill_and_reap(w.pid);
}
