// SPDX-License-Identifier: GPL-2.0
/*
 * pfprofctl heatmap --record: one process, many, targets, surviving
 * pfprofd's restarts, and rotation of its logs.
 */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "cgroupfs.h"
#include "damonload.h"
#include "harness.h"
#include "tests.h"

/*
 * The share of the region's pages that some snapshot found accessed: with
 * the product's 5 ms samples under TCG, how hot depends on how fast the
 * host runs the toucher (damon_random_hot judges that), whether DAMON saw
 * the whole region used does not.
 */
static double seen_share(const struct page_heat *ph)
{
	unsigned int seen = 0;

	for (unsigned int i = 0; i < REGION_PAGES; i++)
		seen += ph->sum[i] > 0;
	return (double)seen / REGION_PAGES;
}

#define HEATMAP_LOG "/tmp/pfprof-heatmap.log"
#define HEATMAP_ERR "/tmp/pfprof-heatmap.err"
#define HEATMAP_OUT "/tmp/pfprof-heatmap.out"
#define HEATMAP_SECONDS "5"

/* A heatmap log's region lines summed over the toucher's pages, and how many map lines name it. */
struct heatmap_read {
	struct page_heat heat;
	uint64_t last_ns;
	unsigned int snapshots, maps_of_start;
};

static void read_heatmap_log(const char *path, uint64_t start, struct heatmap_read *h)
{
	FILE *f = fopen(path, "re");
	char line[512];

	expect(f != NULL, "%s: %s", path, strerror(errno));
	memset(h, 0, sizeof(*h));
	h->heat.start = start;
	while (fgets(line, sizeof(line), f)) {
		unsigned long long ns, from, to;
		unsigned int nr, age;

		if (sscanf(line, "map\t%llu\t%llx\t%llx\t", &ns, &from, &to) == 3) {
			h->maps_of_start += from == start;
		} else if (sscanf(line, "region\t%llu\t%llx\t%llx\t%u\t%u", &ns, &from, &to, &nr,
				  &age) == 5) {
			h->snapshots += ns != h->last_ns;
			h->last_ns = ns;
			add_region(&h->heat, &(struct damon_region){ from, to, nr, age });
		} else {
			expect(line[0] == '#', "%s: a line of neither kind: %s", path, line);
		}
	}
	fclose(f);
}

/* What pfprofctl heatmap --record said it did: snapshots, and how many of them were empty. */
static void read_record_summary(unsigned long *snapshots, unsigned long *empty)
{
	FILE *f = fopen(HEATMAP_OUT, "re");
	char line[512];
	unsigned long n;
	int end;

	expect(f != NULL, "%s: %s", HEATMAP_OUT, strerror(errno));
	*snapshots = *empty = ULONG_MAX;
	while (fgets(line, sizeof(line), f)) {
		/* %n: the words matched too ("1 of them empty" is no count of snapshots). */
		end = 0;
		if (sscanf(line, "%lu snapshots of process%n", &n, &end) == 1 && end) {
			*snapshots = n;
			continue;
		}
		end = 0;
		if (sscanf(line, "%lu of them empty%n", &n, &end) == 1 && end)
			*empty = n;
		else
			expect(0, "pfprofctl heatmap --record said: %s", line);
	}
	fclose(f);
	expect(*snapshots != ULONG_MAX, "pfprofctl heatmap --record gave no summary");
	if (*empty == ULONG_MAX)
		*empty = 0;
}

#define HEATMAP_NOBODY_ERR "/tmp/pfprof-heatmap-nobody.err"

/*
 * in_child()'s fn: as nobody, recording nobody's own process pid is
 * refused (EPERM: DAMON's files are root's); where the kernel has no DAMON,
 * that is said first.
 */
static void record_as_nobody(int pid)
{
	char arg[16];
	const char *why;
	int status;

	snprintf(arg, sizeof(arg), "%d", pid);
	become_nobody();
	unlink(HEATMAP_NOBODY_ERR);
	status = run_program_err((char *[]){ "./pfprofctl", "heatmap", "--record", arg, NULL },
				 "/dev/null", HEATMAP_NOBODY_ERR);
	show_file(HEATMAP_NOBODY_ERR, "  heatmap_record (nobody)| ");
	expect(status == 1 && file_contains(HEATMAP_NOBODY_ERR, kernel_has_damon(&why) ?
					    "are root's: Operation not permitted" :
					    "this kernel has no DAMON"),
	       "pfprofctl heatmap --record %s as nobody: exit %d, not the message", arg, status);
}

/*
 * pfprofctl heatmap --record on the random toucher: a snapshot a second
 * for --seconds, the toucher's region among the mappings, 90 % of it seen
 * accessed; damon_stat handed back. On 6.1, the message. Refused first:
 * a kernel thread, and nobody recording its own process. 6.12 may give
 * an empty snapshot when its kdamond falls behind (pfprofctl/heatmap/damon.c,
 * damon_snapshot()): the command must say so, and most snapshots must
 * still have regions.
 */
void test_heatmap_record(void)
{
	int go_fd, back_fd, status, stat_before;
	struct heatmap_read *h = malloc(sizeof(*h));
	pid_t toucher, yielder, nobody;
	unsigned long said_snapshots, said_empty;
	const char *why;
	char pid[16];
	uintptr_t start;
	uint32_t most;
	double share, seen;

	expect(h != NULL, "no memory");
	/* PID 2 is kthreadd here, the first kernel thread (host tests may run where it is not). */
	status = run_program_err((char *[]){ "./pfprofctl", "heatmap", "--record", "2", NULL },
				 "/dev/null", HEATMAP_ERR);
	expect(status == 1 && file_contains(HEATMAP_ERR, kernel_has_damon(&why) ?
					    "(kthreadd) is a kernel thread: it has no address "
					    "space: Invalid argument" : "this kernel has no DAMON"),
	       "pfprofctl heatmap --record 2: exit %d, not the message", status);
	nobody = spawn_nobody_sleeper();
	in_child(record_as_nobody, nobody, "recording as nobody");
	kill_and_reap(nobody);
	if (kernel_has_damon(&why))
		expect_ok(damon_as_booted(), "DAMON's sysfs interface, no kdamond of it on");
	yielder = spawn_yielder();
	toucher = spawn_piped(random_toucher, &go_fd, &back_fd);
	expect(read(back_fd, &start, sizeof(start)) == sizeof(start), "the toucher's region");
	snprintf(pid, sizeof(pid), "%d", (int)toucher);
	stat_before = damon_stat_enabled(DAMON_STAT_ENABLED);
	status = run_program_err((char *[]){ "./pfprofctl", "heatmap", "--record", "--take-damon",
					     "-s", HEATMAP_SECONDS, "-o", HEATMAP_LOG, pid, NULL },
				 HEATMAP_OUT, HEATMAP_ERR);
	if (!kernel_has_damon(&why)) {
		show_file(HEATMAP_ERR, "  heatmap_record| ");
		expect(status == 1 && file_contains(HEATMAP_ERR, "this kernel has no DAMON"),
		       "pfprofctl heatmap where %s: exit %d, not the message", why, status);
		goto out;
	}
	show_file(HEATMAP_OUT, "  heatmap_record| ");
	show_file(HEATMAP_ERR, "  heatmap_record| ");
	expect(status == 0, "pfprofctl heatmap --record: exit %d", status);
	read_record_summary(&said_snapshots, &said_empty);
	read_heatmap_log(HEATMAP_LOG, start, h);
	share = hot_share(&h->heat, &most);
	seen = seen_share(&h->heat);
	printf("  heatmap_record: %u snapshots, the region in %u map lines; %.1f %% of it seen "
	       "accessed, %.1f %% at half the most accesses (%" PRIu32 ") or more\n",
	       h->snapshots, h->maps_of_start, 100 * seen, 100 * share, most);
	expect(said_snapshots == (unsigned long)atoi(HEATMAP_SECONDS),
	       "%lu snapshots in " HEATMAP_SECONDS " s", said_snapshots);
	expect(h->snapshots == said_snapshots - said_empty,
	       "%u snapshots with regions in the log, said %lu of which %lu empty", h->snapshots,
	       said_snapshots, said_empty);
	expect(2 * h->snapshots > said_snapshots, "only %u of %lu snapshots had regions",
	       h->snapshots, said_snapshots);
	expect(h->maps_of_start == 1, "the region in %u map lines, want 1", h->maps_of_start);
	expect(seen >= 0.9, "%.1f %% of the region seen accessed", 100 * seen);
	expect(damon_stat_enabled(DAMON_STAT_ENABLED) == stat_before,
	       "damon_stat was %d, is %d afterwards", stat_before,
	       damon_stat_enabled(DAMON_STAT_ENABLED));
	expect_ok(damon_check(DAMON_ADMIN), "no kdamond of the sysfs interface on afterwards");
out:
	free(h);
	kill_and_reap(toucher);
	kill_and_reap(yielder);
	close(go_fd);
	close(back_fd);
}

#define MANY_DIR "/tmp/pfprof-heatmaps"
#define MANY_CONF MANY_DIR "/pfprofd.conf"
#define MANY_OUT MANY_DIR "/out"
#define MANY_ERR MANY_DIR "/err"
#define MANY 10

/* MANY_DIR, and MANY_CONF naming it the log directory, with the lines extra. */
static void make_many_dir(const char *extra)
{
	FILE *conf;

	expect(!mkdir(MANY_DIR, 0755) || errno == EEXIST, "%s: %s", MANY_DIR, strerror(errno));
	conf = fopen(MANY_CONF, "we");
	expect(conf && fprintf(conf, "log_dir = %s\n%s", MANY_DIR, extra) > 0 && !fclose(conf),
	       "%s: %s", MANY_CONF, strerror(errno));
}

/*
 * The start of a test of pfprofctl heatmap --record in MANY_DIR: false
 * (said) where the kernel has no DAMON; else DAMON as booted, and
 * MANY_CONF with the lines extra.
 */
static bool heatmap_test_begins(const char *test, const char *extra)
{
	const char *why;

	if (!kernel_has_damon(&why)) {
		printf("  %s: not run: %s\n", test, why);
		return false;
	}
	expect_ok(damon_as_booted(), "DAMON's sysfs interface, no kdamond of it on");
	make_many_dir(extra);
	return true;
}

/* Snapshots in the heatmap log of pid in MANY_DIR, after a header naming pid. */
static unsigned int many_snapshots(pid_t pid)
{
	char path[64], line[512], header[64];
	unsigned int snapshots = 0;
	unsigned long long ns, last = 0;
	FILE *f;

	snprintf(path, sizeof(path), MANY_DIR "/heatmap-%d.log", (int)pid);
	snprintf(header, sizeof(header), "# pid %d comm ", (int)pid);
	f = fopen(path, "re");
	expect(f != NULL, "%s: %s", path, strerror(errno));
	expect(fgets(line, sizeof(line), f) && fgets(line, sizeof(line), f) &&
	       !strncmp(line, header, strlen(header)), "%s: no header naming PID %d", path,
	       (int)pid);
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "region\t%llu", &ns) == 1 && ns != last) {
			snapshots++;
			last = ns;
		}
	}
	fclose(f);
	return snapshots;
}

/*
 * pfprofctl heatmap --record of MANY processes at once: a kdamond and a
 * log each, in the configured log directory. The second exits after 2 s:
 * its recording ends with it, the others go on for their 4 s; every
 * kdamond is off afterwards.
 */
void test_heatmap_record_many(void)
{
	char args[MANY][16], *argv[8 + MANY + 1] = { "./pfprofctl", "-c", MANY_CONF, "heatmap",
						     "--record", "--take-damon", "-s", "4" };
	pid_t sleepers[MANY], ctl;
	char said[64];
	int status;

	if (!heatmap_test_begins("heatmap_record_many", ""))
		return;
	for (int i = 0; i < MANY; i++) {
		sleepers[i] = spawn_sleeper();
		snprintf(args[i], sizeof(args[i]), "%d", (int)sleepers[i]);
		argv[8 + i] = args[i];
	}
	ctl = start_program_err(argv, MANY_OUT, MANY_ERR);
	sleep_ms(2000);
	kill_and_reap(sleepers[1]);
	status = wait_program(ctl, "pfprofctl heatmap --record");
	show_file(MANY_OUT, "  heatmap_record_many| ");
	show_file(MANY_ERR, "  heatmap_record_many| ");
	expect(status == 0, "pfprofctl heatmap --record of %d processes: exit %d", MANY, status);
	for (int i = 0; i < MANY; i++) {
		unsigned int n = many_snapshots(sleepers[i]);

		printf("  heatmap_record_many: PID %d: %u snapshots\n", (int)sleepers[i], n);
		if (i == 1) {
			snprintf(said, sizeof(said), "process %d exited: ", (int)sleepers[i]);
			expect(n >= 1 && n < 4, "the process that exited: %u snapshots", n);
		} else {
			snprintf(said, sizeof(said), "4 snapshots of process %d in ",
				 (int)sleepers[i]);
			expect(n >= 3, "PID %d: %u snapshots of 4", (int)sleepers[i], n);
			kill_and_reap(sleepers[i]);
		}
		expect(file_contains(MANY_OUT, said), "not said: %s", said);
	}
	expect_ok(damon_check(DAMON_ADMIN), "no kdamond of the sysfs interface on afterwards");
}

#define UNIT_NAME "pfprof-heatmap-test.service"
#define UNIT_DIR CGROUPFS_ROOT "/system.slice/" UNIT_NAME

/* pfprofctl heatmap --record for 2 s of target (its option, its name): a log each of want. */
static void record_target(const char *option, const char *name, const pid_t *want, int n)
{
	char *argv[] = { "./pfprofctl", "-c", MANY_CONF, "heatmap", "--record", "--take-damon",
			 (char *)option, "-s", "2", (char *)name, NULL };
	int status = run_program_err(argv, MANY_OUT, MANY_ERR);

	show_file(MANY_OUT, "  heatmap_record_targets| ");
	show_file(MANY_ERR, "  heatmap_record_targets| ");
	expect(status == 0, "pfprofctl heatmap --record %s %s: exit %d", option, name, status);
	for (int i = 0; i < n; i++) {
		char said[64];

		snprintf(said, sizeof(said), "2 snapshots of process %d in ", (int)want[i]);
		expect(file_contains(MANY_OUT, said) && many_snapshots(want[i]) == 2,
		       "%s %s: not 2 snapshots of PID %d", option, name, (int)want[i]);
	}
}

/*
 * --record --tree and --unit: a tree's root and the child it forked; a
 * unit's two processes (a cgroup at the place systemd gives a service's,
 * on cgroup2 mounted where pfprofctl looks); a unit that is not running.
 */
void test_heatmap_record_targets(void)
{
	int go_fd, child_fd, status;
	pid_t tree[2], unit[2];
	char root[16];

	if (!heatmap_test_begins("heatmap_record_targets", ""))
		return;
	tree[0] = spawn_forker(&go_fd, &child_fd);
	expect(write(go_fd, "g", 1) == 1 && read(child_fd, &tree[1], sizeof(tree[1])) ==
	       sizeof(tree[1]), "the forker's child: %s", strerror(errno));
	snprintf(root, sizeof(root), "%d", (int)tree[0]);
	record_target("--tree", root, tree, 2);
	kill_and_reap(tree[0]);
	close(go_fd);
	close(child_fd);

	mount_cgroup2(CGROUPFS_ROOT);
	expect(!mkdir(CGROUPFS_ROOT "/system.slice", 0755) || errno == EEXIST,
	       "mkdir system.slice: %s", strerror(errno));
	expect(!mkdir(UNIT_DIR, 0755) || errno == EEXIST, "mkdir %s: %s", UNIT_DIR,
	       strerror(errno));
	for (int i = 0; i < 2; i++) {
		unit[i] = spawn_sleeper();
		move_to_cgroup(UNIT_DIR, unit[i]);
	}
	record_target("--unit", UNIT_NAME, unit, 2);
	for (int i = 0; i < 2; i++)
		kill_and_reap(unit[i]);
	expect(!rmdir(UNIT_DIR), "rmdir %s: %s", UNIT_DIR, strerror(errno));
	status = run_program_err((char *[]){ "./pfprofctl", "heatmap", "--record", "--unit",
					     UNIT_NAME, NULL }, MANY_OUT, MANY_ERR);
	show_file(MANY_ERR, "  heatmap_record_targets| ");
	expect(status == 1 && file_contains(MANY_ERR, "it is not running (no cgroup)"),
	       "a unit that is not running: exit %d, not the message", status);
	expect_ok(damon_check(DAMON_ADMIN), "no kdamond of the sysfs interface on afterwards");
}

#define SURVIVES_PFPROFD_ERR MANY_DIR "/pfprofd.err"

/* pfprofd on MANY_CONF's directories, in the foreground. */
static pid_t start_pfprofd(void)
{
	return start_program_err((char *[]){ "./pfprofd", "--foreground", "--config", MANY_CONF,
					     NULL }, NULL, SURVIVES_PFPROFD_ERR);
}

static void stop_pfprofd(pid_t pfprofd)
{
	expect(!kill(pfprofd, SIGTERM), "SIGTERM to pfprofd: %s", strerror(errno));
	expect(wait_program(pfprofd, "pfprofd") == 0, "pfprofd failed (%s)",
	       SURVIVES_PFPROFD_ERR);
}

/*
 * A recording goes on through what happens to the rest of pfprof: pfprofd
 * stopped, the module unloaded and loaded again, pfprofd started again,
 * all during a 5 s recording, which still takes its 5 snapshots.
 */
void test_heatmap_record_survives(void)
{
	char pid[16], *argv[] = { "./pfprofctl", "-c", MANY_CONF, "heatmap", "--record",
				  "--take-damon", "-s", "5", pid, NULL };
	pid_t sleeper, pfprofd, ctl;

	if (!heatmap_test_begins("heatmap_record_survives", "pid_file = " MANY_DIR "/pids\n"
				 "runtime_dir = " MANY_DIR "\nstate_dir = " MANY_DIR "\n"))
		return;
	sleeper = spawn_sleeper();
	snprintf(pid, sizeof(pid), "%d", (int)sleeper);
	pfprofd = start_pfprofd();
	ctl = start_program_err(argv, MANY_OUT, MANY_ERR);
	sleep_ms(1500);
	stop_pfprofd(pfprofd);
	expect_ok(module_unload(), "rmmod during the recording");
	expect_ok(module_load(NULL), "insmod again");
	pfprofd = start_pfprofd();
	sleep_ms(1000);
	stop_pfprofd(pfprofd);
	expect(wait_program(ctl, "pfprofctl heatmap --record") == 0,
	       "pfprofctl heatmap --record failed");
	show_file(MANY_OUT, "  heatmap_record_survives| ");
	show_file(MANY_ERR, "  heatmap_record_survives| ");
	expect(file_contains(MANY_OUT, "5 snapshots of process") && many_snapshots(sleeper) == 5,
	       "not 5 snapshots of PID %d through pfprofd's restart and the module's reload",
	       (int)sleeper);
	kill_and_reap(sleeper);
	expect_ok(damon_check(DAMON_ADMIN), "no kdamond of the sysfs interface on afterwards");
}

/*
 * The heatmap log of pid in MANY_DIR, rotated file n (0: the current one):
 * its header names pid, and its first region line comes after map lines
 * (each file can be drawn on its own). False if it is not there.
 */
static bool rotated_log_whole(pid_t pid, unsigned int n)
{
	char path[96], line[512], header[64];
	bool maps = false;
	FILE *f;

	if (n)
		snprintf(path, sizeof(path), MANY_DIR "/heatmap-%d.log.%u", (int)pid, n);
	else
		snprintf(path, sizeof(path), MANY_DIR "/heatmap-%d.log", (int)pid);
	snprintf(header, sizeof(header), "# pid %d comm ", (int)pid);
	f = fopen(path, "re");
	if (!f)
		return false;
	expect(fgets(line, sizeof(line), f) && !strncmp(line, "# pfprof heatmap log", 20) &&
	       fgets(line, sizeof(line), f) && !strncmp(line, header, strlen(header)),
	       "%s: no header naming PID %d", path, (int)pid);
	while (fgets(line, sizeof(line), f) && strncmp(line, "region\t", 7))
		maps |= !strncmp(line, "map\t", 4);
	fclose(f);
	expect(maps, "%s: a region before any map line", path);
	return true;
}

/*
 * The logs rotate as pfprofd's do (rotate_size, keep from the
 * configuration): with rotate_size 1 (a byte: every snapshot after the
 * first starts a file) and keep 2, four snapshots leave the current file,
 * .1 and .2, each beginning with its header and mappings; no .3. (2K
 * held two snapshots of a sleeper, whose mappings are a few lines.)
 */
void test_heatmap_record_rotates(void)
{
	char pid[16], path[96];
	pid_t sleeper;
	int status;

	if (!heatmap_test_begins("heatmap_record_rotates", "rotate_size = 1\nkeep = 2\n"))
		return;
	sleeper = spawn_sleeper();
	snprintf(pid, sizeof(pid), "%d", (int)sleeper);
	status = run_program_err((char *[]){ "./pfprofctl", "-c", MANY_CONF, "heatmap", "--record",
					     "--take-damon", "-s", "4", pid, NULL },
				 MANY_OUT, MANY_ERR);
	show_file(MANY_ERR, "  heatmap_record_rotates| ");
	expect(status == 0, "pfprofctl heatmap --record: exit %d", status);
	for (unsigned int n = 0; n <= 2; n++)
		expect(rotated_log_whole(sleeper, n), "heatmap-%d.log%s%.0u is missing", (int)sleeper,
		       n ? "." : "", n);
	snprintf(path, sizeof(path), MANY_DIR "/heatmap-%d.log.3", (int)sleeper);
	expect(access(path, F_OK), "%s is kept, beyond keep = 2", path);
	kill_and_reap(sleeper);
}
