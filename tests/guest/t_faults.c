// SPDX-License-Identifier: GPL-2.0
/*
 * Version 5 of the versioned region: where the faults of a process
 * registered with "R <pid> maps" are (MP3_RECORD_FAULTS).
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "harness.h"
#include "pfprof.h"
#include "procmaps.h"
#include "tests.h"

/* Faults exec takes without registers (arguments copied into the new stack), at most. */
#define EXEC_GUP_FAULTS_MAX 16
/* Pages each thread of faults_threads touches. */
#define THREAD_PAGES 1000

/* What the records of one process say, per kind of record. */
struct fault_sums {
	pid_t tgid;
	uint64_t counts_minor, counts_major;	/* MP3_RECORD_COUNTS */
	uint64_t faults_minor, faults_major;	/* MP3_RECORD_FAULTS, every mapping */
	uint64_t region_minor, region_major;	/* those of the mapping at region_start */
	uint64_t region_start;
	unsigned int unresolved;		/* MP3_MAPPING_UNRESOLVED records */
	unsigned int fault_records;
	uint32_t region_kind;
	uint64_t kind_minor[MP3_MAPPING_SHMEM + 1];	/* every mapping's, by kind */
	/* The first records of files: where, which inode, which device they say. */
	struct fault_file { uint64_t start, inode; uint32_t dev; } files[32];
	unsigned int nr_files;
};

static void add_fault_record(void *ctx, const struct mp3_proc_record *r)
{
	struct fault_sums *sums = ctx;

	if (r->tgid != (uint32_t)sums->tgid)
		return;
	if (r->type == MP3_RECORD_COUNTS) {
		sums->counts_minor += r->counts.minor_faults;
		sums->counts_major += r->counts.major_faults;
		return;
	}
	if (r->type != MP3_RECORD_FAULTS)
		return;
	sums->fault_records++;
	if (r->mapping <= MP3_MAPPING_SHMEM)
		sums->kind_minor[r->mapping] += r->faults.minor_faults;
	sums->faults_minor += r->faults.minor_faults;
	sums->faults_major += r->faults.major_faults;
	if (r->mapping == MP3_MAPPING_UNRESOLVED)
		sums->unresolved++;
	if (r->faults.inode && sums->nr_files < sizeof(sums->files) / sizeof(sums->files[0]))
		sums->files[sums->nr_files++] = (struct fault_file){ r->faults.start,
								   r->faults.inode, r->dev };
	if (r->faults.start == sums->region_start) {
		sums->region_minor += r->faults.minor_faults;
		sums->region_major += r->faults.major_faults;
		sums->region_kind = r->mapping;
	}
}

/* Waits for a byte on the pipe it is given, then touches a region of its own. */
static void *toucher(void *go_fd)
{
	char go;

	if (go_fd && read(*(int *)go_fd, &go, 1) != 1)
		_exit(7);
	touch_region(map_region(THREAD_PAGES), THREAD_PAGES);
	return NULL;
}

/*
 * Two threads started before it is registered (it says so) and two after,
 * each touching THREAD_PAGES pages of its own once told to, and the main
 * thread as many: the first have our counters, the others inherit them.
 */
static void threads_child(int go_fd, int done_fd)
{
	pthread_t threads[4];
	char go;

	if (prctl(PR_SET_THP_DISABLE, 1, 0, 0, 0))
		_exit(6);
	for (int i = 0; i < 2; i++)
		if (pthread_create(&threads[i], NULL, toucher, &go_fd))
			_exit(8);
	child_says(done_fd, 0);
	if (read(go_fd, &go, 1) != 1)
		_exit(3);
	for (int i = 2; i < 4; i++)
		if (pthread_create(&threads[i], NULL, toucher, NULL))
			_exit(8);
	touch_region(map_region(THREAD_PAGES), THREAD_PAGES);
	for (int i = 0; i < 4; i++)
		pthread_join(threads[i], NULL);
	child_done(done_fd, 0);
}

static void register_maps(pid_t pid)
{
	char cmd[64];

	snprintf(cmd, sizeof(cmd), "R %d maps", (int)pid);
	expect_ok(status_write(cmd), cmd);
}

/* A child of the faults tests registered with maps, and the ring it is read from. */
struct maps_child {
	pid_t pid;
	int go, back;		/* tells it to go; hears from it */
	int fd;
	struct mp3ring ring;
	uint64_t from;		/* the first sample after its registration */
};

/*
 * Starts fn as a child (spawn_piped()) and registers it with maps once it
 * has said size bytes into ready (none if ready is NULL); from then on the
 * ring's samples count.
 */
static void maps_child_start(struct maps_child *c, void (*fn)(int, int), void *ready,
			     size_t size)
{
	c->pid = spawn_piped(fn, &c->go, &c->back);
	map_ring(&c->ring, &c->fd);
	if (ready)
		expect(read(c->back, ready, size) == (ssize_t)size, "the child died");
	register_maps(c->pid);
	c->from = wait_head(&c->ring, mp3ring_head(&c->ring) + 1, ticks_ms(&c->ring, 2));
}

static void maps_child_go(struct maps_child *c, const char *bytes)
{
	size_t len = strlen(bytes);

	expect(write(c->go, bytes, len) == (ssize_t)len, "telling the child to go: %s",
	       strerror(errno));
}

/* What the child says back, size bytes into what. */
static void maps_child_hear(struct maps_child *c, void *what, size_t size)
{
	expect(read(c->back, what, size) == (ssize_t)size, "the child died");
}

/*
 * Adds the child's records from its registration on to sums, three samples
 * from now: faults are placed at the tick after the one that counted them.
 * Returns the end of the samples read.
 */
static uint64_t maps_child_records(struct maps_child *c, struct fault_sums *sums)
{
	uint64_t to = wait_head(&c->ring, mp3ring_head(&c->ring) + 3, 2000);

	sums->tgid = c->pid;
	for_each_record_between(&c->ring, c->from, to, add_fault_record, sums);
	return to;
}

static void maps_child_end(struct maps_child *c)
{
	kill_and_reap(c->pid);
	close(c->go);
	close(c->back);
	close(c->fd);
}

/* Every fault in a faults record once: as many as the counts records and /proc say. */
static void expect_all_recorded(const char *test, const struct fault_sums *sums,
				const struct proc_stat *before, const struct proc_stat *after)
{
	expect(sums->faults_minor == sums->counts_minor &&
	       sums->faults_major == sums->counts_major &&
	       sums->counts_minor == after->minflt - before->minflt &&
	       sums->counts_major == after->majflt - before->majflt,
	       "%s: faults records %" PRIu64 "/%" PRIu64 ", counts %" PRIu64 "/%" PRIu64
	       ", /proc %llu/%llu", test, sums->faults_minor, sums->faults_major,
	       sums->counts_minor, sums->counts_major, after->minflt - before->minflt,
	       after->majflt - before->majflt);
}

/*
 * The first touch of a 64 MiB anonymous region: every one of its 16384
 * minor faults in that mapping's records, and the faults of every mapping
 * together equal to the process's counts and /proc/<pid>/stat. A process
 * registered without maps gets no such record.
 */
void test_faults_anon_region(void)
{
	struct fault_sums sums = {}, plain = {};
	struct proc_stat before, after;
	struct maps_child c;
	struct worker other;
	uintptr_t addr;
	uint64_t to;

	worker_spawn(&other);
	expect_ok(status_cmd('R', other.pid), "R worker without maps");
	maps_child_start(&c, region_child, NULL, 0);
	read_pid_stat(c.pid, &before);
	maps_child_go(&c, "g");
	maps_child_hear(&c, &addr, sizeof(addr));
	worker_do(&other, 't', 100);
	read_pid_stat(c.pid, &after);
	sums.region_start = mapping_start(c.pid, addr);
	to = maps_child_records(&c, &sums);
	plain.tgid = other.pid;
	for_each_record_between(&c.ring, c.from, to, add_fault_record, &plain);
	printf("  faults_anon_region: region %" PRIu64 " minor %" PRIu64 " major (kind %u);"
	       " all mappings %" PRIu64 "/%" PRIu64 " in %u records, %u unresolved;"
	       " counts %" PRIu64 "/%" PRIu64 "; /proc %llu/%llu\n",
	       sums.region_minor, sums.region_major, sums.region_kind, sums.faults_minor,
	       sums.faults_major, sums.fault_records, sums.unresolved, sums.counts_minor,
	       sums.counts_major, after.minflt - before.minflt, after.majflt - before.majflt);
	expect(sums.region_minor == REGION_PAGES && !sums.region_major &&
	       sums.region_kind == MP3_MAPPING_ANON,
	       "the region: %" PRIu64 " minor, %" PRIu64 " major, kind %u; want %d, 0, %d",
	       sums.region_minor, sums.region_major, sums.region_kind, REGION_PAGES,
	       MP3_MAPPING_ANON);
	/* One thread, which maps nothing while it faults: the sampler never waits for the lock. */
	expect(!sums.unresolved, "%u records of faults not placed", sums.unresolved);
	expect_all_recorded("faults_anon_region", &sums, &before, &after);
	expect(plain.counts_minor >= 100 && !plain.fault_records,
	       "registered without maps: %" PRIu64 " minor faults counted, %u faults records",
	       plain.counts_minor, plain.fault_records);
	expect(!c.ring.hdr->faults_dropped, "%llu faults dropped",
	       (unsigned long long)c.ring.hdr->faults_dropped);
	maps_child_end(&c);
	kill_and_reap(other.pid);
}

/*
 * Threads that were there at the registration and threads created after:
 * each fault in the records once, none missing.
 */
void test_faults_threads(void)
{
	struct proc_stat before, after;
	struct fault_sums sums = {};
	struct maps_child c;
	uintptr_t word;

	/* Its first two threads are there before it is registered. */
	maps_child_start(&c, threads_child, &word, sizeof(word));
	read_pid_stat(c.pid, &before);
	maps_child_go(&c, "ggg");
	maps_child_hear(&c, &word, sizeof(word));
	read_pid_stat(c.pid, &after);
	maps_child_records(&c, &sums);
	printf("  faults_threads: %" PRIu64 "/%" PRIu64 " in %u records, %u unresolved;"
	       " counts %" PRIu64 "/%" PRIu64 "; /proc %llu/%llu\n",
	       sums.faults_minor, sums.faults_major, sums.fault_records, sums.unresolved,
	       sums.counts_minor, sums.counts_major, after.minflt - before.minflt,
	       after.majflt - before.majflt);
	expect(sums.faults_minor >= 5 * THREAD_PAGES, "%" PRIu64 " minor faults, %d pages touched",
	       sums.faults_minor, 5 * THREAD_PAGES);
	/*
	 * Threads mapping their regions hold the mmap lock for writing: a
	 * tick meanwhile places none of the process's faults (unresolved).
	 */
	expect_all_recorded("faults_threads", &sums, &before, &after);
	maps_child_end(&c);
}

/* Touches fresh pages until killed: a fault for every page, all the time. */
static void faulting_child(int go_fd, int done_fd)
{
	char go;

	(void)done_fd;
	if (read(go_fd, &go, 1) != 1)
		_exit(3);
	for (;;) {
		char *p = map_region(256);

		touch_region(p, 256);
		munmap(p, 256 * sysconf(_SC_PAGESIZE));
	}
}

/*
 * The module unloaded while a process registered with maps takes faults
 * on another CPU: its counters go with the module (the kernel log is
 * checked after the suite), and a new load counts where the faults are
 * again.
 */
void test_faults_unload(void)
{
	int go, done;
	pid_t child;

	child = spawn_piped(faulting_child, &go, &done);
	register_maps(child);
	expect(write(go, "g", 1) == 1, "telling the child to go: %s", strerror(errno));
	sleep_ms(300);
	expect_ok(module_unload(), "rmmod while a maps process faults");
	expect_ok(module_load(NULL), "loading again");
	register_maps(child);
	sleep_ms(300);
	expect_ok(status_cmd('U', child), "U the maps process");
	kill_and_reap(child);
	close(go);
	close(done);
}

/*
 * spawn_piped()'s child: on a byte, execs work, its progress lines (stderr)
 * going back: 16 MiB touched at 5000 random pages, then a long pause.
 */
static void exec_work_child(int go, int back)
{
	char byte;

	if (read(go, &byte, 1) != 1 || dup2(back, STDERR_FILENO) < 0)
		_exit(3);
	execl("./work", "work", "--no-register", "--pause", "3600", "-n", "2", "16", "R", "5000",
	      (char *)NULL);
	_exit(127);
}

/* Reads what the child writes until text comes; fails after timeout_ms. */
static void wait_for_text(int fd, const char *text, unsigned int timeout_ms)
{
	uint64_t deadline = now_ns() + timeout_ms * 1000000ULL;
	char seen[4096];
	size_t len = 0;

	for (;;) {
		struct pollfd pfd = { .fd = fd, .events = POLLIN };
		ssize_t n;

		expect(now_ns() < deadline, "no '%s' after %u ms: %.*s", text, timeout_ms,
		       (int)len, seen);
		if (poll(&pfd, 1, 50) <= 0)
			continue;
		n = read(fd, seen + len, sizeof(seen) - 1 - len);
		expect(n > 0, "the child died: %.*s", (int)len, seen);
		len += n;
		seen[len] = '\0';
		if (strstr(seen, text))
			return;
	}
}

/*
 * A process registered with maps that execs: its counters stay with it, and
 * the faults of the new program (its own anonymous buffer, the program's and
 * its libraries' files) are placed in the new memory map, each once.
 */
/*
 * A file's record says the device /proc/<pid>/maps shows for its mapping
 * (ring version 9): with the inode, which file it is. Records of the
 * program before the exec may name mappings gone since: those are passed.
 */
static void expect_devices_of_maps(pid_t pid, const struct fault_sums *sums)
{
	unsigned int matched = 0;
	char path[64], line[512];
	struct procmaps_line m;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/maps", (int)pid);
	f = fopen(path, "re");
	expect(f != NULL, "%s: %s", path, strerror(errno));
	while (fgets(line, sizeof(line), f)) {
		if (!procmaps_parse_line(line, &m))
			continue;
		for (unsigned int i = 0; i < sums->nr_files; i++) {
			const struct fault_file *file = &sums->files[i];

			if (file->start != m.start || file->inode != m.inode)
				continue;
			expect(file->dev == m.dev, "the record of %#llx, inode %llu, says device %#x,"
			       " maps %#llx", (unsigned long long)m.start,
			       (unsigned long long)m.inode, file->dev, (unsigned long long)m.dev);
			matched++;
		}
	}
	fclose(f);
	expect(matched > 0, "none of %u files' records found in %s", sums->nr_files, path);
}

void test_faults_exec(void)
{
	struct fault_sums sums = {};
	struct maps_child c;

	maps_child_start(&c, exec_work_child, NULL, 0);
	maps_child_go(&c, "g");
	wait_for_text(c.back, "iteration 1/2", 30000);
	maps_child_records(&c, &sums);
	printf("  faults_exec: %" PRIu64 "/%" PRIu64 " in %u records, %u unresolved; anonymous %"
	       PRIu64 ", files %" PRIu64 " + %" PRIu64 " on tmpfs minor; counts %" PRIu64 "/%"
	       PRIu64 "\n", sums.faults_minor, sums.faults_major, sums.fault_records,
	       sums.unresolved, sums.kind_minor[MP3_MAPPING_ANON], sums.kind_minor[MP3_MAPPING_FILE],
	       sums.kind_minor[MP3_MAPPING_SHMEM], sums.counts_minor, sums.counts_major);
	/*
	 * 5000 random pages of 4096: about 2900 touched, each a first touch (two
	 * faults under TCG, whose atomic add reads the page before it writes).
	 */
	expect(sums.kind_minor[MP3_MAPPING_ANON] >= 2000,
	       "%" PRIu64 " minor faults in anonymous mappings after the exec",
	       sums.kind_minor[MP3_MAPPING_ANON]);
	/* The initramfs guest's files are on tmpfs: its mappings are shmem. */
	expect(sums.kind_minor[MP3_MAPPING_FILE] + sums.kind_minor[MP3_MAPPING_SHMEM] > 0,
	       "no fault in the new program's files");
	expect_devices_of_maps(c.pid, &sums);
	/*
	 * exec writes the arguments and environment into the new stack through
	 * get_user_pages(): faults the task counts without registers, which no
	 * perf event sees (docs/faults.md); a page or two here.
	 */
	expect(sums.faults_minor <= sums.counts_minor &&
	       sums.counts_minor - sums.faults_minor <= EXEC_GUP_FAULTS_MAX &&
	       sums.faults_major == sums.counts_major,
	       "faults records %" PRIu64 "/%" PRIu64 ", counts %" PRIu64 "/%" PRIu64,
	       sums.faults_minor, sums.faults_major, sums.counts_minor, sums.counts_major);
	maps_child_end(&c);
}

#define STORM_PAGES 256
#define STORM_THREADS 2
#define STORM_SECONDS 2

/* Touches STORM_PAGES pages and gives them back, over and over, for STORM_SECONDS. */
static void *storm_thread(void *unused)
{
	long page = sysconf(_SC_PAGESIZE);
	char *p = map_region(STORM_PAGES);
	uint64_t end = now_ns() + STORM_SECONDS * 1000000000ULL;

	(void)unused;
	while (now_ns() < end) {
		touch_region(p, STORM_PAGES);
		if (madvise(p, STORM_PAGES * page, MADV_DONTNEED))
			_exit(9);
	}
	return NULL;
}

/* On a byte, STORM_THREADS threads fault as fast as they can; then it says so. */
static void storm_child(int go, int back)
{
	pthread_t threads[STORM_THREADS];
	char byte;

	if (prctl(PR_SET_THP_DISABLE, 1, 0, 0, 0) || read(go, &byte, 1) != 1)
		_exit(6);
	for (int i = 0; i < STORM_THREADS; i++)
		if (pthread_create(&threads[i], NULL, storm_thread, NULL))
			_exit(8);
	for (int i = 0; i < STORM_THREADS; i++)
		pthread_join(threads[i], NULL);
	child_done(back, 0);
}

/*
 * Faults as fast as two threads can take them: each is placed, left
 * unresolved or counted as dropped (a CPU's buffer full), none lost
 * otherwise; on the debug kernel, no splat and no leak.
 */
void test_faults_storm(void)
{
	uint64_t dropped, counted, recorded;
	struct fault_sums sums = {};
	struct maps_child c;
	uintptr_t word;

	maps_child_start(&c, storm_child, NULL, 0);
	dropped = c.ring.hdr->faults_dropped;
	maps_child_go(&c, "g");
	maps_child_hear(&c, &word, sizeof(word));
	maps_child_records(&c, &sums);
	dropped = c.ring.hdr->faults_dropped - dropped;
	counted = sums.counts_minor + sums.counts_major;
	recorded = sums.faults_minor + sums.faults_major;
	printf("  faults_storm: %" PRIu64 " faults in %d s (%" PRIu64 "/s): %" PRIu64
	       " in faults records (%u unresolved records), %" PRIu64 " dropped\n", counted,
	       STORM_SECONDS, counted / STORM_SECONDS, recorded, sums.unresolved, dropped);
	expect(counted >= 10 * STORM_PAGES, "only %" PRIu64 " faults", counted);
	expect(recorded + dropped == counted,
	       "%" PRIu64 " recorded + %" PRIu64 " dropped, %" PRIu64 " counted", recorded,
	       dropped, counted);
	maps_child_end(&c);
}

#define PERF_DATA "/tmp/pfprof-perf.data"
#define PERF_SCRIPT_OUT "/tmp/pfprof-perf.txt"

/*
 * perf record of every page fault of pid, with its address; returns once
 * perf counts. It starts with its events disabled (-D -1) and enables them
 * when told on its control pipe, acknowledging on the other: a process
 * that faults from then on loses nothing to perf's start-up, however slow
 * the guest. *control stays open until perf ends: perf takes its end for
 * an error.
 */
static pid_t start_perf_record(pid_t pid, int *control)
{
	int ctl[2], ack[2];
	char target[16], control_fds[48], reply[8] = "";
	struct pollfd answer;
	pid_t perf;

	unlink(PERF_DATA);
	expect(!pipe(ctl) && !pipe(ack), "pipe: %s", strerror(errno));
	snprintf(target, sizeof(target), "%d", (int)pid);
	snprintf(control_fds, sizeof(control_fds), "fd:%d,%d", ctl[0], ack[1]);
	perf = fork();
	expect(perf >= 0, "fork: %s", strerror(errno));
	if (!perf) {
		int err = open(PERF_DATA ".err", O_WRONLY | O_CREAT | O_TRUNC, 0644);

		if (err < 0 || dup2(err, STDERR_FILENO) < 0)
			_exit(126);
		execl("./perf", "perf", "record", "-N", "-B", "-e", "minor-faults,major-faults",
		      "-c", "1", "-d", "-D", "-1", "--control", control_fds, "-o", PERF_DATA, "-p",
		      target, (char *)NULL);
		_exit(127);
	}
	close(ctl[0]);
	close(ack[1]);
	expect(write(ctl[1], "enable\n", 7) == 7, "perf's control pipe: %s", strerror(errno));
	answer = (struct pollfd){ .fd = ack[0], .events = POLLIN };
	expect(poll(&answer, 1, 20000) == 1 && read(ack[0], reply, sizeof(reply) - 1) > 0 &&
	       !strncmp(reply, "ack", 3), "perf record did not enable its events in 20 s");
	close(ack[0]);
	*control = ctl[1];
	return perf;
}

/* perf's faults: in [start, start + bytes), and in all. */
static void perf_faults(uint64_t start, uint64_t bytes, uint64_t *in_region, uint64_t *all)
{
	char *argv[] = { "./perf", "script", "-i", PERF_DATA, "-F", "addr", NULL };
	unsigned long long addr;
	char line[128];
	FILE *f;

	expect(run_program_err(argv, PERF_SCRIPT_OUT, PERF_SCRIPT_OUT ".err") == 0,
	       "perf script failed");
	show_file(PERF_DATA ".err", "perf record| ");
	show_file(PERF_SCRIPT_OUT ".err", "perf script| ");
	f = fopen(PERF_SCRIPT_OUT, "r");
	expect(f, "%s: %s", PERF_SCRIPT_OUT, strerror(errno));
	*in_region = *all = 0;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, " %llx", &addr) != 1)
			continue;
		(*all)++;
		*in_region += addr >= start && addr - start < bytes;
	}
	fclose(f);
}

/*
 * The same faults seen by perf record -e minor-faults,major-faults -d (what
 * an administrator would use instead): as many in the region, and in all,
 * within 1 %. The guest's perf is Debian 12's (6.1) on every kernel.
 */
void test_faults_perf_agrees(void)
{
	uint64_t perf_region, perf_all;
	struct fault_sums sums = {};
	struct maps_child c;
	uintptr_t addr;
	int status, control;
	pid_t perf;

	maps_child_start(&c, region_child, NULL, 0);
	perf = start_perf_record(c.pid, &control);
	maps_child_go(&c, "g");
	maps_child_hear(&c, &addr, sizeof(addr));
	sums.region_start = mapping_start(c.pid, addr);
	maps_child_records(&c, &sums);
	/* perf record writes its data out, then dies of the SIGINT it caught. */
	kill(perf, SIGINT);
	expect(waitpid(perf, &status, 0) == perf &&
	       ((WIFEXITED(status) && !WEXITSTATUS(status)) ||
		(WIFSIGNALED(status) && WTERMSIG(status) == SIGINT)),
	       "perf record ended with status %#x", status);
	close(control);
	perf_faults(sums.region_start, REGION_PAGES * (uint64_t)sysconf(_SC_PAGESIZE),
		    &perf_region, &perf_all);
	printf("  faults_perf_agrees: region %" PRIu64 ", perf %" PRIu64 "; all %" PRIu64
	       ", perf %" PRIu64 "\n", sums.region_minor + sums.region_major, perf_region,
	       sums.faults_minor + sums.faults_major, perf_all);
	expect(within_pct((double)(sums.region_minor + sums.region_major), (double)perf_region, 1),
	       "the region: %" PRIu64 " faults, perf %" PRIu64, sums.region_minor +
	       sums.region_major, perf_region);
	expect(within_pct((double)(sums.faults_minor + sums.faults_major), (double)perf_all, 1),
	       "all mappings: %" PRIu64 " faults, perf %" PRIu64, sums.faults_minor +
	       sums.faults_major, perf_all);
	maps_child_end(&c);
}

/* How long one mprotect() of the big region holds the mmap lock, at least, in ms. */
#define HOLD_MS_MIN 20
/* The region it grows to, at most: 1 GiB of zero-page mappings (2 MiB of page tables). */
#define HOLD_PAGES_MAX (1UL << 18)
#define HOLD_GAP_MS 100
#define HOLD_SECONDS 2
#define HOLD_TOUCH_PAGES 2000

/* What the writer thread reports: how long it held the lock, how many times. */
struct hold_report {
	uint64_t held_ns, cycles;
	unsigned long pages;
};

struct hold_region {
	char *p;
	unsigned long pages;
	struct hold_report report;
};

/*
 * Read-maps pages pages (the zero page: no memory), so that mprotect() has
 * each to walk. Never writable: a read-only private mapping is not charged
 * to the commit limit, which 1 GiB would pass in a 512 MiB guest.
 */
static char *zero_mapped(unsigned long pages)
{
	long page = sysconf(_SC_PAGESIZE);
	char *p = mmap(NULL, pages * page, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED)
		_exit(3);

	for (unsigned long i = 0; i < pages; i++)
		(void)((volatile char *)p)[i * page];
	return p;
}

static uint64_t mprotect_ns(struct hold_region *h, int prot)
{
	uint64_t start = now_ns();

	if (mprotect(h->p, h->pages * sysconf(_SC_PAGESIZE), prot))
		_exit(10);
	return now_ns() - start;
}

/*
 * How long an mprotect() of the region holds the lock, its path warm: the
 * shorter of a change and the change back (each a change: mprotect() to the
 * protection a mapping has walks nothing). Under TCG a path's first run is
 * its translation too: on 7.3 in CI a first one took 20 ms and the later
 * ones 8.9. Leaves the region readable.
 */
static uint64_t hold_ns(struct hold_region *h)
{
	uint64_t to_none = mprotect_ns(h, PROT_NONE);
	uint64_t back = mprotect_ns(h, PROT_READ);

	return to_none < back ? to_none : back;
}

/* A region big enough that an mprotect() of it holds the lock HOLD_MS_MIN ms. */
static void hold_region_grow(struct hold_region *h)
{
	h->pages = 1UL << 14;
	h->p = zero_mapped(h->pages);
	while (hold_ns(h) < HOLD_MS_MIN * 1000000ULL && h->pages < HOLD_PAGES_MAX) {
		munmap(h->p, h->pages * sysconf(_SC_PAGESIZE));
		h->pages *= 2;
		h->p = zero_mapped(h->pages);
	}
}

/* Takes the mmap lock for writing (an mprotect() of the region), then leaves it free. */
static void *holder(void *arg)
{
	struct hold_region *h = arg;
	uint64_t end = now_ns() + HOLD_SECONDS * 1000000000ULL;

	while (now_ns() < end) {
		h->report.held_ns += mprotect_ns(h, h->report.cycles % 2 ? PROT_READ : PROT_NONE);
		h->report.cycles++;
		sleep_ms(HOLD_GAP_MS);
	}
	return NULL;
}

/* Touches HOLD_TOUCH_PAGES fresh pages over HOLD_SECONDS, one at a time. */
static void *slow_toucher(void *unused)
{
	long page = sysconf(_SC_PAGESIZE);
	char *p = map_region(HOLD_TOUCH_PAGES);

	(void)unused;
	for (unsigned long i = 0; i < HOLD_TOUCH_PAGES; i++) {
		p[i * page] = 1;
		if (i % 10 == 9)
			sleep_ms(HOLD_SECONDS * 1000 / (HOLD_TOUCH_PAGES / 10));
	}
	return NULL;
}

/*
 * spawn_piped()'s child: grows its big region and says so; on a byte, one
 * thread holds the mmap lock for writing now and then while another takes
 * faults all along; then it sends its report back and waits to be killed.
 */
static void lock_holding_child(int go, int back)
{
	static struct hold_region h;
	pthread_t threads[2];
	char byte;

	if (prctl(PR_SET_THP_DISABLE, 1, 0, 0, 0))
		_exit(6);
	hold_region_grow(&h);
	child_says(back, h.pages);
	if (read(go, &byte, 1) != 1 || pthread_create(&threads[0], NULL, holder, &h) ||
	    pthread_create(&threads[1], NULL, slow_toucher, NULL))
		_exit(8);
	pthread_join(threads[0], NULL);
	pthread_join(threads[1], NULL);
	if (write(back, &h.report, sizeof(h.report)) != sizeof(h.report))
		_exit(4);
	for (;;)
		pause();
}

/*
 * Faults taken while another thread holds the process's mmap lock for
 * writing, a few tens of ms at a time: the ticks that find it held keep
 * them for a later one, and every fault is placed, none unresolved.
 */
void test_faults_lock_held(void)
{
	struct hold_report report;
	struct fault_sums sums = {};
	struct maps_child c;
	uint64_t pages;

	/* The region is grown before the registration: its faults are not counted. */
	maps_child_start(&c, lock_holding_child, &pages, sizeof(pages));
	maps_child_go(&c, "g");
	maps_child_hear(&c, &report, sizeof(report));
	maps_child_records(&c, &sums);
	printf("  faults_lock_held: mprotect() of %" PRIu64 " pages held the lock %.1f ms %"
	       PRIu64 " times (%.0f %% of %d s); %" PRIu64 "/%" PRIu64 " in %u records, %u"
	       " unresolved; counts %" PRIu64 "/%" PRIu64 "\n", pages,
	       report.cycles ? report.held_ns / 1e6 / report.cycles : 0.0, report.cycles,
	       report.held_ns / 1e7 / HOLD_SECONDS, HOLD_SECONDS, sums.faults_minor,
	       sums.faults_major, sums.fault_records, sums.unresolved, sums.counts_minor,
	       sums.counts_major);
	/* A tick lands in a hold now and then: about one in seven at 20 ms in 120. */
	expect(report.held_ns >= report.cycles * HOLD_MS_MIN * 1000000ULL / 2,
	       "the lock was held %.1f ms a time, not %d", report.cycles ?
	       report.held_ns / 1e6 / report.cycles : 0.0, HOLD_MS_MIN);
	expect(sums.faults_minor >= HOLD_TOUCH_PAGES, "%" PRIu64 " minor faults, %d pages touched",
	       sums.faults_minor, HOLD_TOUCH_PAGES);
	expect(!sums.unresolved, "%u records of faults not placed", sums.unresolved);
	expect(sums.faults_minor == sums.counts_minor && sums.faults_major == sums.counts_major,
	       "faults records %" PRIu64 "/%" PRIu64 ", counts %" PRIu64 "/%" PRIu64,
	       sums.faults_minor, sums.faults_major, sums.counts_minor, sums.counts_major);
	maps_child_end(&c);
}

/* Faults a joiner may take while its counters are being created: not in any record. */
#define JOIN_LOST_MAX 8

struct unresolved_search {
	pid_t tgid;
	bool found;
};

static void find_unresolved(void *ctx, const struct mp3_proc_record *r)
{
	struct unresolved_search *s = ctx;

	s->found |= r->tgid == (uint32_t)s->tgid && r->type == MP3_RECORD_FAULTS &&
		    r->mapping == MP3_MAPPING_UNRESOLVED;
}

/*
 * Waits for pid's counters: the sampler creates them at its first tick
 * after the process joined (at its fork), or retries at the next. Three
 * ticks, then; the record of the faults it took before them, if it took
 * any, comes with them. On the debug kernel a joiner was once not run
 * before that tick and took no fault before its counters: no such record,
 * and none was missing (the counts below check that).
 */
static void wait_for_counters(const struct maps_child *c, pid_t pid, const char *test)
{
	struct unresolved_search s = { .tgid = pid };
	uint64_t to = wait_head(&c->ring, mp3ring_head(&c->ring) + 3, 2000);

	for_each_record_between(&c->ring, c->from, to, find_unresolved, &s);
	printf("  %s: %s before its counters\n", test,
	       s.found ? "faults recorded unresolved" : "no fault");
}

/*
 * A process that joins a target given "M" (registration: the command, a
 * format of the forking process's PID, which it may leave out) later: the
 * faults it took before its counters, if any, in an unresolved record, the
 * 16384 of its region afterwards all placed,
 * and together no more than its counts, and at most JOIN_LOST_MAX fewer.
 */
static void expect_joiner_placed(const char *test, const char *registration, const char *maps,
				 const char *unregistration)
{
	struct fault_sums sums = {};
	struct maps_child c;
	uintptr_t joiner, addr;
	char cmd[64];
	uint64_t placed;
	pid_t forker;

	forker = c.pid = spawn_piped(forking_child, &c.go, &c.back);
	map_ring(&c.ring, &c.fd);
	snprintf(cmd, sizeof(cmd), registration, (int)c.pid);
	expect_ok(status_write(cmd), cmd);
	expect_ok(status_write(maps), maps);
	c.from = wait_head(&c.ring, mp3ring_head(&c.ring) + 1, 2000);
	maps_child_go(&c, "f");
	maps_child_hear(&c, &joiner, sizeof(joiner));
	wait_for_counters(&c, (pid_t)joiner, test);
	maps_child_go(&c, "g");
	maps_child_hear(&c, &addr, sizeof(addr));
	sums.region_start = mapping_start((pid_t)joiner, addr);
	c.pid = (pid_t)joiner;
	maps_child_records(&c, &sums);
	placed = sums.faults_minor + sums.faults_major;
	printf("  %s: region %" PRIu64 " minor %" PRIu64 " major (kind %u); all mappings %"
	       PRIu64 "/%" PRIu64 " in %u records, %u unresolved; counts %" PRIu64 "/%" PRIu64
	       "\n", test, sums.region_minor, sums.region_major, sums.region_kind,
	       sums.faults_minor, sums.faults_major, sums.fault_records, sums.unresolved,
	       sums.counts_minor, sums.counts_major);
	expect(sums.region_minor == REGION_PAGES && !sums.region_major &&
	       sums.region_kind == MP3_MAPPING_ANON,
	       "%s: the region: %" PRIu64 " minor, %" PRIu64 " major, kind %u; want %d, 0, %d",
	       test, sums.region_minor, sums.region_major, sums.region_kind, REGION_PAGES,
	       MP3_MAPPING_ANON);
	expect(sums.faults_minor <= sums.counts_minor && sums.faults_major <= sums.counts_major &&
	       placed + JOIN_LOST_MAX >= sums.counts_minor + sums.counts_major,
	       "%s: faults records %" PRIu64 "/%" PRIu64 " against counts %" PRIu64 "/%" PRIu64
	       " (at most %d fewer)", test, sums.faults_minor, sums.faults_major,
	       sums.counts_minor, sums.counts_major, JOIN_LOST_MAX);
	expect_ok(status_write(unregistration), unregistration);
	kill((pid_t)joiner, SIGKILL);
	c.pid = forker;
	maps_child_end(&c);
}

/* A tree given "M": a process forked in it has its faults placed from the next sample on. */
void test_faults_tree_joiner(void)
{
	expect_joiner_placed("faults_tree_joiner", "T %d 4242", "M 4242", "X 4242");
}

/* The same for a command name's group: the process forked with that name joins it. */
void test_faults_comm_joiner(void)
{
	expect_joiner_placed("faults_comm_joiner", "N 4243 " JOINER_COMM, "M 4243",
			     "X 4243");
}

/*
 * One of /proc/vmstat's counters; 0 if this kernel has none of that name,
 * which fails the test if it is required (CONFIG_VM_EVENT_COUNTERS).
 */
static uint64_t vmstat(const char *name, bool required)
{
	unsigned long long value, found = 0;
	bool seen = false;
	char key[64];
	FILE *f = fopen("/proc/vmstat", "re");

	expect(f, "/proc/vmstat: %s", strerror(errno));
	while (fscanf(f, "%63s %llu", key, &value) == 2) {
		if (!strcmp(key, name)) {
			found = value;
			seen = true;
		}
	}
	fclose(f);
	expect(seen || !required, "/proc/vmstat has no %s", name);
	return found;
}

/* Pages read back from swap: from the device, or from zswap's pool where it is on. */
static uint64_t swapped_in(void)
{
	return vmstat("pswpin", true) + vmstat("zswpin", false);
}

static uint64_t swapped_out(void)
{
	return vmstat("pswpout", true) + vmstat("zswpout", false);
}

/*
 * spawn_piped()'s fn: region_child's region, touched at "g"; at "o" it is
 * paged out (MADV_PAGEOUT: reclaim now, to swap, without a memory hog
 * whose pressure would page out other memory too and take its time); at
 * "t" touched again, every page read back from swap.
 */
static void swapping_child(int go, int back)
{
	size_t bytes = REGION_PAGES * (size_t)sysconf(_SC_PAGESIZE);
	char *p = region_touched_when_told(go);

	child_says(back, (uintptr_t)p);
	child_waits(go);
	child_says(back, madvise(p, bytes, MADV_PAGEOUT) ? (uintptr_t)errno : 0);
	child_waits(go);
	touch_region(p, REGION_PAGES);
	child_done(back, (uintptr_t)p);
}

/*
 * A region paged out to swap and touched again: its faults are major, in
 * the region's anonymous mapping (what pfprofctl where calls swap-ins), and
 * as many as the pages the kernel read back from swap meanwhile (pswpin,
 * zswpin), within 1 %: the guest runs nothing else that swaps. Where the
 * guest can have no swap (the debug kernel: tests/debug-kernel/debug.config
 * says why) it says so; where the host put zram in the payload it must work.
 */
void test_faults_swap_in(void)
{
	uint64_t out_before, in_before, paged_out, read_back;
	struct fault_sums sums = {};
	struct maps_child c;
	uintptr_t addr, err;
	char why[160];

	if (!swap_device_ready(why, sizeof(why))) {
		expect(!file_contains("load-modules", "zram"), "no swap although the payload has "
		       "zram: %s", why);
		printf("  faults_swap_in: not run: %s\n", why);
		return;
	}
	maps_child_start(&c, swapping_child, NULL, 0);
	maps_child_go(&c, "g");
	maps_child_hear(&c, &addr, sizeof(addr));
	out_before = swapped_out();
	maps_child_go(&c, "o");
	maps_child_hear(&c, &err, sizeof(err));
	expect(!err, "madvise(MADV_PAGEOUT): %s", strerror((int)err));
	paged_out = swapped_out() - out_before;
	/* The first touch's faults are placed by now: count from here. */
	c.from = wait_head(&c.ring, mp3ring_head(&c.ring) + 2, 2000);
	in_before = swapped_in();
	maps_child_go(&c, "t");
	maps_child_hear(&c, &addr, sizeof(addr));
	read_back = swapped_in() - in_before;
	sums.region_start = mapping_start(c.pid, addr);
	maps_child_records(&c, &sums);
	printf("  faults_swap_in: %" PRIu64 " pages paged out, %" PRIu64 " read back; the region: "
	       "%" PRIu64 " major, %" PRIu64 " minor (kind %u)\n", paged_out, read_back,
	       sums.region_major, sums.region_minor, sums.region_kind);
	expect(paged_out >= REGION_PAGES * 99 / 100, "only %" PRIu64 " of %d pages paged out",
	       paged_out, REGION_PAGES);
	expect(sums.region_kind == MP3_MAPPING_ANON &&
	       within_pct((double)sums.region_major, (double)read_back, 1),
	       "the region's major faults %" PRIu64 " (kind %u), swap-ins %" PRIu64,
	       sums.region_major, sums.region_kind, read_back);
	maps_child_end(&c);
}

/* A setuid-root copy of busybox, as test_tree_skips_unreadable makes. */
#define LAYOUT_BUSYBOX "/tmp/mp3-faults-setuid-busybox"
#define LAYOUT_RANGES_MAX 64
/* Tries at a run without a sample between the first fault and the event that is tested. */
#define QUIET_TRIES 5

struct range {
	uint64_t start, end;
};

/* What a child of the layout test maps and touches: the setuid program's mappings. */
static struct range layout[LAYOUT_RANGES_MAX];
static unsigned int nr_layout;

static void write_sysctl(const char *path, const char *value)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC);
	ssize_t len = (ssize_t)strlen(value);

	expect(fd >= 0 && write(fd, value, len) == len, "%s: %s", path, strerror(errno));
	close(fd);
}

/* As nobody: execs the setuid copy's sleep, the same way every time (the same stack). */
static __attribute__((noreturn)) void exec_setuid_sleep(void)
{
	execl(LAYOUT_BUSYBOX, "sleep", "3600", (char *)NULL);
	_exit(127);
}

/*
 * The mappings the setuid program gets (address randomization off), from
 * one run of it: each of them but [vsyscall], which is above user space.
 */
static void learn_layout(void)
{
	char path[64], line[512];
	unsigned long long start, end;
	uint64_t deadline = now_ns() + 10000000000ULL;
	pid_t pid = fork();
	FILE *f;

	expect(pid >= 0, "fork: %s", strerror(errno));
	if (!pid) {
		become_nobody();
		exec_setuid_sleep();
	}
	snprintf(path, sizeof(path), "/proc/%d/maps", (int)pid);
	for (;;) {
		expect(now_ns() < deadline, "%s did not exec", LAYOUT_BUSYBOX);
		if (file_contains(path, LAYOUT_BUSYBOX))
			break;
		sleep_ms(5);
	}
	/* Asleep in its sleep: its exec, and every mapping it makes first, are done. */
	wait_blocked(pid, 10000);
	f = fopen(path, "re");
	expect(f, "%s: %s", path, strerror(errno));
	nr_layout = 0;
	while (fgets(line, sizeof(line), f) && nr_layout < LAYOUT_RANGES_MAX)
		if (sscanf(line, "%llx-%llx", &start, &end) == 2 && !strstr(line, "[vsyscall]"))
			layout[nr_layout++] = (struct range){ start, end };
	fclose(f);
	kill_and_reap(pid);
	expect(nr_layout > 0, "no mapping in %s", path);
}

/*
 * spawn_piped()'s child: as nobody, on a byte, maps anonymous memory where
 * the setuid program's mappings will be (those that are free here), touches
 * each page, says how many, and execs the program: its exec ends the pipe
 * back (close-on-exec).
 */
static void layout_child(int go, int back)
{
	long page = sysconf(_SC_PAGESIZE);
	uintptr_t touched = 0;

	become_nobody();
	if (fcntl(back, F_SETFD, FD_CLOEXEC))
		_exit(6);
	child_waits(go);
	for (unsigned int i = 0; i < nr_layout; i++) {
		size_t len = layout[i].end - layout[i].start;
		char *p = mmap((void *)(uintptr_t)layout[i].start, len, PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);

		/* Taken here already (randomized, it may be anywhere): left out. */
		if (p == MAP_FAILED)
			continue;
		if (p != (char *)(uintptr_t)layout[i].start)
			_exit(7);
		for (size_t off = 0; off < len; off += page)
			((volatile char *)p)[off] = 1;
		touched += len / page;
	}
	child_says(back, touched);
	exec_setuid_sleep();
}

/* Whether r is a faults record naming a mapping of the setuid program. */
static bool names_layout(const struct mp3_proc_record *r)
{
	for (unsigned int i = 0; i < nr_layout; i++)
		if (r->faults.start == layout[i].start)
			return r->mapping != MP3_MAPPING_ANON || r->faults.inode;
	return false;
}

struct layout_sums {
	pid_t tgid;
	uint64_t unresolved, in_program;
};

static void add_layout_record(void *ctx, const struct mp3_proc_record *r)
{
	struct layout_sums *s = ctx;

	if (r->tgid != (uint32_t)s->tgid || r->type != MP3_RECORD_FAULTS)
		return;
	if (r->mapping == MP3_MAPPING_UNRESOLVED)
		s->unresolved += r->faults.minor_faults + r->faults.major_faults;
	else if (names_layout(r))
		s->in_program += r->faults.minor_faults + r->faults.major_faults;
}

/*
 * One try: a child registered with maps touches the pages where the setuid
 * program will be, then execs it. False if a sample came between its first
 * touch and the end of its exec: its faults were placed before the exec,
 * and the try tells nothing.
 */
static bool exec_layout_try(struct layout_sums *s, uintptr_t *touched)
{
	struct maps_child c;
	uint64_t quiet;
	char byte, comm[32];

	maps_child_start(&c, layout_child, NULL, 0);
	/* Just after a sample: the next is a period (3 s) away. */
	quiet = wait_head(&c.ring, mp3ring_head(&c.ring) + 1, 10000);
	maps_child_go(&c, "g");
	maps_child_hear(&c, touched, sizeof(*touched));
	expect(read(c.back, &byte, 1) == 0, "the child wrote after its count");
	read_comm(c.pid, comm, sizeof(comm));
	expect(!strncmp(comm, strrchr(LAYOUT_BUSYBOX, '/') + 1, 15), "the child runs '%s', not"
	       " %s: its exec failed", comm, LAYOUT_BUSYBOX);
	if (mp3ring_head(&c.ring) != quiet) {
		maps_child_end(&c);
		return false;
	}
	*s = (struct layout_sums){ .tgid = c.pid };
	for_each_record_between(&c.ring, c.from, wait_head(&c.ring, quiet + 2, 10000),
				add_layout_record, s);
	maps_child_end(&c);
	return true;
}

/*
 * Issue 42, 1: a process registered with maps takes faults at the
 * addresses where a setuid program's mappings will be, then execs it
 * before the next sample. Those faults were taken in the old memory map:
 * placed in the new one, they would tell the program's layout (mapping
 * starts, inodes) to whoever reads the ring. Every one of them must be in
 * an unresolved record, none in a mapping of the program. Address
 * randomization is off meanwhile, so that the layout is known beforehand.
 */
void test_faults_exec_layout(void)
{
	struct layout_sums s = {};
	uintptr_t touched = 0;
	char saved[16] = "2";
	bool quiet = false;
	FILE *f;

	expect(run_program((char *[]){ "/bin/cp", "/bin/busybox", LAYOUT_BUSYBOX, NULL },
			   NULL) == 0 && !chmod(LAYOUT_BUSYBOX, 04755),
	       "making %s: %s", LAYOUT_BUSYBOX, strerror(errno));
	f = fopen("/proc/sys/kernel/randomize_va_space", "re");
	if (f) {
		if (!fgets(saved, sizeof(saved), f))
			snprintf(saved, sizeof(saved), "2");
		fclose(f);
	}
	write_sysctl("/proc/sys/kernel/randomize_va_space", "0");
	learn_layout();
	for (int i = 0; i < QUIET_TRIES && !quiet; i++)
		quiet = exec_layout_try(&s, &touched);
	write_sysctl("/proc/sys/kernel/randomize_va_space", saved);
	unlink(LAYOUT_BUSYBOX);
	expect(quiet, "a sample came between the faults and the exec in %d tries", QUIET_TRIES);
	printf("  faults_exec_layout: %u mappings of the program, %" PRIuPTR " pages touched"
	       " before the exec; %" PRIu64 " faults unresolved, %" PRIu64 " in the program's"
	       " mappings\n", nr_layout, touched, s.unresolved, s.in_program);
	expect(touched >= 16, "only %" PRIuPTR " pages touched", touched);
	expect(s.unresolved >= touched, "%" PRIu64 " faults unresolved, %" PRIuPTR
	       " taken before the exec", s.unresolved, touched);
}

#define REUSE_PAGES 256

/*
 * spawn_piped()'s child: on a byte, maps and touches REUSE_PAGES pages,
 * says where, and exits.
 */
static void reuse_old_child(int go, int back)
{
	char *p;

	child_waits(go);
	p = map_region(REUSE_PAGES);
	touch_region(p, REUSE_PAGES);
	child_says(back, (uintptr_t)p);
	_exit(0);
}

/*
 * A child, not registered, that maps the same pages at the same address
 * and waits. MAP_FIXED: since the old process was forked, its parent may
 * have mapped something there (the ring), which this child does not use.
 */
static pid_t spawn_reuser(uintptr_t addr)
{
	long page = sysconf(_SC_PAGESIZE);
	int ready[2];
	char byte;
	pid_t pid;

	expect(!pipe(ready), "pipe: %s", strerror(errno));
	pid = fork();
	expect(pid >= 0, "fork: %s", strerror(errno));
	if (!pid) {
		char *p = mmap((void *)addr, REUSE_PAGES * page, PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);

		if (p != (char *)addr || write(ready[1], "r", 1) != 1)
			_exit(3);
		for (;;)
			pause();
	}
	close(ready[1]);
	expect(read(ready[0], &byte, 1) == 1, "the new process could not map %#lx",
	       (unsigned long)addr);
	close(ready[0]);
	return pid;
}

struct reuse_sums {
	pid_t tgid;
	uint64_t region_start;
	uint64_t unresolved, in_region, other;
};

static void add_reuse_record(void *ctx, const struct mp3_proc_record *r)
{
	struct reuse_sums *s = ctx;
	uint64_t n = r->faults.minor_faults + r->faults.major_faults;

	if (r->tgid != (uint32_t)s->tgid || r->type != MP3_RECORD_FAULTS)
		return;
	if (r->mapping == MP3_MAPPING_UNRESOLVED)
		s->unresolved += n;
	else if (r->faults.start == s->region_start)
		s->in_region += n;
	else
		s->other += n;
}

/*
 * One try: a process registered with maps touches a region and exits; a
 * new one gets its PID and maps the same addresses, before the next
 * sample, and is registered with maps too if register_new. False if a
 * sample came between the first touch and then, or the PID was not
 * reused.
 */
static bool pid_reuse_try(struct reuse_sums *s, bool register_new)
{
	struct maps_child c;
	uintptr_t addr;
	uint64_t quiet;
	pid_t reuser;
	bool ok;

	maps_child_start(&c, reuse_old_child, NULL, 0);
	quiet = wait_head(&c.ring, mp3ring_head(&c.ring) + 1, 10000);
	maps_child_go(&c, "g");
	maps_child_hear(&c, &addr, sizeof(addr));
	expect(waitpid(c.pid, NULL, 0) == c.pid, "waitpid: %s", strerror(errno));
	set_last_pid(c.pid - 1);
	reuser = spawn_reuser(addr);
	if (register_new && reuser == c.pid)
		register_maps(reuser);
	ok = reuser == c.pid && mp3ring_head(&c.ring) == quiet;
	if (ok) {
		*s = (struct reuse_sums){ .tgid = c.pid, .region_start = addr };
		for_each_record_between(&c.ring, c.from, wait_head(&c.ring, quiet + 2, 10000),
					add_reuse_record, s);
	}
	kill_and_reap(reuser);
	close(c.go);
	close(c.back);
	close(c.fd);
	return ok;
}

/* pid_reuse_try() until a try tells something; then what it tells. */
static void expect_pid_reuse_unresolved(bool register_new)
{
	const char *how = register_new ? "registered with maps" : "not registered";
	struct reuse_sums s = {};
	bool quiet = false;

	for (int i = 0; i < QUIET_TRIES && !quiet; i++)
		quiet = pid_reuse_try(&s, register_new);
	expect(quiet, "no PID reuse without a sample in between in %d tries", QUIET_TRIES);
	printf("  faults_pid_reuse: PID %d reused by a process %s; the old process's faults: %"
	       PRIu64 " unresolved, %" PRIu64 " in the new one's region, %" PRIu64
	       " elsewhere\n", (int)s.tgid, how, s.unresolved, s.in_region, s.other);
	expect(!s.in_region && !s.other, "%" PRIu64 " faults placed in the mappings of the new"
	       " process, %s", s.in_region + s.other, how);
	expect(s.unresolved >= REUSE_PAGES, "%" PRIu64 " faults unresolved, %d pages touched",
	       s.unresolved, REUSE_PAGES);
}

/*
 * Issue 42, 1: a process registered with maps takes faults and exits;
 * before the next sample a new process gets its PID and maps the same
 * addresses: not registered (the faults of the process that left are
 * placed by its number), then registered with maps. The old process's
 * faults must not be placed in the new one's mappings: its memory map is
 * gone, they are unresolved.
 */
void test_faults_pid_reuse(void)
{
	pid_t anchor = spawn_sleeper();

	/* Keeps the sampler running once the old process is gone. */
	expect_ok(status_cmd('R', anchor), "R anchor");
	expect_pid_reuse_unresolved(false);
	expect_pid_reuse_unresolved(true);
	expect_ok(status_cmd('U', anchor), "U anchor");
	kill_and_reap(anchor);
}

/* Mappings of one page each that faults_many_mappings touches: many times the bound. */
#define MANY_MAPPINGS 2048
/* Samples a faults_many_mappings run may span, at most. */
#define MANY_SAMPLES_MAX 4096

/*
 * spawn_piped()'s child: MANY_MAPPINGS mappings of one page, kept apart by
 * pages without access (else they would merge into one); on a byte, one
 * fault in each, then it says so.
 */
static void many_mappings_child(int go, int back)
{
	long page = sysconf(_SC_PAGESIZE);
	char *p = map_region(2 * MANY_MAPPINGS);

	for (unsigned long i = 0; i < MANY_MAPPINGS; i++)
		if (mprotect(p + (2 * i + 1) * page, page, PROT_NONE))
			_exit(6);
	child_waits(go);
	for (unsigned long i = 0; i < MANY_MAPPINGS; i++)
		p[2 * i * page] = 1;
	child_done(back, (uintptr_t)p);
}

struct per_sample {
	pid_t tgid;
	uint64_t from;
	uint32_t records[MANY_SAMPLES_MAX];	/* faults records of tgid in sample from + i */
	struct fault_sums sums;
};

static void count_per_sample(void *ctx, const struct mp3_proc_record *r)
{
	struct per_sample *s = ctx;

	add_fault_record(&s->sums, r);
	if (r->tgid == (uint32_t)s->tgid && r->type == MP3_RECORD_FAULTS &&
	    r->sample - s->from < MANY_SAMPLES_MAX)
		s->records[r->sample - s->from]++;
}

/*
 * Issue 42, 5: a process that faults in many mappings in one period has
 * at most MP3_FAULT_RECORDS_MAX faults records in a sample (the faults of
 * the mappings beyond summed in its unresolved record, and counted in the
 * header's faults_summed): it cannot wipe the other readers' records out
 * of the ring. No fault is lost.
 */
void test_faults_many_mappings(void)
{
	char *status_argv[] = { "./pfprofctl", "status", NULL };
	static struct per_sample s;
	struct proc_stat before, after;
	struct maps_child c;
	uint64_t summed, to;
	uint32_t most = 0;
	uintptr_t addr;

	maps_child_start(&c, many_mappings_child, NULL, 0);
	summed = c.ring.hdr->faults_summed;
	read_pid_stat(c.pid, &before);
	/*
	 * The cap is per sample: the touches start right after a tick, with a
	 * whole period (1 s, tests.c) before the next. At 50 ms a slow guest
	 * spread them over samples of at most 47 faults each, and the cap was
	 * never reached; now it fails only if touching takes over ~30 periods.
	 */
	wait_head(&c.ring, mp3ring_head(&c.ring) + 1, ticks_ms(&c.ring, 2));
	maps_child_go(&c, "g");
	maps_child_hear(&c, &addr, sizeof(addr));
	read_pid_stat(c.pid, &after);
	s = (struct per_sample){ .tgid = c.pid, .from = c.from, .sums.tgid = c.pid };
	to = wait_head(&c.ring, mp3ring_head(&c.ring) + 3, ticks_ms(&c.ring, 4));
	expect(to - c.from <= MANY_SAMPLES_MAX, "%" PRIu64 " samples", to - c.from);
	for_each_record_between(&c.ring, c.from, to, count_per_sample, &s);
	for (uint64_t i = 0; i < to - c.from; i++)
		most = s.records[i] > most ? s.records[i] : most;
	summed = c.ring.hdr->faults_summed - summed;
	printf("  faults_many_mappings: %d mappings touched; at most %u faults records in a"
	       " sample; %" PRIu64 "/%" PRIu64 " in faults records (%u unresolved records),"
	       " %" PRIu64 " summed; counts %" PRIu64 "/%" PRIu64 "\n", MANY_MAPPINGS, most,
	       s.sums.faults_minor, s.sums.faults_major, s.sums.unresolved, summed,
	       s.sums.counts_minor, s.sums.counts_major);
	expect(most <= MP3_FAULT_RECORDS_MAX, "%u faults records in one sample, at most %d",
	       most, MP3_FAULT_RECORDS_MAX);
	expect(summed > 0, "nothing counted in faults_summed");
	expect_all_recorded("faults_many_mappings", &s.sums, &before, &after);
	run_program(status_argv, "/tmp/mp3-status.out");
	show_file("/tmp/mp3-status.out", "  faults_many_mappings| ");
	expect(file_contains("/tmp/mp3-status.out", "counted as not placed"),
	       "pfprofctl status does not say the faults summed");
	maps_child_end(&c);
}

/* maps_threads_max in faults_threads_max's load of the module. */
#define THREADS_MAX_PARAM 64
#define THREADS_MAX_PAGES 50

static unsigned int nr_blocked_threads;

/* Waits for a byte on the pipe it is given, then touches THREADS_MAX_PAGES pages of its own. */
static void *blocked_toucher(void *go_fd)
{
	char go;

	if (read(*(int *)go_fd, &go, 1) != 1)
		_exit(7);
	touch_region(map_region(THREADS_MAX_PAGES), THREADS_MAX_PAGES);
	return NULL;
}

/*
 * spawn_piped()'s child: nr_blocked_threads threads besides the main one,
 * each waiting for a byte of its own; it says how many once they are all
 * there, then waits for them to end and says so.
 */
static void blocked_threads_child(int go, int back)
{
	static pthread_t threads[4 * THREADS_MAX_PARAM];
	static int go_fd;
	pthread_attr_t attr;

	go_fd = go;
	/*
	 * One fault a page, as every other counting child: the debug kernel's
	 * THP is "always", and khugepaged once collapsed a 2 MiB range of the
	 * threads' adjacent regions while they touched it (3135 minor faults
	 * for 3150 pages; the records and the counts agreed).
	 */
	if (prctl(PR_SET_THP_DISABLE, 1, 0, 0, 0) ||
	    pthread_attr_init(&attr) || pthread_attr_setstacksize(&attr, 64 * 1024))
		_exit(6);
	for (unsigned int i = 0; i < nr_blocked_threads; i++)
		if (pthread_create(&threads[i], &attr, blocked_toucher, &go_fd))
			_exit(8);
	child_says(back, nr_blocked_threads);
	for (unsigned int i = 0; i < nr_blocked_threads; i++)
		pthread_join(threads[i], NULL);
	child_done(back, 0);
}

static pid_t spawn_blocked_threads(unsigned int n, int *go, int *back)
{
	uintptr_t said;
	pid_t pid;

	nr_blocked_threads = n;
	pid = spawn_piped(blocked_threads_child, go, back);
	expect(read(*back, &said, sizeof(said)) == sizeof(said) && said == n,
	       "the child did not start its %u threads", n);
	return pid;
}

/*
 * Issue 42, 7: the counters of a process's threads are made in walks of
 * O(n log n), and no more than maps_threads_max threads get them in one
 * registration: a process with more is refused with EAGAIN (before, the
 * walks were cubic in the threads, under mp3_lock, and a process that
 * kept creating threads was never done with). One with fewer is followed,
 * each of its threads' faults placed.
 */
void test_faults_threads_max(void)
{
	struct proc_stat before, after;
	struct fault_sums sums = {};
	struct maps_child c;
	char cmd[64], all[2 * THREADS_MAX_PARAM];
	uintptr_t word;
	int go, back;
	pid_t big;

	big = spawn_blocked_threads(2 * THREADS_MAX_PARAM, &go, &back);
	snprintf(cmd, sizeof(cmd), "R %d maps", (int)big);
	expect_errno(status_write(cmd), EAGAIN, "R maps of a process of more than"
		     " maps_threads_max threads");
	expect(!status_lists(big), "the refused process is listed");
	kill_and_reap(big);
	close(go);
	close(back);

	/* The main thread and THREADS_MAX_PARAM - 1 others: at the bound. */
	nr_blocked_threads = THREADS_MAX_PARAM - 1;
	maps_child_start(&c, blocked_threads_child, &word, sizeof(word));
	read_pid_stat(c.pid, &before);
	memset(all, 'g', sizeof(all));
	expect(write(c.go, all, THREADS_MAX_PARAM - 1) == THREADS_MAX_PARAM - 1,
	       "telling the threads to go: %s", strerror(errno));
	maps_child_hear(&c, &word, sizeof(word));
	read_pid_stat(c.pid, &after);
	maps_child_records(&c, &sums);
	printf("  faults_threads_max: %d threads refused; %d followed: %" PRIu64 "/%" PRIu64
	       " in %u records, %u unresolved; counts %" PRIu64 "/%" PRIu64 "\n",
	       2 * THREADS_MAX_PARAM + 1, THREADS_MAX_PARAM, sums.faults_minor,
	       sums.faults_major, sums.fault_records, sums.unresolved, sums.counts_minor,
	       sums.counts_major);
	expect(sums.faults_minor >= (THREADS_MAX_PARAM - 1) * THREADS_MAX_PAGES,
	       "%" PRIu64 " minor faults, %d pages touched", sums.faults_minor,
	       (THREADS_MAX_PARAM - 1) * THREADS_MAX_PAGES);
	expect_all_recorded("faults_threads_max", &sums, &before, &after);
	maps_child_end(&c);
}
