// SPDX-License-Identifier: GPL-2.0
/*
 * Version 5 of the versioned region: where the faults of a process
 * registered with "R <pid> maps" are (MP3_RECORD_FAULTS).
 */
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <unistd.h>

#include "harness.h"
#include "pfprof.h"
#include "tests.h"

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
	sums->faults_minor += r->faults.minor_faults;
	sums->faults_major += r->faults.major_faults;
	if (r->mapping == MP3_MAPPING_UNRESOLVED)
		sums->unresolved++;
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
	struct worker other;
	struct mp3ring ring;
	uint64_t from, to, addr;
	int go, done, fd;
	pid_t child;

	child = spawn_piped(region_child, &go, &done);
	map_ring(&ring, &fd);
	register_maps(child);
	worker_spawn(&other);
	expect_ok(status_cmd('R', other.pid), "R worker without maps");
	from = wait_head(&ring, mp3ring_head(&ring) + 1, 2000);
	read_pid_stat(child, &before);
	expect(write(go, "g", 1) == 1, "telling the child to go: %s", strerror(errno));
	expect(read(done, &addr, sizeof(addr)) == sizeof(addr), "the child died");
	worker_do(&other, 't', 100);
	read_pid_stat(child, &after);
	/* Faults are placed at the tick after the one that counted them. */
	to = wait_head(&ring, mp3ring_head(&ring) + 3, 2000);
	sums.tgid = child;
	sums.region_start = mapping_start(child, addr);
	for_each_record_between(&ring, from, to, add_fault_record, &sums);
	plain.tgid = other.pid;
	for_each_record_between(&ring, from, to, add_fault_record, &plain);
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
	expect(!ring.hdr->faults_dropped, "%llu faults dropped",
	       (unsigned long long)ring.hdr->faults_dropped);
	kill_and_reap(child);
	kill_and_reap(other.pid);
	close(fd);
}

/*
 * Threads that were there at the registration and threads created after:
 * each fault in the records once, none missing.
 */
void test_faults_threads(void)
{
	struct proc_stat before, after;
	struct fault_sums sums = {};
	struct mp3ring ring;
	uint64_t from, to, addr;
	int go, done, fd;
	pid_t child;

	child = spawn_piped(threads_child, &go, &done);
	map_ring(&ring, &fd);
	expect(read(done, &addr, sizeof(addr)) == sizeof(addr), "the child died");
	register_maps(child);
	from = wait_head(&ring, mp3ring_head(&ring) + 1, 2000);
	read_pid_stat(child, &before);
	expect(write(go, "ggg", 3) == 3, "telling the child to go: %s", strerror(errno));
	expect(read(done, &addr, sizeof(addr)) == sizeof(addr), "the child died");
	read_pid_stat(child, &after);
	to = wait_head(&ring, mp3ring_head(&ring) + 3, 2000);
	sums.tgid = child;
	for_each_record_between(&ring, from, to, add_fault_record, &sums);
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
	kill_and_reap(child);
	close(fd);
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
