// SPDX-License-Identifier: GPL-2.0
/* pfprofd and pfprofctl against the real module. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <pty.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "harness.h"
#include "jsonout.h"
#include "logformat.h"
#include "psi.h"
#include "stalls.h"
#include "tests.h"

#define DIR "/tmp/pfprof"
#define CONF DIR "/pfprofd.conf"
#define LOG_DIR DIR "/log"
#define PID_FILE DIR "/pids"
#define RUN_DIR DIR "/run"
#define STATE_DIR DIR "/state"
#define STDERR_FILE DIR "/pfprofd.stderr"
#define MAX_LINES 20000
#define MAX_FILES 1000

struct log_line {
	unsigned long long seq, jiffies, minor, major, minor_total, major_total;
	unsigned long long sys_pgmajfault, sys_pswpin, sys_pswpout;
	double wall, mono, cpu_ms, cpu_total_ms;
	unsigned int procs;
	bool psi;		/* the memory pressure columns are numbers, not "-" */
};

struct log_summary {
	struct log_line *lines;	/* samples, oldest first */
	int count;
	int files;
	int missed_markers;
	int load_id_lines;
};

static void write_text(const char *path, const char *text, const char *mode)
{
	FILE *f = fopen(path, mode);

	if (!f || fputs(text, f) < 0 || fclose(f))
		fail("writing %s: %s", path, strerror(errno));
}

/* A fresh directory and a config pointing everything into it. */
static void setup(const char *extra_config)
{
	char conf[1024];
	char *argv[] = { "/bin/rm", "-rf", DIR, NULL };

	run_program(argv, NULL);
	if (mkdir(DIR, 0755) || mkdir(LOG_DIR, 0755) || mkdir(STATE_DIR, 0755))
		fail("mkdir %s: %s", DIR, strerror(errno));
	snprintf(conf, sizeof(conf),
		 "# written by the guest test\nlog_dir = %s\ntargets_file = %s\nruntime_dir = %s\n"
		 "state_dir = %s\n%s", LOG_DIR, PID_FILE, RUN_DIR, STATE_DIR, extra_config);
	write_text(CONF, conf, "w");
}

static pid_t start_daemon(void)
{
	pid_t pid = fork();

	if (pid < 0)
		fail("fork: %s", strerror(errno));
	if (pid == 0) {
		int fd = open(STDERR_FILE, O_WRONLY | O_CREAT | O_APPEND, 0644);

		if (fd < 0 || dup2(fd, STDERR_FILENO) < 0)
			_exit(126);
		execl("./pfprofd", "pfprofd", "--foreground", "--config", CONF, (char *)NULL);
		_exit(127);
	}
	return pid;
}

/*
 * pfprofd writes its state file once it is ready (log open, device mapped).
 * Its first start after boot loads libsystemd from a cold page cache: on
 * the debug kernel under TCG that alone was seen to take over 5 s. 15 s,
 * below the shortest daemon test's own limit (20 s), so that what it was
 * doing is shown before the runner ends the test.
 */
static void wait_ready(pid_t daemon)
{
	uint64_t start = now_ns(), deadline = start + 15000000000ULL;
	char path[64];

	while (access(RUN_DIR "/state", F_OK)) {
		expect(waitpid(daemon, NULL, WNOHANG) == 0, "pfprofd exited before it was ready");
		if (now_ns() >= deadline) {
			printf("  pfprofd's messages, then where it waits in the kernel:\n");
			show_file(STDERR_FILE, "stderr: ");
			snprintf(path, sizeof(path), "/proc/%d/stack", (int)daemon);
			/* A kernel without CONFIG_STACKTRACE has no such file. */
			if (!access(path, R_OK))
				show_file(path, "stack: ");
			fail("pfprofd not ready after 15 s");
		}
		sleep_ms(10);
	}
	if (now_ns() - start > 2000000000ULL)
		printf("  pfprofd was ready after %.1f s\n", (now_ns() - start) / 1e9);
}

static pid_t start_ready_daemon(void)
{
	pid_t pid;

	unlink(RUN_DIR "/state");
	pid = start_daemon();
	wait_ready(pid);
	return pid;
}

static void stop_daemon(pid_t pid)
{
	int status;

	kill(pid, SIGTERM);
	expect(waitpid(pid, &status, 0) == pid, "waitpid pfprofd: %s", strerror(errno));
	expect(WIFEXITED(status) && WEXITSTATUS(status) == 0,
	       "pfprofd stopped with status %#x on SIGTERM", status);
}

/* Runs pfprofctl with the test config; stdout to out (may be NULL). */
static int ctl(const char *out, const char *a1, const char *a2, const char *a3)
{
	char *argv[] = { "./pfprofctl", "--config", CONF, (char *)a1, (char *)a2, (char *)a3,
			 NULL };

	return run_program_err(argv, out, DIR "/ctl.stderr");
}

/* status --json and list --json say, as fields, what the text says. */
static void check_json(pid_t daemon, pid_t worker)
{
	struct json_object *o, *procs;
	bool found = false;
	int rc = ctl(DIR "/status.json", "status", "--json", NULL);

	expect(rc == 0, "pfprofctl status --json exited with %d", rc);
	o = json_read_line(DIR "/status.json");
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
	expect(ctl(DIR "/list.json", "list", "--json", NULL) == 0, "pfprofctl list --json failed");
	o = json_read_line(DIR "/list.json");
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

/* The waits of a sample line: all numbers (delay accounting on) or all "-". */
static void check_waits(const char *path, int lineno, const char *text)
{
	char word[STALL_KINDS][16];
	int numbers = 0, end = 0;
	double ms;

	if (sscanf(text, " %15s %15s %15s %15s %15s%n", word[0], word[1], word[2], word[3],
		   word[4], &end) != STALL_KINDS || strcmp(text + end, "\n"))
		fail("%s:%d: not five waits: '%s'", path, lineno, text);
	for (int k = 0; k < STALL_KINDS; k++)
		numbers += sscanf(word[k], "%lf", &ms) == 1 && ms >= 0;
	for (int k = 0; numbers != STALL_KINDS && k < STALL_KINDS; k++)
		expect(!strcmp(word[k], "-"), "%s:%d: waits neither all known nor all '-': '%s'",
		       path, lineno, text);
}

/* A sample line of log format 3, from a version 2 module or newer: the system counters are numbers. */
static void parse_sample(const char *path, int lineno, const char *line, struct log_line *l)
{
	char some[16], full[16];
	double psi;
	int end = 0;

	if (sscanf(line, "%llu %lf %lf %llu %llu %llu %lf %u %llu %llu %lf %llu %llu %llu %15s %15s%n",
		   &l->seq, &l->wall, &l->mono, &l->jiffies, &l->minor, &l->major, &l->cpu_ms,
		   &l->procs, &l->minor_total, &l->major_total, &l->cpu_total_ms,
		   &l->sys_pgmajfault, &l->sys_pswpin, &l->sys_pswpout, some, full, &end) != 16)
		fail("%s:%d: not a whole sample line: '%s'", path, lineno, line);
	check_waits(path, lineno, line + end);
	l->psi = sscanf(some, "%lf", &psi) == 1 && sscanf(full, "%lf", &psi) == 1;
	expect(l->psi || (!strcmp(some, "-") && !strcmp(full, "-")),
	       "%s:%d: memory pressure '%s' '%s'", path, lineno, some, full);
}

/* False if the file is gone: a running pfprofd rotated it away meanwhile. */
static bool read_one_log(const char *path, struct log_summary *sum)
{
	char line[4096];	/* the header's units line is the longest */
	int lineno = 0;
	FILE *f = fopen(path, "r");

	if (!f && errno == ENOENT)
		return false;
	if (!f)
		fail("open %s: %s", path, strerror(errno));
	sum->files++;
	while (fgets(line, sizeof(line), f)) {
		lineno++;
		expect(strchr(line, '\n'), "%s:%d: torn line '%s'", path, lineno, line);
		if (!strncmp(line, "# missed ", 9))
			sum->missed_markers++;
		if (!strncmp(line, "# load_id ", 10))
			sum->load_id_lines++;
		if (line[0] == '#')
			continue;
		expect(sum->count < MAX_LINES, "more than %d samples logged", MAX_LINES);
		parse_sample(path, lineno, line, &sum->lines[sum->count++]);
	}
	fclose(f);
	return true;
}

/* Reads every log file, oldest first; false if one was rotated away meanwhile. */
static bool read_logs_once(struct log_summary *sum)
{
	char path[256];

	memset(sum, 0, sizeof(*sum));
	sum->lines = calloc(MAX_LINES, sizeof(*sum->lines));
	expect(sum->lines != NULL, "out of memory");
	for (int i = MAX_FILES; i >= 0; i--) {
		expect(!logformat_path(path, sizeof(path), LOG_DIR, LOGKIND_SAMPLES, i),
		       "log file %d: name too long", i);
		if (!access(path, F_OK) && !read_one_log(path, sum)) {
			free(sum->lines);
			return false;
		}
	}
	return true;
}

/* The logs as they are; read again when a running pfprofd rotates them under us. */
static void read_logs(struct log_summary *sum)
{
	for (int tries = 0; !read_logs_once(sum); tries++)
		expect(tries < 100, "the logs kept changing while being read");
}

/* Every sample exactly once, in order, times moving forward. */
static void expect_continuous(const struct log_summary *sum, const char *when)
{
	expect(sum->count > 0, "%s: no samples logged", when);
	for (int i = 1; i < sum->count; i++) {
		const struct log_line *a = &sum->lines[i - 1], *b = &sum->lines[i];

		expect(b->seq == a->seq + 1, "%s: seq %llu follows %llu", when, b->seq, a->seq);
		expect(b->mono > a->mono && b->jiffies >= a->jiffies,
		       "%s: time goes backwards at seq %llu", when, b->seq);
	}
	expect(sum->missed_markers == 0, "%s: %d missed-sample markers", when,
	       sum->missed_markers);
}

/* The seq of the last sample logged, -1 if none. */
static long long last_seq_logged(void)
{
	struct log_summary sum;
	long long seq;

	read_logs(&sum);
	seq = sum.count ? (long long)sum.lines[sum.count - 1].seq : -1;
	free(sum.lines);
	return seq;
}

/* Waits until the logs hold sample seq; returns the milliseconds it took. */
static double wait_logged(long long seq, unsigned int timeout_ms)
{
	uint64_t start = now_ns();

	while (last_seq_logged() < seq) {
		expect(now_ns() - start < timeout_ms * 1000000ULL,
		       "sample %lld not logged within %u ms", seq, timeout_ms);
		sleep_ms(10);
	}
	return (now_ns() - start) / 1e6;
}

/* Logs for a while, then waits until the daemon has caught up. */
static void log_for(unsigned int ms)
{
	struct mp3ring ring;
	int fd;

	sleep_ms(ms);
	map_ring(&ring, &fd);
	/* A batch waits up to write_interval (1 s); a slow kernel needs more. */
	wait_logged((long long)mp3ring_head(&ring) - 1, 5000);
	mp3ring_unmap(&ring);
	close(fd);
}

static pid_t add_worker(struct worker *w)
{
	char pid[16];

	worker_spawn(w);
	snprintf(pid, sizeof(pid), "%d", (int)w->pid);
	expect(ctl(NULL, "add", pid, NULL) == 0, "pfprofctl add %s failed", pid);
	return w->pid;
}

/* The system counters never go back; memory pressure is there when the kernel has PSI. */
static void expect_system_columns(const struct log_summary *sum)
{
	struct psi_memory psi;
	bool have_psi = !psi_read(PSI_MEMORY_PATH, &psi);

	printf("  daemon_logs_samples: last line: sys_pgmajfault %llu, %s\n",
	       sum->lines[sum->count - 1].sys_pgmajfault,
	       have_psi ? "memory pressure logged" : "no PSI in this kernel: '-' logged");
	for (int i = 0; i < sum->count; i++) {
		expect(sum->lines[i].psi == have_psi, "seq %llu: memory pressure %s, PSI %s",
		       sum->lines[i].seq, sum->lines[i].psi ? "logged" : "'-'",
		       have_psi ? "readable" : "absent");
		expect(!i || (sum->lines[i].sys_pgmajfault >= sum->lines[i - 1].sys_pgmajfault &&
			      sum->lines[i].sys_pswpin >= sum->lines[i - 1].sys_pswpin &&
			      sum->lines[i].sys_pswpout >= sum->lines[i - 1].sys_pswpout),
		       "seq %llu: system counters went back", sum->lines[i].seq);
	}
}

/*
 * The per-process log has, for every sample of the samples log, one line
 * per process summed into it, adding up to the sample: a line for each
 * sample the worker ran in, none for those it slept through (one file: no
 * rotation in this test).
 */
static void expect_procs_log(const struct log_summary *sum, pid_t worker)
{
	char line[4096], comm[64], path[PATH_MAX];
	unsigned long long seq, minor, major;
	int i = 0, lines = 0, pid;
	unsigned int target;
	double wall, cpu_ms;
	FILE *f;

	expect(!logformat_path(path, sizeof(path), LOG_DIR, LOGKIND_PROCS, 0), "name too long");
	f = fopen(path, "r");
	expect(f, "%s: %s", path, strerror(errno));
	while (fgets(line, sizeof(line), f)) {
		if (line[0] == '#')
			continue;
		expect(sscanf(line, "%llu\t%lf\t%d\t%63[^\t]\t%llu\t%llu\t%lf\t%u", &seq, &wall,
			      &pid, comm, &minor, &major, &cpu_ms, &target) == 8,
		       "%s: not a line: %s", path, line);
		/* pfprofctl add registers by PID alone: no target. */
		expect(target == 0, "%s: seq %llu: target %u, want 0", path, seq, target);
		for (; i < sum->count && sum->lines[i].seq < seq; i++)
			expect(!sum->lines[i].procs, "%s: no line for seq %llu, a sample of %u processes",
			       path, sum->lines[i].seq, sum->lines[i].procs);
		expect(i < sum->count && sum->lines[i].seq == seq && sum->lines[i].procs == 1,
		       "%s: seq %llu is no one-process sample of the samples log", path, seq);
		expect(pid == worker && minor == sum->lines[i].minor &&
		       major == sum->lines[i].major && fabs(cpu_ms - sum->lines[i].cpu_ms) < 0.0015,
		       "%s: seq %llu: PID %d %llu minor %llu major %.3f ms, the sample %llu %llu "
		       "%.3f", path, seq, pid, minor, major, cpu_ms, sum->lines[i].minor,
		       sum->lines[i].major, sum->lines[i].cpu_ms);
		i++;
		lines++;
	}
	fclose(f);
	for (; i < sum->count; i++)
		expect(!sum->lines[i].procs, "%s: no line for seq %llu, a sample of %u processes",
		       path, sum->lines[i].seq, sum->lines[i].procs);
	printf("  daemon_logs_samples: %d per-process lines for %d samples, the worker '%s'\n",
	       lines, sum->count, comm);
	expect(lines > 1 && lines < sum->count, "%d per-process lines for %d samples: want one"
	       " when it was registered, those of its work, none while it slept", lines,
	       sum->count);
}

void test_daemon_logs_samples(void)
{
	struct log_summary sum;
	struct worker w;
	char pid[16];
	double ms;
	pid_t daemon;

	setup("");
	daemon = start_ready_daemon();
	add_worker(&w);
	ms = wait_logged(0, 1000);
	printf("  daemon_logs_samples: first sample logged %.0f ms after pfprofctl add\n", ms);
	snprintf(pid, sizeof(pid), "%d", (int)w.pid);
	expect(status_lists(w.pid), "pfprofctl add did not register PID %s", pid);
	expect(file_contains(PID_FILE, pid), "pfprofctl add did not write %s", PID_FILE);
	worker_do(&w, 't', 1000);
	log_for(500);
	stop_daemon(daemon);
	read_logs(&sum);
	expect_continuous(&sum, "one run");
	expect(sum.lines[0].seq == 0 && sum.lines[0].procs == 1,
	       "first sample logged is %llu (%u processes)", sum.lines[0].seq, sum.lines[0].procs);
	expect(sum.lines[sum.count - 1].minor_total >= 1000,
	       "the worker's 1000 faults are not in the log");
	expect(file_contains(LOG_DIR "/" LOGFORMAT_FILE, "# columns: seq wall_time_s monotonic_s jiffies"),
	       "the log has no column header");
	expect_system_columns(&sum);
	expect_procs_log(&sum, w.pid);
}

/* pfprofd's voluntary context switches: it sleeps once per wakeup. */
static unsigned long long daemon_sleeps(pid_t daemon)
{
	char path[64];

	snprintf(path, sizeof(path), "/proc/%d/status", (int)daemon);
	return proc_key_value(path, "voluntary_ctxt_switches");
}

struct wakeups {
	unsigned long long samples, sleeps;
};

/* How often pfprofd, with extra_config, sleeps over ms while samples come. */
static struct wakeups wakeups_over(const char *extra_config, unsigned int ms)
{
	unsigned long long head, sleeps;
	struct mp3ring ring;
	struct wakeups got;
	struct worker w;
	pid_t daemon;
	int fd;

	setup(extra_config);
	daemon = start_ready_daemon();
	add_worker(&w);
	/* Past the start: the first sample is written at once, then batching begins. */
	wait_logged(10, 5000);
	map_ring(&ring, &fd);
	head = mp3ring_head(&ring);
	sleeps = daemon_sleeps(daemon);
	sleep_ms(ms);
	got.sleeps = daemon_sleeps(daemon) - sleeps;
	got.samples = mp3ring_head(&ring) - head;
	mp3ring_unmap(&ring);
	close(fd);
	stop_daemon(daemon);
	kill_and_reap(w.pid);
	return got;
}

void test_daemon_wakeups(void)
{
	const unsigned int seconds = 4;
	struct wakeups batched = wakeups_over("", seconds * 1000);
	struct wakeups each = wakeups_over("write_interval = 0\n", seconds * 1000);

	printf("  daemon_wakeups: over %u s, write_interval = 1s: %llu wakeups for %llu samples; write_interval = 0: %llu for %llu\n",
	       seconds, batched.sleeps, batched.samples, each.sleeps, each.samples);
	expect(batched.samples >= seconds * 15 && each.samples >= seconds * 15,
	       "only %llu and %llu samples in %u s", batched.samples, each.samples, seconds);
	/*
	 * A batch a second, the status refreshed at a batch's wakeup: 4, 5 at
	 * the edges, and 2 to spare for other sleeps on a slow kernel; one per
	 * sample would be 80.
	 */
	expect(batched.sleeps <= seconds + 3,
	       "pfprofd woke %llu times in %u s with write_interval = 1s", batched.sleeps, seconds);
	/* A slow kernel may hand it two samples at a wakeup, never many. */
	expect(each.sleeps >= each.samples / 2,
	       "pfprofd woke only %llu times for %llu samples with write_interval = 0",
	       each.sleeps, each.samples);
}

void test_daemon_rotation(void)
{
	struct log_summary sum;
	struct worker w;
	pid_t daemon;

	/*
	 * Format 2's header alone is about 1 KiB: 2K holds it and a dozen
	 * samples, and 4 s of them about 8 files, none deleted. keep = 1000,
	 * the most there may be: pfprofd's start reads the directory once for
	 * them (it had looked up all 3000 names, 15 s on the debug kernel).
	 */
	setup("rotate_size = 2K\nkeep = 1000\n");
	daemon = start_ready_daemon();
	add_worker(&w);
	log_for(4000);
	stop_daemon(daemon);
	read_logs(&sum);
	printf("  daemon_rotation: %d samples in %d files\n", sum.count, sum.files);
	expect(sum.files >= 5, "only %d files with rotate_size = 2K", sum.files);
	expect(sum.load_id_lines == sum.files, "%d files but %d load_id lines", sum.files,
	       sum.load_id_lines);
	expect_continuous(&sum, "across rotations");
}

void test_daemon_restart_resumes(void)
{
	struct log_summary sum;
	struct worker w;
	pid_t daemon;
	int killed_at;

	setup("");
	daemon = start_ready_daemon();
	add_worker(&w);
	log_for(1000);
	kill(daemon, SIGKILL);
	waitpid(daemon, NULL, 0);
	killed_at = (int)last_seq_logged();
	/* What a kill in the middle of a write would have left. */
	write_text(LOG_DIR "/" LOGFORMAT_FILE, "123456 17", "a");
	sleep_ms(500);
	daemon = start_ready_daemon();
	log_for(1000);
	stop_daemon(daemon);
	read_logs(&sum);
	printf("  daemon_restart_resumes: killed after sample %d, %d samples logged in all\n",
	       killed_at, sum.count);
	expect(sum.lines[sum.count - 1].seq > (unsigned long long)killed_at + 10,
	       "nothing logged after the restart");
	expect_continuous(&sum, "across kill -9 and restart");
	expect(file_contains(STDERR_FILE, "resuming after sample"),
	       "pfprofd did not say where it resumed");
}

void test_daemon_module_reload(void)
{
	struct log_summary sum;
	struct worker w;
	pid_t daemon, pid;

	setup("");
	daemon = start_ready_daemon();
	pid = add_worker(&w);
	log_for(300);
	stop_daemon(daemon);
	expect_ok(module_unload(), "rmmod once pfprofd has stopped");
	expect_ok(module_load(NULL), "insmod again");
	expect(!status_lists(pid), "a fresh module lists PID %d", (int)pid);
	daemon = start_ready_daemon();
	expect(status_lists(pid), "pfprofd did not register PID %d again", (int)pid);
	log_for(300);
	stop_daemon(daemon);
	read_logs(&sum);
	expect(sum.load_id_lines == 2, "%d load_id lines for two module loads", sum.load_id_lines);
	for (int i = 1; i < sum.count; i++)
		expect(sum.lines[i].seq == sum.lines[i - 1].seq + 1 || sum.lines[i].seq == 0,
		       "seq %llu follows %llu", sum.lines[i].seq, sum.lines[i - 1].seq);
}

void test_daemon_pid_file(void)
{
	struct worker live, later;
	pid_t dead = spawn_sleeper(), daemon;
	char text[64];

	setup("");
	kill_and_reap(dead);
	worker_spawn(&live);
	snprintf(text, sizeof(text), "# kept\n%d\n%d\n", (int)dead, (int)live.pid);
	write_text(PID_FILE, text, "w");
	daemon = start_ready_daemon();
	expect(status_lists(live.pid), "the live PID %d from the file is not registered",
	       (int)live.pid);
	snprintf(text, sizeof(text), "%d\n", (int)dead);
	expect(!file_contains(PID_FILE, text), "dead PID %d still in %s", (int)dead, PID_FILE);
	expect(file_contains(PID_FILE, "# kept"), "the comment in %s was lost", PID_FILE);
	expect(file_contains(STDERR_FILE, "has exited"), "dropping the dead PID was not logged");
	/* Editing the file by hand is noticed (inotify). */
	worker_spawn(&later);
	snprintf(text, sizeof(text), "%d\n", (int)later.pid);
	write_text(PID_FILE, text, "a");
	for (int i = 0; i < 100 && !status_lists(later.pid); i++)
		sleep_ms(10);
	expect(status_lists(later.pid), "PID %d appended to %s was not registered within 1 s",
	       (int)later.pid, PID_FILE);
	stop_daemon(daemon);
}

/*
 * pfprofctl add --tree: the tree is registered with its present child and
 * kept in the targets file; after a module reload pfprofd registers it again,
 * child included; del --tree drops both, and the line.
 */
void test_daemon_tree_kept(void)
{
	pid_t child, root = spawn_root_with_child(&child), daemon;
	char arg[16], line[32];
	int rc;

	setup("");
	daemon = start_ready_daemon();
	snprintf(arg, sizeof(arg), "%d", (int)root);
	snprintf(line, sizeof(line), "tree %d\n", (int)root);
	rc = ctl(NULL, "add", "--tree", arg);
	expect(rc == 0 && status_lists(root) && status_lists(child),
	       "pfprofctl add --tree: exit %d, root listed %d, child listed %d", rc,
	       status_lists(root), status_lists(child));
	expect(file_contains(PID_FILE, line), "no line '%.*s' in %s", (int)strlen(line) - 1, line,
	       PID_FILE);
	rc = ctl(DIR "/list.out", "list", NULL, NULL);
	expect(rc == 0 && file_contains(DIR "/list.out", "kept, 2 processes profiled"),
	       "pfprofctl list: exit %d, no 'kept, 2 processes profiled'", rc);
	stop_daemon(daemon);
	expect_ok(module_unload(), "rmmod once pfprofd has stopped");
	expect_ok(module_load(NULL), "insmod again");
	daemon = start_ready_daemon();
	expect(status_lists(root) && status_lists(child),
	       "after a module reload: root listed %d, child listed %d", status_lists(root),
	       status_lists(child));
	rc = ctl(NULL, "del", "--tree", arg);
	expect(rc == 0 && !status_lists(root) && !status_lists(child) &&
	       !file_contains(PID_FILE, line),
	       "pfprofctl del --tree: exit %d, still listed or in the file", rc);
	stop_daemon(daemon);
	kill(child, SIGKILL);
	kill_and_reap(root);
}

#define USER_COMM "mp3-ctluser"
#define USER_COMM_ID 4242

/*
 * pfprofctl add --comm --user: one user's processes of a name, now and, from
 * the targets file, after a module reload; another user's program of that
 * name never; del with the same --user ends it.
 */
void test_daemon_user_comm(void)
{
	pid_t service = spawn_user_named(USER_COMM_ID, USER_COMM), daemon;
	pid_t impostor = spawn_user_named(NOBODY_ID, USER_COMM);
	const char *line = "user=4242 comm " USER_COMM "\n";
	int rc;

	setup("");
	daemon = start_ready_daemon();
	rc = ctl(NULL, "add", "--user=4242", "--comm=" USER_COMM);
	expect(rc == 0 && status_lists(service) && !status_lists(impostor),
	       "pfprofctl add --comm --user: exit %d, uid %d's listed %d, uid %d's listed %d", rc,
	       USER_COMM_ID, status_lists(service), NOBODY_ID, status_lists(impostor));
	expect(file_contains(PID_FILE, line), "no line '%.*s' in %s", (int)strlen(line) - 1, line,
	       PID_FILE);
	stop_daemon(daemon);
	expect_ok(module_unload(), "rmmod once pfprofd has stopped");
	expect_ok(module_load(NULL), "insmod again");
	daemon = start_ready_daemon();
	wait_listed(service, 5000);
	expect(!status_lists(impostor), "after a module reload, uid %d's %s joined", NOBODY_ID,
	       USER_COMM);
	rc = ctl(NULL, "del", "--user=4242", "--comm=" USER_COMM);
	expect(rc == 0 && !status_lists(service) && !file_contains(PID_FILE, line),
	       "pfprofctl del --comm --user: exit %d, still listed or in the file", rc);
	stop_daemon(daemon);
	kill_and_reap(service);
	kill_and_reap(impostor);
}

void test_daemon_bad_config(void)
{
	pid_t daemon;

	setup("bogus = 1\nrotate_size = lots\nkeep = 3\n");
	daemon = start_ready_daemon();
	stop_daemon(daemon);
	/* setup() writes a comment and four keys before these lines. */
	expect(file_contains(STDERR_FILE, CONF ":6:") && file_contains(STDERR_FILE, "bogus"),
	       "the unknown key on line 6 was not reported with file and line");
	expect(file_contains(STDERR_FILE, CONF ":7:") && file_contains(STDERR_FILE, "lots"),
	       "the bad value on line 7 was not reported with file and line");
}

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
	write_text(DELAYACCT_SYSCTL, value, "w");
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
		setup("");
		daemon = start_ready_daemon();
		stop_daemon(daemon);
		printf("  daemon_delay_accounting: no %s here: pfprofd ran without it\n",
		       DELAYACCT_SYSCTL);
		return;
	}
	set_delayacct("0\n");
	setup("");
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
	setup("");
	daemon = start_ready_daemon();
	stop_daemon(daemon);
	expect(delayacct_is(1), "on before: turned off by pfprofd");

	set_delayacct("0\n");
	setup("delay_accounting = leave\n");
	daemon = start_ready_daemon();
	expect(delayacct_is(0), "delay_accounting = leave: turned on");
	stop_daemon(daemon);
}

void test_ctl_without_module(void)
{
	pid_t daemon;
	int status, rc;

	setup("");
	expect_ok(module_unload(), "rmmod");
	rc = ctl(NULL, "add", "1", NULL);
	expect(rc == 3, "pfprofctl add without the module exited with %d, want 3", rc);
	/*
	 * One line, as status says it: load it (modprobe), or, as here where
	 * no modules.dep lists mp3.ko, how to have it (insmod from a build tree).
	 */
	expect(file_contains(DIR "/ctl.stderr", "pfprofctl: the mp3 module is not loaded") &&
	       (file_contains(DIR "/ctl.stderr", "modprobe mp3") ||
		file_contains(DIR "/ctl.stderr", "insmod module/mp3.ko")) &&
	       file_lines(DIR "/ctl.stderr") == 1, "pfprofctl add did not say it in one line");
	rc = ctl(DIR "/status.out", "status", NULL, NULL);
	expect(rc == 3, "pfprofctl status without the module exited with %d, want 3", rc);
	expect(file_contains(DIR "/status.out", "not loaded"), "pfprofctl status did not say why");
	daemon = start_daemon();
	waitpid(daemon, &status, 0);
	expect(WIFEXITED(status) && WEXITSTATUS(status) == 3,
	       "pfprofd without the module: status %#x, want exit 3", status);
	expect(file_contains(STDERR_FILE, "modprobe mp3"), "pfprofd gave no hint");
	expect_ok(module_load(NULL), "insmod");
	rc = ctl(NULL, "frobnicate", NULL, NULL);
	expect(rc == 2, "an unknown command exited with %d, want 2", rc);
	rc = ctl(NULL, "add", "12x", NULL);
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

	setup("");
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
	rc = ctl(DIR "/list.out", "list", NULL, NULL);
	expect(rc == 0 && file_contains(DIR "/list.out", "profiled, kept"),
	       "pfprofctl list: exit %d, no 'profiled, kept' line", rc);
	rc = ctl(DIR "/status.out", "status", NULL, NULL);
	expect(rc == 0 && file_contains(DIR "/status.out", "daemon:    running") &&
	       file_contains(DIR "/status.out", LOG_DIR "/" LOGFORMAT_FILE),
	       "pfprofctl status: exit %d or missing lines", rc);
	check_json(daemon, w.pid);
	rc = ctl(DIR "/follow.out", "follow", "--count", "5");
	expect(rc == 0, "pfprofctl follow --count 5 exited with %d", rc);
	f = fopen(DIR "/follow.out", "r");
	expect(f != NULL, "no follow output");
	while (fgets(line, sizeof(line), f))
		lines += line[0] != '#';
	fclose(f);
	expect(lines == 5, "follow --count 5 printed %d samples", lines);
	expect(ctl(NULL, "del", pid, NULL) == 0, "pfprofctl del failed");
	expect(!status_lists(w.pid) && !file_contains(PID_FILE, pid),
	       "pfprofctl del left PID %s registered or in the file", pid);
	stop_daemon(daemon);
	rc = ctl(DIR "/status.out", "status", NULL, NULL);
	expect(rc == 4, "pfprofctl status with no daemon exited with %d, want 4", rc);
	close(fd);
}

/* Fills the file system holding path until it refuses more. */
static void fill_up(const char *path)
{
	static const char block[4096];
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);

	expect(fd >= 0, "open %s: %s", path, strerror(errno));
	while (write(fd, block, sizeof(block)) > 0)
		;
	expect(errno == ENOSPC, "filling %s: %s", path, strerror(errno));
	close(fd);
}

void test_daemon_disk_full(void)
{
	struct log_summary sum;
	struct worker w;
	pid_t daemon;
	int status;

	setup("");
	expect(mount("tmpfs", LOG_DIR, "tmpfs", 0, "size=64k") == 0, "mount tmpfs: %s",
	       strerror(errno));
	daemon = start_ready_daemon();
	fill_up(LOG_DIR "/filler");
	add_worker(&w);
	/* The file's last page takes a few dozen lines before the disk refuses. */
	for (int i = 0; i < 500 && !file_contains(STDERR_FILE, "No space left on device"); i++)
		sleep_ms(10);
	expect(file_contains(STDERR_FILE, "No space left on device"),
	       "the full disk was not reported within 5 s");
	sleep_ms(1000);
	expect(waitpid(daemon, &status, WNOHANG) == 0, "pfprofd exited on a full disk");
	expect(unlink(LOG_DIR "/filler") == 0, "unlink filler: %s", strerror(errno));
	log_for(1500);	/* the retry writes what was held */
	stop_daemon(daemon);
	read_logs(&sum);
	printf("  daemon_disk_full: %d samples logged, first %llu, last %llu\n", sum.count,
	       sum.lines[0].seq, sum.lines[sum.count - 1].seq);
	expect_continuous(&sum, "across a full disk");
	expect(sum.lines[0].seq == 0, "the log starts at sample %llu", sum.lines[0].seq);
	umount(LOG_DIR);
}

#define PROM_DIR DIR "/prom"
#define PROM_FILE PROM_DIR "/pfprof.prom"

/* The value of the first line of the metrics file that starts with prefix; -1 if none. */
static double prom_value(const char *prefix)
{
	char line[512];
	double value = -1;
	FILE *f = fopen(PROM_FILE, "r");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		if (!strncmp(line, prefix, strlen(prefix))) {
			value = strtod(strrchr(line, ' ') + 1, NULL);
			break;
		}
	}
	fclose(f);
	return value;
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

	setup("prometheus_dir = " PROM_DIR "\nprometheus_interval = 1s\n");
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

#define FAULTS_LOG LOG_DIR "/" LOGFORMAT_FAULTS_FILE
#define PROCS_LOG LOG_DIR "/" LOGFORMAT_PROCS_FILE

/* What the faults log says of one process, and of its mapping at region_start. */
/* pfprofctl add OPTION PID, after which the targets file has the line "WORD PID". */
static void add_keeping_line(const char *option, const char *pid_arg, const char *word)
{
	char line[64];

	expect(ctl(NULL, "add", option, pid_arg) == 0, "pfprofctl add %s %s failed", option,
	       pid_arg);
	snprintf(line, sizeof(line), "%s %s\n", word, pid_arg);
	expect(file_contains(PID_FILE, line), "no line '%.*s' in %s", (int)strlen(line) - 1, line,
	       PID_FILE);
}

struct faults_seen {
	unsigned long long minor, major;	/* every mapping */
	unsigned long long region_minor, region_major, region_size;
	char region_kind[16], region_name[256];
};

static void read_faults_log(pid_t pid, uint64_t region_start, struct faults_seen *seen)
{
	unsigned long long seq, start, inode, minor, major;
	char line[1024], kind[16], size[32], name[256];
	unsigned int target;
	double wall;
	int p;
	FILE *f = fopen(FAULTS_LOG, "r");

	*seen = (struct faults_seen){ 0 };
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%llu\t%lf\t%d\t%*[^\t]\t%u\t%15[^\t]\t%llx\t%31[^\t]\t%llu\t%llu\t"
			   "%llu\t%255[^\t\n]", &seq, &wall, &p, &target, kind, &start, size, &inode,
			   &minor, &major, name) != 11 || p != pid)
			continue;
		seen->minor += minor;
		seen->major += major;
		if (start != region_start)
			continue;
		seen->region_minor += minor;
		seen->region_major += major;
		seen->region_size = strtoull(size, NULL, 10);
		snprintf(seen->region_kind, sizeof(seen->region_kind), "%s", kind);
		snprintf(seen->region_name, sizeof(seen->region_name), "%s", name);
	}
	fclose(f);
}

/* The minor and major faults of pid in the per-process log. */
static void read_procs_log(pid_t pid, unsigned long long *minor, unsigned long long *major)
{
	unsigned long long seq, mi, ma;
	char line[512];
	double wall;
	int p;
	FILE *f = fopen(PROCS_LOG, "r");

	*minor = *major = 0;
	while (f && fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%llu\t%lf\t%d\t%*[^\t]\t%llu\t%llu", &seq, &wall, &p, &mi,
			   &ma) == 5 && p == pid) {
			*minor += mi;
			*major += ma;
		}
	}
	if (f)
		fclose(f);
}

/* Waits until the logs have the region's faults and both logs agree; fails after 20 s. */
static void wait_faults_logged(pid_t pid, uint64_t start, struct faults_seen *seen)
{
	uint64_t deadline = now_ns() + 20000000000ULL;
	unsigned long long minor, major;

	for (;;) {
		read_faults_log(pid, start, seen);
		read_procs_log(pid, &minor, &major);
		if (seen->region_minor >= REGION_PAGES && seen->minor == minor &&
		    seen->major == major)
			return;
		expect(now_ns() < deadline, "after 20 s the faults log has %llu/%llu faults of PID"
		       " %d (%llu in the region), the per-process log %llu/%llu", seen->minor,
		       seen->major, (int)pid, seen->region_minor, minor, major);
		sleep_ms(100);
	}
}

/* The row of pfprofctl where's output for the mapping at start: its major and minor faults. */
static bool where_row(const char *path, uint64_t start, unsigned long long *major,
		      unsigned long long *minor)
{
	char line[1024], hex[32];
	bool found = false;
	FILE *f = fopen(path, "r");

	snprintf(hex, sizeof(hex), " %llx  ", (unsigned long long)start);
	while (f && !found && fgets(line, sizeof(line), f))
		found = strstr(line, hex) && sscanf(line, "%llu %llu", major, minor) == 2;
	if (f)
		fclose(f);
	return found;
}

/*
 * The totals of pfprofctl where's output: the header's minor faults and
 * number of processes, and the minor faults of its [anon] row.
 */
static bool where_target_totals(const char *path, unsigned long long *minor,
				unsigned long long *processes, unsigned long long *anon_minor)
{
	unsigned long long major, row_minor;
	char line[1024];
	bool header = false, anon = false;
	FILE *f = fopen(path, "r");
	const char *p;

	while (f && fgets(line, sizeof(line), f)) {
		if (!header && !strncmp(line, "tree ", 5) && (p = strchr(line, '(')) &&
		    sscanf(p + 1, "%llu", processes) == 1 && (p = strstr(p, ": ")))
			header = sscanf(p + 2, "%llu", minor) == 1;
		if (strstr(line, "  [anon]\n") && sscanf(line, "%llu %llu", &major, &row_minor) == 2) {
			*anon_minor = row_minor;
			anon = true;
		}
	}
	if (f)
		fclose(f);
	return header && anon;
}

/*
 * A tree added with pfprofctl add --maps --tree: the targets file keeps "maps
 * tree ROOT", pfprofd registers it with "M", and a process forked in it
 * later has its region's 16384 faults placed, under the tree's number:
 * pfprofctl where --tree shows them in the tree's [anon] row.
 */
void test_daemon_faults_tree(void)
{
	unsigned long long minor = 0, processes = 0, anon_minor = 0;
	char root_arg[16], line[96];
	struct faults_seen seen = { 0 };
	uintptr_t joiner, addr;
	pid_t root, daemon;
	uint64_t start;
	int go, back;

	setup("");
	root = spawn_piped(forking_child, &go, &back);
	snprintf(root_arg, sizeof(root_arg), "%d", (int)root);
	add_keeping_line("-mt", root_arg, "maps tree");
	expect_ok(status_cmd('X', root), "X the tree");
	daemon = start_ready_daemon();
	wait_listed(root, 5000);
	snprintf(line, sizeof(line), "profiling the tree of PID %d with its mappings", (int)root);
	expect(file_contains(STDERR_FILE, line), "pfprofd did not log '%s'", line);
	expect(ctl(DIR "/list.out", "list", NULL, NULL) == 0, "pfprofctl list failed");
	expect(file_contains(DIR "/list.out", "kept with maps, "), "list does not say the tree "
	       "is kept with maps");

	expect(write(go, "f", 1) == 1, "telling the root to fork: %s", strerror(errno));
	expect(read(back, &joiner, sizeof(joiner)) == sizeof(joiner), "the root died");
	/* Two periods: its counters are made at the next one. */
	sleep_ms(200);
	expect(write(go, "g", 1) == 1, "telling the joiner to go: %s", strerror(errno));
	expect(read(back, &addr, sizeof(addr)) == sizeof(addr), "the joiner died");
	start = mapping_start((pid_t)joiner, addr);
	for (int i = 0; i < 200 && seen.region_minor < REGION_PAGES; i++) {
		read_faults_log((pid_t)joiner, start, &seen);
		sleep_ms(100);
	}
	expect(seen.region_minor == REGION_PAGES, "the joiner's region: %llu minor faults logged",
	       seen.region_minor);
	expect(ctl(DIR "/where.out", "where", "--tree", root_arg) == 0,
	       "pfprofctl where --tree %s failed", root_arg);
	expect(where_target_totals(DIR "/where.out", &minor, &processes, &anon_minor) &&
	       processes >= 1 && anon_minor >= REGION_PAGES && minor >= anon_minor,
	       "pfprofctl where --tree: %llu processes, %llu minor faults, %llu in [anon]",
	       processes, minor, anon_minor);
	printf("  daemon_faults_tree: joiner's region %llu minor; where --tree: %llu processes, "
	       "%llu minor faults, %llu in [anon]\n", seen.region_minor, processes, minor,
	       anon_minor);
	expect(ctl(NULL, "del", "--tree", root_arg) == 0, "pfprofctl del --tree failed");
	expect(!file_contains(PID_FILE, "tree"), "del --tree left a tree line in %s", PID_FILE);
	stop_daemon(daemon);
	kill((pid_t)joiner, SIGKILL);
	kill_and_reap(root);
	close(go);
	close(back);
}

static bool where_watch_drawn(const char *screen)
{
	return strstr(screen, "\033[?1049h") && strstr(screen, "[anon]") &&
	       strstr(screen, "the last 600 s");
}

/*
 * where --watch on a terminal: the process's window of the logs (its last
 * 600 s: everything here) on the alternate screen, q quits and restores it.
 */
static void expect_where_watch(const char *pid_arg)
{
	struct winsize ws = { .ws_row = 24, .ws_col = 120 };
	static char screen[SCREEN_MAX];
	int master;
	size_t len = 0;
	pid_t where = forkpty(&master, NULL, NULL, &ws);

	expect(where >= 0, "forkpty: %s", strerror(errno));
	if (!where) {
		execl("./pfprofctl", "pfprofctl", "--config", CONF, "where", "--watch", "--last",
		      "600", "-d", "0.2", pid_arg, (char *)NULL);
		_exit(127);
	}
	/* Its first frame reads every faults log: 1.5 s was once too short. */
	len = pty_read_until(master, screen, len, where_watch_drawn, 20000);
	expect(where_watch_drawn(screen), "no where --watch screen with [anon]: %.300s", screen);
	pty_expect_quit(master, where, screen, len, "where --watch");
}

/* A process registered without maps cannot be added with --maps: exit status 1 and why. */
static void expect_plain_not_mapped(void)
{
	struct worker w;
	char arg[16];

	worker_spawn(&w);
	expect_ok(status_cmd('R', w.pid), "R worker");
	snprintf(arg, sizeof(arg), "%d", (int)w.pid);
	expect(ctl(NULL, "add", "--maps", arg) == 1, "add --maps of a process profiled without");
	expect(file_contains(DIR "/ctl.stderr", "not added with --maps"),
	       "no hint that PID %d is profiled without maps", (int)w.pid);
	kill_and_reap(w.pid);
}

/*
 * pfprofctl add --maps keeps a "maps PID" line; pfprofd registers it so
 * again, logs its faults per mapping (a fresh 64 MiB region: 16384 minor
 * faults in one [anon] line of 64 MiB, every fault in the faults log as in
 * the per-process log), pfprofctl where shows that row and the metrics
 * have the process's major faults by mapping.
 */
void test_daemon_faults_log(void)
{
	unsigned long long where_major = 0, where_minor = 0;
	char pid_arg[16], line[64], series[128];
	struct faults_seen seen;
	pid_t child, daemon;
	uintptr_t addr;
	uint64_t start;
	int go, back;

	setup("prometheus_dir = " PROM_DIR "\nprometheus_interval = 1s\n");
	expect(!mkdir(PROM_DIR, 0755), "mkdir %s: %s", PROM_DIR, strerror(errno));
	child = spawn_piped(region_child, &go, &back);
	snprintf(pid_arg, sizeof(pid_arg), "%d", (int)child);
	add_keeping_line("--maps", pid_arg, "maps");
	expect(status_lists(child), "add --maps did not register PID %d", (int)child);
	/* Unregistered in the module only: pfprofd registers it again from the file. */
	expect_ok(status_cmd('U', child), "U child");
	daemon = start_ready_daemon();
	wait_listed(child, 5000);
	snprintf(line, sizeof(line), "profiling PID %d with its mappings", (int)child);
	expect(file_contains(STDERR_FILE, line), "pfprofd did not log '%s'", line);
	/* Again: the targets file keeps it with maps, nothing to do. */
	expect(ctl(NULL, "add", "--maps", pid_arg) == 0, "pfprofctl add --maps %s again failed",
	       pid_arg);
	expect_plain_not_mapped();

	expect(write(go, "g", 1) == 1, "telling the child to go: %s", strerror(errno));
	expect(read(back, &addr, sizeof(addr)) == sizeof(addr), "the child died");
	start = mapping_start(child, addr);
	wait_faults_logged(child, start, &seen);
	printf("  daemon_faults_log: region %llu minor %llu major, %s %s of %llu bytes; all "
	       "mappings %llu/%llu\n", seen.region_minor, seen.region_major, seen.region_kind,
	       seen.region_name, seen.region_size, seen.minor, seen.major);
	expect(seen.region_minor == REGION_PAGES && !seen.region_major &&
	       !strcmp(seen.region_kind, "anon") && !strcmp(seen.region_name, "[anon]") &&
	       seen.region_size == REGION_PAGES * (unsigned long long)sysconf(_SC_PAGESIZE),
	       "the region's lines: %llu minor, %llu major, %s %s, %llu bytes", seen.region_minor,
	       seen.region_major, seen.region_kind, seen.region_name, seen.region_size);

	expect(ctl(DIR "/where.out", "where", pid_arg, NULL) == 0, "pfprofctl where %s failed",
	       pid_arg);
	expect(where_row(DIR "/where.out", start, &where_major, &where_minor) &&
	       where_minor == REGION_PAGES && !where_major,
	       "pfprofctl where: the region's row says %llu major, %llu minor", where_major,
	       where_minor);

	expect_where_watch(pid_arg);

	snprintf(series, sizeof(series), "pfprof_process_major_faults_by_mapping_total{pid=\"%d\",",
		 (int)child);
	for (int i = 0; i < 50 && prom_value(series) < 0; i++)
		sleep_ms(100);
	expect(prom_value(series) == 0, "%s: %s... is %.0f, want 0 (no swap)", PROM_FILE, series,
	       prom_value(series));
	stop_daemon(daemon);
	kill_and_reap(child);
	close(go);
	close(back);
}

/* The metrics file as it was at one read (pfprofd replaces it whole): a whole copy. */
struct prom_snapshot {
	char text[1 << 18];
};

/* The line after line's end, or its terminating nul. */
static const char *next_line(const char *line)
{
	const char *end = strchrnul(line, '\n');

	return *end ? end + 1 : end;
}

/* False if pfprofd has not written the file yet. */
static bool prom_snapshot(struct prom_snapshot *s)
{
	FILE *f = fopen(PROM_FILE, "r");
	size_t n;

	if (!f && errno == ENOENT)
		return false;
	expect(f, "open %s: %s", PROM_FILE, strerror(errno));
	n = fread(s->text, 1, sizeof(s->text) - 1, f);
	expect(!ferror(f) && n < sizeof(s->text) - 1, "%s: unreadable or over %zu bytes",
	       PROM_FILE, sizeof(s->text) - 1);
	fclose(f);
	s->text[n] = '\0';
	return true;
}

/* The value of the snapshot's first line that starts with prefix; -1 if none. */
static double snapshot_value(const struct prom_snapshot *s, const char *prefix)
{
	size_t len = strlen(prefix);

	for (const char *line = s->text; *line; line = next_line(line))
		if (!strncmp(line, prefix, len)) {
			const char *end = strchrnul(line, '\n'), *sp = line + len;

			for (const char *p = line + len; p < end; p++)
				if (*p == ' ')
					sp = p + 1;
			return strtod(sp, NULL);
		}
	return -1;
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
	d->count = snapshot_value(s, prefix);
	snprintf(prefix, sizeof(prefix), DURATIONS "_sum{target=\"%s\",kind=\"%s\"} ", target,
		 kind);
	d->sum_s = snapshot_value(s, prefix);
	len = (size_t)snprintf(prefix, sizeof(prefix),
			       DURATIONS "_bucket{target=\"%s\",kind=\"%s\",le=\"", target, kind);
	for (const char *line = s->text; *line; line = next_line(line)) {
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
		expect(run_program_err(argv, DIR "/where.json", DIR "/ctl.stderr") == 0,
		       "pfprofctl where --json --tree %s failed", tree);
		o = json_read_line(DIR "/where.json");
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
	struct json_object *o = json_read_line(DIR "/top.json"), *procs = json_at(o, "processes");
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

	setup("prometheus_dir = " PROM_DIR "\nprometheus_interval = 1s\n");
	expect(!mkdir(PROM_DIR, 0755), "mkdir %s: %s", PROM_DIR, strerror(errno));
	daemon = start_ready_daemon();
	worker_spawn(&w);
	snprintf(arg, sizeof(arg), "%d", (int)w.pid);
	snprintf(label, sizeof(label), "tree:%d", (int)w.pid);
	{
		char *argv[] = { "./pfprofctl", "--config", CONF, "add", "--maps", "--latency",
				 "--tree", arg, NULL };

		rc = run_program_err(argv, NULL, DIR "/ctl.stderr");
	}
	expect(rc == 0 && status_lists(w.pid), "pfprofctl add --maps --latency --tree %s: exit %d, "
	       "listed %d", arg, rc, status_lists(w.pid));
	snprintf(kept, sizeof(kept), "maps latency tree %s\n", arg);
	expect(file_contains(PID_FILE, kept), "no line 'maps latency tree %s' in %s", arg,
	       PID_FILE);

	/* pfprofctl top over the worker's touches: the share of its time in the fault handler. */
	{
		char *argv[] = { "./pfprofctl", "top", "--json", "-n", "1", "-d", "3", NULL };

		top = start_program_err(argv, DIR "/top.json", DIR "/top.stderr");
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
			  snapshot_value(&snap, "pfprof_samples_written_total ") : -1;
		if (written >= (double)head + 1)
			break;
		expect(now_ns() < deadline, "after 20 s %s says %.0f samples written (-1: no file),"
		       " want %llu",
		       PROM_FILE, written, (unsigned long long)head + 1);
		sleep_ms(100);
	}
	snprintf(series, sizeof(series), "pfprof_target_minor_faults_total{target=\"%s\"} ", label);
	target_minor = snapshot_value(&snap, series);
	snprintf(series, sizeof(series), "pfprof_target_major_faults_total{target=\"%s\"} ", label);
	target_major = snapshot_value(&snap, series);
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
	expect(snapshot_value(&snap, "pfprof_fault_latency_missed_total ") == 0,
	       "%s: pfprof_fault_latency_missed_total %.0f (-1: no series), one thread faulting",
	       PROM_FILE, snapshot_value(&snap, "pfprof_fault_latency_missed_total "));

	rc = ctl(DIR "/status.json", "status", "--json", NULL);
	expect(rc == 0, "pfprofctl status --json exited with %d", rc);
	o = json_read_line(DIR "/status.json");
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
	rc = ctl(DIR "/status.out", "status", NULL, NULL);
	snprintf(line, sizeof(line), "fault time: %s: minor ", label);
	expect(rc == 0 && file_contains(DIR "/status.out", line),
	       "pfprofctl status: exit %d, no line '%s...'", rc, line);

	rc = ctl(DIR "/list.out", "list", NULL, NULL);
	expect(rc == 0 && file_contains(DIR "/list.out",
					"kept with maps and latency, 1 processes profiled"),
	       "pfprofctl list: exit %d, no 'kept with maps and latency, 1 processes profiled'", rc);
	expect(ctl(DIR "/list.json", "list", "--json", NULL) == 0, "pfprofctl list --json failed");
	o = json_read_line(DIR "/list.json");
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

	expect(ctl(NULL, "del", "--tree", arg) == 0, "pfprofctl del --tree %s failed", arg);
	expect(!file_contains(PID_FILE, kept) && !status_lists(w.pid),
	       "del --tree left the line or the registration");
	stop_daemon(daemon);
	kill_and_reap(w.pid);
}

#define BUDGET_PROCS 40
#define BUDGET_LINES 5
#define BUDGET_SECONDS 4

/*
 * spawn_piped()'s child, as uid 65534: BUDGET_PROCS processes that wake up
 * every 10 ms (a record at every sample), registered by itself; says how
 * many, then waits to be killed (they die with it).
 */
static void budget_user(int go, int back)
{
	unsigned long registered = 0;
	int fd;

	(void)go;
	become_nobody();
	fd = open(MP3_STATUS_PATH, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		_exit(5);
	for (int i = 0; i < BUDGET_PROCS; i++)
		registered += !status_cmd_fd(fd, 'R', fork_dependent(true));
	child_done(back, registered);
}

/* Lines of the per-process log of processes other than pid. */
static unsigned long procs_log_others(pid_t pid)
{
	unsigned long long seq;
	unsigned long others = 0;
	char line[512];
	double wall;
	int p;
	FILE *f = fopen(PROCS_LOG, "r");

	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "%llu\t%lf\t%d", &seq, &wall, &p) == 3 && p != pid)
			others++;
	if (f)
		fclose(f);
	return others;
}

/*
 * A user's busy registrations beside pfprofd's target (issue 55, item 2):
 * at most user_log_lines of the user's lines a second reach the per-process
 * log, the rest counted for the user in the metrics; root's worker's lines
 * all there, their faults what its metric counts.
 */
void test_daemon_user_budget(void)
{
	unsigned long long minor, major;
	unsigned long user_lines;
	uintptr_t registered;
	double dropped, counted;
	char series[128];
	pid_t daemon, pid, user;
	uint64_t start;
	struct worker w;
	int go, back;

	setup("prometheus_dir = " PROM_DIR "\nprometheus_interval = 1s\nuser_log_lines = 5\n");
	expect(!mkdir(PROM_DIR, 0755), "mkdir %s: %s", PROM_DIR, strerror(errno));
	daemon = start_ready_daemon();
	pid = add_worker(&w);
	start = now_ns();
	user = spawn_piped(budget_user, &go, &back);
	expect(read(back, &registered, sizeof(registered)) == sizeof(registered) &&
	       registered == BUDGET_PROCS, "uid %d registered %lu of its %d processes", NOBODY_ID,
	       (unsigned long)registered, BUDGET_PROCS);
	for (int i = 0; i < BUDGET_SECONDS * 2; i++) {
		worker_do(&w, 't', 500);
		sleep_ms(500);
	}
	kill_and_reap(user);
	/* Its last lines, and the metrics after them. */
	sleep_ms(scaled_ms(2500));
	stop_daemon(daemon);
	user_lines = procs_log_others(pid);
	read_procs_log(pid, &minor, &major);
	snprintf(series, sizeof(series), "pfprof_process_minor_faults_total{pid=\"%d\",", (int)pid);
	counted = prom_value(series);
	snprintf(series, sizeof(series), "pfprof_user_log_lines_dropped_total{owner=\"%d\"}",
		 NOBODY_ID);
	dropped = prom_value(series);
	printf("  daemon_user_budget: uid %d's %d busy processes: %lu lines logged in %.1f s,"
	       " %.0f not logged; root's worker: %llu minor faults logged, %.0f counted\n",
	       NOBODY_ID, BUDGET_PROCS, user_lines, (now_ns() - start) / 1e9, dropped, minor,
	       counted);
	expect(user_lines > 0 && user_lines <= BUDGET_LINES * ((now_ns() - start) / 1000000000 + 2),
	       "uid %d's processes have %lu lines in %.1f s, past %d a second", NOBODY_ID,
	       user_lines, (now_ns() - start) / 1e9, BUDGET_LINES);
	expect(dropped > 0, "no line of uid %d counted as not logged (%.0f)", NOBODY_ID, dropped);
	expect(minor >= (unsigned long long)BUDGET_SECONDS * 2 * 500 && (double)minor == counted,
	       "root's worker: %llu minor faults logged, %.0f counted", minor, counted);
	kill_and_reap(pid);
	close(go);
	close(back);
}
