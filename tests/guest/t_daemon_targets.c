// SPDX-License-Identifier: GPL-2.0
/*
 * pfprofd's targets file: trees kept registered, names of one user, the
 * faults logs of trees and processes, and users' log budgets.
 */
#include <errno.h>
#include <pty.h>
#include <stdio.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "daemonrun.h"
#include "harness.h"
#include "jsonout.h"
#include "logformat.h"
#include "tests.h"

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

	daemon_setup("");
	daemon = start_ready_daemon();
	snprintf(arg, sizeof(arg), "%d", (int)root);
	snprintf(line, sizeof(line), "tree %d\n", (int)root);
	rc = daemon_ctl(NULL, "add", "--tree", arg);
	expect(rc == 0 && status_lists(root) && status_lists(child),
	       "pfprofctl add --tree: exit %d, root listed %d, child listed %d", rc,
	       status_lists(root), status_lists(child));
	expect(file_contains(PID_FILE, line), "no line '%.*s' in %s", (int)strlen(line) - 1, line,
	       PID_FILE);
	rc = daemon_ctl(DAEMON_DIR "/list.out", "list", NULL, NULL);
	expect(rc == 0 && file_contains(DAEMON_DIR "/list.out", "kept, 2 processes profiled"),
	       "pfprofctl list: exit %d, no 'kept, 2 processes profiled'", rc);
	stop_daemon(daemon);
	expect_ok(module_unload(), "rmmod once pfprofd has stopped");
	expect_ok(module_load(NULL), "insmod again");
	daemon = start_ready_daemon();
	expect(status_lists(root) && status_lists(child),
	       "after a module reload: root listed %d, child listed %d", status_lists(root),
	       status_lists(child));
	rc = daemon_ctl(NULL, "del", "--tree", arg);
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

	daemon_setup("");
	daemon = start_ready_daemon();
	rc = daemon_ctl(NULL, "add", "--user=4242", "--comm=" USER_COMM);
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
	rc = daemon_ctl(NULL, "del", "--user=4242", "--comm=" USER_COMM);
	expect(rc == 0 && !status_lists(service) && !file_contains(PID_FILE, line),
	       "pfprofctl del --comm --user: exit %d, still listed or in the file", rc);
	stop_daemon(daemon);
	kill_and_reap(service);
	kill_and_reap(impostor);
}

#define FAULTS_LOG LOG_DIR "/" LOGFORMAT_FAULTS_FILE

/* What the faults log says of one process, and of its mapping at region_start. */
/* The faults of one process in a mapping other than the region. */
struct faults_elsewhere {
	unsigned long long start, minor, major;
	char kind[16], name[64];
};

#define ELSEWHERE_MAX 4

struct faults_seen {
	unsigned long long minor, major;	/* every mapping */
	unsigned long long region_minor, region_major, region_size;
	char region_kind[16], region_name[256];
	/* The first mappings other than the region, for a failure's message. */
	struct faults_elsewhere elsewhere[ELSEWHERE_MAX];
	unsigned int nr_elsewhere;
};

static void note_elsewhere(struct faults_seen *seen, unsigned long long start, const char *kind,
			   const char *name, unsigned long long minor, unsigned long long major)
{
	struct faults_elsewhere *e = seen->elsewhere;

	while (e < seen->elsewhere + seen->nr_elsewhere && e->start != start)
		e++;
	if (e == seen->elsewhere + ELSEWHERE_MAX)
		return;
	if (e == seen->elsewhere + seen->nr_elsewhere++) {
		e->start = start;
		snprintf(e->kind, sizeof(e->kind), "%s", kind);
		snprintf(e->name, sizeof(e->name), "%.63s", name);
	}
	e->minor += minor;
	e->major += major;
}

/* "; elsewhere: KIND START NAME MINOR/MAJOR, ..." in @buf, or nothing. */
static const char *describe_elsewhere(const struct faults_seen *seen, char *buf, size_t size)
{
	size_t len = 0;

	buf[0] = '\0';
	for (unsigned int i = 0; i < seen->nr_elsewhere && len < size; i++) {
		const struct faults_elsewhere *e = &seen->elsewhere[i];

		len += (size_t)snprintf(buf + len, size - len, "%s%s %llx %s %llu/%llu",
					i ? ", " : "; elsewhere: ", e->kind, e->start, e->name,
					e->minor, e->major);
	}
	return buf;
}

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
		if (start != region_start) {
			note_elsewhere(seen, start, kind, name, minor, major);
			continue;
		}
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
/*
 * Waits until the faults log has every fault of pid that the per-process
 * log has, but those the module dropped since *dropped (the ring's
 * faults_dropped then: past 8192 faults a CPU between two ticks, as when a
 * late tick finds the 16384 of the region on one CPU); *dropped becomes
 * their number.
 */
static void wait_faults_logged(pid_t pid, uint64_t start, const struct mp3ring *ring,
			       uint64_t *dropped, struct faults_seen *seen)
{
	uint64_t deadline = now_ns() + 20000000000ULL, before = *dropped;
	unsigned long long minor, major;
	char elsewhere[512];

	for (;;) {
		read_faults_log(pid, start, seen);
		read_procs_log(pid, &minor, &major);
		*dropped = __atomic_load_n(&ring->hdr->faults_dropped, __ATOMIC_RELAXED) - before;
		if (seen->region_minor + *dropped >= REGION_PAGES &&
		    seen->minor + seen->major + *dropped == minor + major)
			return;
		expect(now_ns() < deadline, "after 20 s the faults log has %llu/%llu faults of PID"
		       " %d (%llu in the region%s), the per-process log %llu/%llu, %llu dropped",
		       seen->minor, seen->major, (int)pid, seen->region_minor,
		       describe_elsewhere(seen, elsewhere, sizeof(elsewhere)), minor, major,
		       (unsigned long long)*dropped);
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
	struct mp3ring ring;
	uintptr_t joiner, addr;
	pid_t root, daemon;
	uint64_t start, dropped;
	int go, back, fd;

	daemon_setup("");
	root = spawn_piped(forking_child, &go, &back);
	snprintf(root_arg, sizeof(root_arg), "%d", (int)root);
	add_keeping_line("-mt", root_arg, "maps tree");
	expect_ok(status_cmd('X', root), "X the tree");
	daemon = start_ready_daemon();
	wait_listed(root, 5000);
	snprintf(line, sizeof(line), "profiling the tree of PID %d with its mappings", (int)root);
	expect(file_contains(STDERR_FILE, line), "pfprofd did not log '%s'", line);
	expect(daemon_ctl(DAEMON_DIR "/list.out", "list", NULL, NULL) == 0, "pfprofctl list failed");
	expect(file_contains(DAEMON_DIR "/list.out", "kept with maps, "), "list does not say the tree "
	       "is kept with maps");

	expect(write(go, "f", 1) == 1, "telling the root to fork: %s", strerror(errno));
	expect(read(back, &joiner, sizeof(joiner)) == sizeof(joiner), "the root died");
	/* Two periods: its counters are made at the next one. */
	sleep_ms(200);
	map_ring(&ring, &fd);
	dropped = ring.hdr->faults_dropped;
	expect(write(go, "g", 1) == 1, "telling the joiner to go: %s", strerror(errno));
	expect(read(back, &addr, sizeof(addr)) == sizeof(addr), "the joiner died");
	start = mapping_start((pid_t)joiner, addr);
	/* Those the module dropped (a CPU's 8192 a tick past) are counted there, not placed. */
	for (int i = 0; i < 200 && seen.region_minor + (ring.hdr->faults_dropped - dropped) <
	     REGION_PAGES; i++) {
		read_faults_log((pid_t)joiner, start, &seen);
		sleep_ms(100);
	}
	dropped = ring.hdr->faults_dropped - dropped;
	expect(seen.region_minor + dropped == REGION_PAGES, "the joiner's region: %llu minor "
	       "faults logged, %llu dropped", seen.region_minor, (unsigned long long)dropped);
	expect(daemon_ctl(DAEMON_DIR "/where.out", "where", "--tree", root_arg) == 0,
	       "pfprofctl where --tree %s failed", root_arg);
	expect(where_target_totals(DAEMON_DIR "/where.out", &minor, &processes, &anon_minor) &&
	       processes >= 1 && anon_minor + dropped >= REGION_PAGES && minor >= anon_minor,
	       "pfprofctl where --tree: %llu processes, %llu minor faults, %llu in [anon]",
	       processes, minor, anon_minor);
	printf("  daemon_faults_tree: joiner's region %llu minor; where --tree: %llu processes, "
	       "%llu minor faults, %llu in [anon]\n", seen.region_minor, processes, minor,
	       anon_minor);
	expect(daemon_ctl(NULL, "del", "--tree", root_arg) == 0, "pfprofctl del --tree failed");
	expect(!file_contains(PID_FILE, "tree"), "del --tree left a tree line in %s", PID_FILE);
	stop_daemon(daemon);
	kill((pid_t)joiner, SIGKILL);
	kill_and_reap(root);
	close(go);
	close(back);
	close(fd);
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
	expect(daemon_ctl(NULL, "add", "--maps", arg) == 1, "add --maps of a process profiled without");
	expect(file_contains(DAEMON_DIR "/ctl.stderr", "not added with --maps"),
	       "no hint that PID %d is profiled without maps", (int)w.pid);
	kill_and_reap(w.pid);
}

/*
 * pfprofctl add --maps keeps a "maps PID" line; pfprofd registers it so
 * again, logs its faults per mapping (a fresh 64 MiB region: 16384 minor
 * faults in one [anon] line of 64 MiB, every fault in the faults log as in
 * the per-process log but those the module dropped, counted in its ring's
 * faults_dropped: 152 of them once, with three guests on the host's two
 * cores), pfprofctl where shows that row and the metrics have the
 * process's major faults by mapping.
 */
void test_daemon_faults_log(void)
{
	unsigned long long where_major = 0, where_minor = 0;
	char pid_arg[16], series[128];
	struct faults_seen seen;
	struct mp3ring ring;
	pid_t child, daemon;
	uintptr_t addr;
	uint64_t start, dropped;
	int go, back, fd;

	daemon_setup("prometheus_dir = " PROM_DIR "\nprometheus_interval = 1s\n");
	expect(!mkdir(PROM_DIR, 0755), "mkdir %s: %s", PROM_DIR, strerror(errno));
	child = spawn_piped(region_child, &go, &back);
	snprintf(pid_arg, sizeof(pid_arg), "%d", (int)child);
	daemon = expect_kept_by_daemon("--maps", child, "maps", "mappings");
	/* Again: the targets file keeps it with maps, nothing to do. */
	expect(daemon_ctl(NULL, "add", "--maps", pid_arg) == 0, "pfprofctl add --maps %s again failed",
	       pid_arg);
	expect_plain_not_mapped();

	map_ring(&ring, &fd);
	dropped = ring.hdr->faults_dropped;
	expect(write(go, "g", 1) == 1, "telling the child to go: %s", strerror(errno));
	expect(read(back, &addr, sizeof(addr)) == sizeof(addr), "the child died");
	start = mapping_start(child, addr);
	wait_faults_logged(child, start, &ring, &dropped, &seen);
	printf("  daemon_faults_log: region %llu minor %llu major, %s %s of %llu bytes; all "
	       "mappings %llu/%llu; %llu dropped by the module\n", seen.region_minor,
	       seen.region_major, seen.region_kind, seen.region_name, seen.region_size, seen.minor,
	       seen.major, (unsigned long long)dropped);
	expect(seen.region_minor + dropped == REGION_PAGES && !seen.region_major &&
	       !strcmp(seen.region_kind, "anon") && !strcmp(seen.region_name, "[anon]") &&
	       seen.region_size == REGION_PAGES * (unsigned long long)sysconf(_SC_PAGESIZE),
	       "the region's lines: %llu minor, %llu major, %s %s, %llu bytes", seen.region_minor,
	       seen.region_major, seen.region_kind, seen.region_name, seen.region_size);

	expect(daemon_ctl(DAEMON_DIR "/where.out", "where", pid_arg, NULL) == 0, "pfprofctl where %s failed",
	       pid_arg);
	expect(where_row(DAEMON_DIR "/where.out", start, &where_major, &where_minor) &&
	       where_minor + dropped == REGION_PAGES && !where_major,
	       "pfprofctl where: the region's row says %llu major, %llu minor (%llu dropped)",
	       where_major, where_minor, (unsigned long long)dropped);

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
	close(fd);
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

	daemon_setup("prometheus_dir = " PROM_DIR "\nprometheus_interval = 1s\nuser_log_lines = 5\n");
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
