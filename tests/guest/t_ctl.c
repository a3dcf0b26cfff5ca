// SPDX-License-Identifier: GPL-2.0
/*
 * pfprofctl against the real module: top (batch, JSON, terminal), and its
 * commands with and without the module.
 */
#include <math.h>
#include <pty.h>
#include <stdio.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/wait.h>

#include "daemonrun.h"
#include "harness.h"
#include "jsonout.h"
#include "logformat.h"
#include "pfprof.h"
#include "recordsums.h"
#include "stalls.h"
#include "tests.h"

/* status --json and list --json say, as fields, what the text says. */
static void check_json(pid_t daemon, pid_t worker)
{
	struct json_object *o, *procs;
	bool found = false;
	int rc = daemon_ctl(DAEMON_DIR "/status.json", "status", "--json", NULL);

	expect(rc == 0, "pfprofctl status --json exited with %d", rc);
	o = json_read_line(DAEMON_DIR "/status.json");
	expect(json_bool_at(o, "module.loaded") && json_bool_at(o, "daemon.running") &&
	       json_number_at(o, "daemon.pid") == daemon &&
	       json_number_at(o, "module.processes") >= 1 &&
	       !strcmp(json_object_get_string(json_at(o, "daemon.log_file")),
		       LOG_DIR "/" LOGFORMAT_FILE), "status --json: %s",
	       json_object_to_json_string(o));
	/* A version 7 module on a kernel with delay accounting: measured exactly while it is on. */
	expect(json_bool_at(o, "module.waits_measured") == (delayacct_read(DELAYACCT_SYSCTL) == 1),
	       "status --json says waits_measured %d, %s reads %d",
	       json_bool_at(o, "module.waits_measured"), DELAYACCT_SYSCTL,
	       delayacct_read(DELAYACCT_SYSCTL));
	json_object_put(o);
	expect(daemon_ctl(DAEMON_DIR "/list.json", "list", "--json", NULL) == 0, "pfprofctl list --json failed");
	o = json_read_line(DAEMON_DIR "/list.json");
	procs = json_at(o, "processes");
	for (size_t i = 0; i < json_object_array_length(procs); i++) {
		struct json_object *p = json_object_array_get_idx(procs, i);

		if (json_number_at(p, "pid") == worker)
			found = json_bool_at(p, "profiled") && json_bool_at(p, "kept");
	}
	expect(found, "list --json: the worker is not profiled and kept: %s",
	       json_object_to_json_string(o));
	json_object_put(o);
}

void test_ctl_without_module(void)
{
	pid_t daemon;
	int status, rc;

	daemon_setup("");
	expect_ok(module_unload(), "rmmod");
	rc = daemon_ctl(NULL, "add", "1", NULL);
	expect(rc == 3, "pfprofctl add without the module exited with %d, want 3", rc);
	/*
	 * That, then a line a cause with its fix, as status says them: here no
	 * modules.dep lists mp3.ko and DKMS has no source of it.
	 */
	expect(file_contains(DAEMON_DIR "/ctl.stderr", "pfprofctl: the mp3 module is not loaded") &&
	       file_contains(DAEMON_DIR "/ctl.stderr", "pfprofctl: pfprof-dkms is not installed: "
			     "apt install pfprof-dkms (from a build tree: insmod module/mp3.ko)") &&
	       file_lines(DAEMON_DIR "/ctl.stderr") == 2,
	       "pfprofctl add did not say it, and its one cause, in two lines");
	rc = daemon_ctl(DAEMON_DIR "/status.out", "status", NULL, NULL);
	expect(rc == 3, "pfprofctl status without the module exited with %d, want 3", rc);
	expect(file_contains(DAEMON_DIR "/status.out", "not loaded") &&
	       file_contains(DAEMON_DIR "/status.out", "pfprof-dkms is not installed"),
	       "pfprofctl status did not say why");
	daemon = start_daemon();
	waitpid(daemon, &status, 0);
	expect(WIFEXITED(status) && WEXITSTATUS(status) == 3,
	       "pfprofd without the module: status %#x, want exit 3", status);
	expect(file_contains(STDERR_FILE, "modprobe mp3"), "pfprofd gave no hint");
	expect_ok(module_load(NULL), "insmod");
	rc = daemon_ctl(NULL, "frobnicate", NULL, NULL);
	expect(rc == 2, "an unknown command exited with %d, want 2", rc);
	rc = daemon_ctl(NULL, "add", "12x", NULL);
	expect(rc == 2, "add 12x exited with %d, want 2", rc);
}

void test_ctl_commands(void)
{
	struct mp3ring ring;
	struct sample_sum sum;
	struct worker w;
	pid_t daemon;
	char pid[16];
	int rc, fd, lines = 0;
	char line[1024];
	FILE *f;

	daemon_setup("");
	daemon = start_ready_daemon();
	map_ring(&ring, &fd);
	{
		char *argv[] = { "./pfprofctl", "--config", CONF, "run", "--", "./work", "-q",
				 "--pause", "0", "16", "R", "20000", NULL };

		rc = run_program(argv, NULL);
	}
	expect(rc == 0, "pfprofctl run -- ./work exited with %d", rc);
	sleep_ms(200);
	sum_samples(&ring, 0, mp3ring_head(&ring), &sum);
	expect(sum.minor >= 4096, "run: only %llu minor faults of work's 4096 pages profiled",
	       (unsigned long long)sum.minor);
	add_worker(&w);
	snprintf(pid, sizeof(pid), "%d", (int)w.pid);
	rc = daemon_ctl(DAEMON_DIR "/list.out", "list", NULL, NULL);
	expect(rc == 0 && file_contains(DAEMON_DIR "/list.out", "profiled, kept"),
	       "pfprofctl list: exit %d, no 'profiled, kept' line", rc);
	rc = daemon_ctl(DAEMON_DIR "/status.out", "status", NULL, NULL);
	expect(rc == 0 && file_contains(DAEMON_DIR "/status.out", "daemon:    running") &&
	       file_contains(DAEMON_DIR "/status.out", LOG_DIR "/" LOGFORMAT_FILE),
	       "pfprofctl status: exit %d or missing lines", rc);
	check_json(daemon, w.pid);
	rc = daemon_ctl(DAEMON_DIR "/follow.out", "follow", "--count", "5");
	expect(rc == 0, "pfprofctl follow --count 5 exited with %d", rc);
	f = fopen(DAEMON_DIR "/follow.out", "r");
	expect(f != NULL, "no follow output");
	while (fgets(line, sizeof(line), f))
		lines += line[0] != '#';
	fclose(f);
	expect(lines == 5, "follow --count 5 printed %d samples", lines);
	expect(daemon_ctl(NULL, "del", pid, NULL) == 0, "pfprofctl del failed");
	expect(!status_lists(w.pid) && !file_contains(PID_FILE, pid),
	       "pfprofctl del left PID %s registered or in the file", pid);
	stop_daemon(daemon);
	rc = daemon_ctl(DAEMON_DIR "/status.out", "status", NULL, NULL);
	expect(rc == 4, "pfprofctl status with no daemon exited with %d, want 4", rc);
	close(fd);
}

/* ---- pfprofctl top, which reads the records ---- */

struct top_row {
	int pid;
	char comm[32];
	double minor_s, major_s, cpu_pct;
};

/* The rows of `pfprofctl top -n 1` output, and the samples it says it read. */
static int parse_top(const char *path, uint64_t *first, uint64_t *last, struct top_row *rows,
		     int max)
{
	char line[256];
	unsigned long long a, b;
	int n = 0, lineno = 0;
	FILE *f = fopen(path, "re");

	expect(f, "%s: %s", path, strerror(errno));
	while (fgets(line, sizeof(line), f)) {
		lineno++;
		if (lineno == 1) {
			char *at = strstr(line, "samples ");

			expect(at && sscanf(at, "samples %llu..%llu", &a, &b) == 2,
			       "top's first line: %s", line);
			*first = a;
			*last = b;
		} else if (lineno > 3) {
			expect(n < max, "more than %d rows", max);
			expect(sscanf(line, "%d %31s %lf %lf %lf", &rows[n].pid, rows[n].comm,
				      &rows[n].minor_s, &rows[n].major_s, &rows[n].cpu_pct) == 5,
			       "top's row: %s", line);
			n++;
		}
	}
	fclose(f);
	return n;
}

/* The same from `pfprofctl top --json -n 1`: one line, one object, its processes. */
static int parse_top_json(const char *path, uint64_t *first, uint64_t *last,
			  struct top_row *rows, int max)
{
	struct json_object *o = json_read_line(path), *procs = json_at(o, "processes");
	struct json_object *targets = json_at(o, "targets");
	int n = (int)json_object_array_length(procs);

	*first = (uint64_t)json_number_at(o, "first_sample");
	*last = (uint64_t)json_number_at(o, "last_sample");
	expect(n <= max, "more than %d processes", max);
	for (int i = 0; i < n; i++) {
		struct json_object *p = json_object_array_get_idx(procs, i);

		rows[i].pid = (int)json_number_at(p, "pid");
		snprintf(rows[i].comm, sizeof(rows[i].comm), "%s",
			 json_object_get_string(json_at(p, "comm")));
		rows[i].minor_s = json_number_at(p, "minor_faults_per_s");
		rows[i].major_s = json_number_at(p, "major_faults_per_s");
		rows[i].cpu_pct = json_number_at(p, "cpu_percent");
	}
	/* Added by PID alone: one group without a target, of them all. */
	expect(json_object_array_length(targets) == 1 &&
	       json_number_at(json_object_array_get_idx(targets, 0), "processes") == n,
	       "targets: %s", json_object_to_json_string(targets));
	json_object_put(o);
	return n;
}

static bool close_to(double printed, double want)
{
	return fabs(printed - want) <= 0.051 + want * 1e-9;
}

/*
 * `pfprofctl top -n 1` (or with --json): every row is what the records of
 * its samples say.
 */
static void check_top(bool json)
{
	char window[16];
	char *text_argv[] = { "./pfprofctl", "top", "-n", "1", "-d", window, NULL };
	char *json_argv[] = { "./pfprofctl", "top", "--json", "-n", "1", "-d", window, NULL };
	char **argv = json ? json_argv : text_argv;
	struct top_row rows[8];
	struct worker w[2];
	struct mp3ring ring;
	struct mp3_ring_sample before, last;
	uint64_t first = 0, end = 0, next, missed = 0;
	pid_t sleeper = spawn_sleeper(), top;
	double seconds;
	int fd, n, status;

	/*
	 * Top's one window must hold the work below: 2 s, longer where the
	 * guest is slower (the work took longer than 2 s once, and its last
	 * worker had no records in the window).
	 */
	snprintf(window, sizeof(window), "%u", scaled_ms(2000) / 1000);
	map_ring(&ring, &fd);
	/* Asleep before it is registered: its start has no records in the window. */
	wait_blocked(sleeper, 5000);
	expect_ok(status_cmd('R', sleeper), "R sleeper");
	for (int i = 0; i < 2; i++) {
		worker_spawn(&w[i]);
		expect_ok(status_cmd('R', w[i].pid), "R worker");
	}
	wait_head(&ring, mp3ring_head(&ring) + 2, 2000);
	top = fork();
	expect(top >= 0, "fork: %s", strerror(errno));
	if (!top) {
		int out = open(TOP_OUT, O_WRONLY | O_CREAT | O_TRUNC, 0644);

		if (out < 0 || dup2(out, STDOUT_FILENO) < 0)
			_exit(126);
		execv(argv[0], argv);
		_exit(127);
	}
	/*
	 * Its window begins once it has mapped the ring: the work must come
	 * after, and two ticks later, or a slow start (the debug kernel) misses it.
	 */
	wait_ring_mapped(top, 10000);
	wait_head(&ring, mp3ring_head(&ring) + 2, 2000);
	worker_do(&w[0], 't', 4000);
	worker_do(&w[1], 'c', 200);
	expect(waitpid(top, &status, 0) == top && WIFEXITED(status) && !WEXITSTATUS(status),
	       "pfprofctl top -n 1 ended with status %#x", status);
	show_file(TOP_OUT, "top| ");
	n = (json ? parse_top_json : parse_top)(TOP_OUT, &first, &end, rows, 8);
	end++;
	next = first - 1;
	expect(mp3ring_read(&ring, &next, &before, &missed) == MP3RING_SAMPLE, "sample before");
	next = end - 1;
	expect(mp3ring_read(&ring, &next, &last, &missed) == MP3RING_SAMPLE, "last sample");
	seconds = (last.time_ns - before.time_ns) / 1e9;
	total_records(&ring, first, end, &records_seen);
	printf("  top_batch: samples %" PRIu64 "..%" PRIu64 " over %.2f s, %d rows\n", first,
	       end - 1, seconds, n);
	/* The sleeper has no records while it sleeps, and its row all the same. */
	expect(n == 3 && records_seen.nr == (active_only(&ring) ? 2 : 3),
	       "%d rows, %d processes in the records", n, records_seen.nr);
	for (int i = 0; i < n; i++) {
		struct proc_total *p = proc_of(&records_seen, rows[i].pid);

		expect(p->counts || rows[i].pid == sleeper, "row %d: PID %d has no records", i,
		       rows[i].pid);
		expect(close_to(rows[i].minor_s, p->minor / seconds) &&
		       close_to(rows[i].major_s, p->major / seconds) &&
		       close_to(rows[i].cpu_pct, p->cpu_ns / 1e7 / seconds),
		       "PID %d: top %.1f %.1f %.1f, records %.2f %.2f %.2f", rows[i].pid,
		       rows[i].minor_s, rows[i].major_s, rows[i].cpu_pct, p->minor / seconds,
		       p->major / seconds, p->cpu_ns / 1e7 / seconds);
		expect(!i || rows[i - 1].major_s > rows[i].major_s ||
		       (rows[i - 1].major_s == rows[i].major_s &&
			rows[i - 1].minor_s >= rows[i].minor_s), "row %d out of order", i);
	}
	expect(rows[0].pid == w[0].pid, "the page-touching worker is not first");
	close(fd);
}

void test_top_batch(void)
{
	check_top(false);
}

void test_top_json(void)
{
	check_top(true);
}

/* Rows of the last complete frame (lines between its home and clear-below); -1 if none. */
static int last_frame_rows(const char *screen)
{
	const char *end = NULL, *home = NULL, *p;
	int lines = 0;

	for (p = strstr(screen, "\033[J"); p; p = strstr(p + 1, "\033[J"))
		end = p;
	if (!end)
		return -1;
	for (p = screen; (p = strstr(p, "\033[H")) && p < end; p++)
		home = p;
	if (!home)
		return -1;
	for (p = home; p < end; p++)
		lines += *p == '\n';
	return lines - 3;
}

static bool top_drawn_12_rows(const char *screen)
{
	return strstr(screen, "\033[?1049h") && strstr(screen, "pfprof top:") &&
	       last_frame_rows(screen) == 12;
}

static bool top_drawn_4_rows(const char *screen)
{
	return last_frame_rows(screen) == 4;
}

/* On a terminal: the screen fills, follows a resize, and q restores it. */
void test_top_terminal(void)
{
	struct winsize ws = { .ws_row = 24, .ws_col = 80 };
	static char screen[SCREEN_MAX];
	pid_t sleepers[12], top;
	int master;
	size_t len = 0;

	for (int i = 0; i < 12; i++) {
		sleepers[i] = spawn_sleeper();
		expect_ok(status_cmd('R', sleepers[i]), "R sleeper");
	}
	top = forkpty(&master, NULL, NULL, &ws);
	expect(top >= 0, "forkpty: %s", strerror(errno));
	if (!top) {
		execl("./pfprofctl", "pfprofctl", "top", "-d", "0.2", (char *)NULL);
		_exit(127);
	}
	len = pty_read_until(master, screen, len, top_drawn_12_rows, 10000);
	expect(strstr(screen, "\033[?1049h") && strstr(screen, "pfprof top:"),
	       "no top screen on the terminal: %.200s", screen);
	expect(last_frame_rows(screen) == 12, "%d rows for 12 processes on 24 lines",
	       last_frame_rows(screen));
	ws.ws_row = 8;
	expect(!ioctl(master, TIOCSWINSZ, &ws), "resizing: %s", strerror(errno));
	/* 3 header lines, 4 rows, the last line left empty. */
	len = pty_read_until(master, screen, len, top_drawn_4_rows, 10000);
	expect(last_frame_rows(screen) == 4, "%d rows on 8 lines, want 4", last_frame_rows(screen));
	pty_expect_quit(master, top, screen, len, "top");
}

#define PHYSICAL_CGROUP CGROUP_ROOT "/pfprof-physical"

/* The "MEMORY ANON" MiB of pfprofctl physical's row of owner; false if none. */
static bool physical_row(const char *path, const char *owner, double *memory, double *anon)
{
	char line[512], label[300];
	bool found = false;
	FILE *f = fopen(path, "r");

	while (f && !found && fgets(line, sizeof(line), f))
		found = sscanf(line, "%lf %lf %*f %*f %*f %*f%% %299[^\n]", memory, anon, label) == 3 &&
			!strcmp(label, owner);
	if (f)
		fclose(f);
	return found;
}

/* A cgroup's memory.stat field, in bytes; -1 if none. */
static double memory_stat(const char *cgroup, const char *field)
{
	char path[256], line[128];
	double value = -1;
	size_t len = strlen(field);
	FILE *f;

	snprintf(path, sizeof(path), "%s/memory.stat", cgroup);
	f = fopen(path, "r");
	while (f && fgets(line, sizeof(line), f))
		if (!strncmp(line, field, len) && line[len] == ' ')
			value = strtod(line + len + 1, NULL);
	if (f)
		fclose(f);
	return value;
}

/*
 * pfprofctl physical, root, on a process of a cgroup of its own that wrote
 * 64 MiB: the cgroup's row (labelled by its path, being no target) has its
 * anonymous memory as memory.stat's anon has it, within 1 %, read frame by
 * frame from /proc/kpagecgroup and /proc/kpageflags (the picture is the
 * host tests': the guest has no gnuplot).
 */
void test_ctl_physical(void)
{
	double memory = 0, anon = 0, stat_anon;
	pid_t child;
	uintptr_t addr;
	int go, back, rc;

	mount_cgroup2(CGROUP_ROOT);
	if (!file_contains(CGROUP_ROOT "/cgroup.controllers", "memory")) {
		printf("  ctl_physical: not run: no memory cgroups\n");
		return;
	}
	/* Where pfprofctl looks for it, as systemd mounts it; the same hierarchy. */
	mount_cgroup2("/sys/fs/cgroup");
	make_cgroup(PHYSICAL_CGROUP);
	write_file(CGROUP_ROOT "/cgroup.subtree_control", "+memory");
	child = spawn_piped(region_child, &go, &back);
	move_to_cgroup(PHYSICAL_CGROUP, child);
	expect(write(go, "g", 1) == 1 && read(back, &addr, sizeof(addr)) == sizeof(addr),
	       "the child did not touch its region");
	{
		char *argv[] = { "./pfprofctl", "physical", "-n", "1000", NULL };

		rc = run_program_err(argv, "/tmp/physical.out", "/tmp/physical.err");
	}
	stat_anon = memory_stat(PHYSICAL_CGROUP, "anon") / (1 << 20);
	if (rc)
		show_file("/tmp/physical.err", "  ctl_physical| ");
	expect(rc == 0 && physical_row("/tmp/physical.out", "pfprof-physical", &memory, &anon),
	       "pfprofctl physical: exit %d, no row pfprof-physical", rc);
	printf("  ctl_physical: the cgroup's row: %.1f MiB, %.1f MiB anonymous; memory.stat's "
	       "anon %.1f MiB\n", memory, anon, stat_anon);
	expect(stat_anon >= 64 && within_pct(anon, stat_anon, 1) && memory >= anon,
	       "pfprofctl physical: %.1f MiB anonymous of %.1f, memory.stat's anon %.1f MiB",
	       anon, memory, stat_anon);
	kill_and_reap(child);
	close(go);
	close(back);
	expect(!rmdir(PHYSICAL_CGROUP), "rmdir %s: %s", PHYSICAL_CGROUP, strerror(errno));
	umount("/sys/fs/cgroup");
}
