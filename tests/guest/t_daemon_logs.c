// SPDX-License-Identifier: GPL-2.0
/*
 * pfprofd's logs: samples logged, few wakeups, rotation, resuming after a
 * restart, a full disk, a module reloaded, the PID file, a bad
 * configuration.
 */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/wait.h>

#include "daemonrun.h"
#include "harness.h"
#include "jsonout.h"
#include "logformat.h"
#include "psi.h"
#include "stalls.h"
#include "tests.h"

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

	daemon_setup("");
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

	daemon_setup(extra_config);
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
	daemon_setup("rotate_size = 2K\nkeep = 1000\n");
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

	daemon_setup("");
	daemon = start_ready_daemon();
	add_worker(&w);
	log_for(1000);
	kill(daemon, SIGKILL);
	waitpid(daemon, NULL, 0);
	killed_at = (int)last_seq_logged();
	/* What a kill in the middle of a write would have left. */
	daemon_write_text(LOG_DIR "/" LOGFORMAT_FILE, "123456 17", "a");
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

	daemon_setup("");
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

	daemon_setup("");
	kill_and_reap(dead);
	worker_spawn(&live);
	snprintf(text, sizeof(text), "# kept\n%d\n%d\n", (int)dead, (int)live.pid);
	daemon_write_text(PID_FILE, text, "w");
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
	daemon_write_text(PID_FILE, text, "a");
	for (int i = 0; i < 100 && !status_lists(later.pid); i++)
		sleep_ms(10);
	expect(status_lists(later.pid), "PID %d appended to %s was not registered within 1 s",
	       (int)later.pid, PID_FILE);
	stop_daemon(daemon);
}

void test_daemon_bad_config(void)
{
	pid_t daemon;

	daemon_setup("bogus = 1\nrotate_size = lots\nkeep = 3\n");
	daemon = start_ready_daemon();
	stop_daemon(daemon);
	/* setup() writes a comment and four keys before these lines. */
	expect(file_contains(STDERR_FILE, CONF ":6:") && file_contains(STDERR_FILE, "bogus"),
	       "the unknown key on line 6 was not reported with file and line");
	expect(file_contains(STDERR_FILE, CONF ":7:") && file_contains(STDERR_FILE, "lots"),
	       "the bad value on line 7 was not reported with file and line");
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

	daemon_setup("");
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
