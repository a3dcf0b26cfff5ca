// SPDX-License-Identifier: GPL-2.0
/*
 * Faults in memory a process unmaps before the tick: placed in the mapping
 * they were taken in, as a server's worker's are in a file it sent, a pool
 * it freed or a heap it trimmed (issue 58).
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "harness.h"
#include "mapschild.h"
#include "pfprof.h"
#include "tests.h"

#define UNMAPPED_ROUNDS 40
#define UNMAPPED_ANON_PAGES 64
#define UNMAPPED_FILE_PAGES 16
#define UNMAPPED_FILE "/tmp/mp3-unmapped"

/*
 * spawn_piped()'s child: on a byte, UNMAPPED_ROUNDS times, maps an
 * anonymous region and a private copy of the file, writes each page of
 * both (one fault each: a write to a private file page copies it, with no
 * fault-around), and unmaps them; then it says so. A tick (1 s) comes in
 * the middle of a round at most once.
 */
static void unmapped_child(int go, int back)
{
	long page = sysconf(_SC_PAGESIZE);
	int fd = open(UNMAPPED_FILE, O_RDONLY);
	char *anon, *file;

	if (fd < 0)
		_exit(6);
	child_says(back, 0);
	child_waits(go);
	for (int round = 0; round < UNMAPPED_ROUNDS; round++) {
		anon = map_region(UNMAPPED_ANON_PAGES);
		file = mmap(NULL, UNMAPPED_FILE_PAGES * page, PROT_READ | PROT_WRITE, MAP_PRIVATE,
			    fd, 0);
		if (file == MAP_FAILED)
			_exit(7);
		touch_region(anon, UNMAPPED_ANON_PAGES);
		touch_region(file, UNMAPPED_FILE_PAGES);
		if (munmap(anon, UNMAPPED_ANON_PAGES * page) ||
		    munmap(file, UNMAPPED_FILE_PAGES * page))
			_exit(8);
	}
	child_done(back, 0);
}

struct unmapped_sums {
	struct fault_sums sums;
	uint64_t inode;
	uint64_t file_faults;	/* in records of the file's inode */
};

static void add_unmapped_record(void *ctx, const struct mp3_proc_record *r)
{
	struct unmapped_sums *s = ctx;

	add_fault_record(&s->sums, r);
	if (r->tgid == (uint32_t)s->sums.tgid && r->type == MP3_RECORD_FAULTS &&
	    r->faults.inode == s->inode)
		s->file_faults += r->faults.minor_faults + r->faults.major_faults;
}

static uint64_t unmapped_file_make(void)
{
	static char bytes[65536];	/* a page, of any size Linux has */
	long page = sysconf(_SC_PAGESIZE);
	int fd = open(UNMAPPED_FILE, O_RDWR | O_CREAT | O_TRUNC, 0600);
	struct stat st = {};

	expect(fd >= 0, "%s: %s", UNMAPPED_FILE, strerror(errno));
	memset(bytes, 'u', page);
	for (int i = 0; i < UNMAPPED_FILE_PAGES; i++)
		expect(write(fd, bytes, page) == page, "%s: %s", UNMAPPED_FILE, strerror(errno));
	expect(!fstat(fd, &st), "%s: %s", UNMAPPED_FILE, strerror(errno));
	close(fd);
	return st.st_ino;
}

/*
 * Every fault counted in the mapping it was taken in, though the mapping
 * is gone by the tick: the file's faults in the file's row, the anonymous
 * region's in anonymous rows, almost none unresolved; each fault once.
 */
void test_faults_unmapped_before_tick(void)
{
	static struct unmapped_sums s;
	struct proc_stat before, after;
	struct maps_child c;
	uint64_t to, all;
	uintptr_t ready, done;

	s = (struct unmapped_sums){ .inode = unmapped_file_make() };
	maps_child_start(&c, unmapped_child, &ready, sizeof(ready));
	maps_child_stat(&c, &before);
	maps_child_go(&c, "g");
	maps_child_hear(&c, &done, sizeof(done));
	maps_child_stat(&c, &after);
	s.sums.tgid = c.pid;
	to = wait_head(&c.ring, mp3ring_head(&c.ring) + 3, ticks_ms(&c.ring, 4));
	for_each_record_between(&c.ring, c.from, to, add_unmapped_record, &s);
	s.sums.dropped = c.ring.hdr->faults_dropped - c.dropped_from;
	all = s.sums.faults_minor + s.sums.faults_major;
	printf("  faults_unmapped_before_tick: %d rounds of %d anonymous and %d file pages"
	       " mapped, written, unmapped: %" PRIu64 " faults, %" PRIu64 " in the file's row,"
	       " %" PRIu64 " anonymous, %" PRIu64 " unresolved, %" PRIu64 " dropped\n",
	       UNMAPPED_ROUNDS, UNMAPPED_ANON_PAGES, UNMAPPED_FILE_PAGES, all, s.file_faults,
	       s.sums.kind_minor[MP3_MAPPING_ANON], s.sums.unresolved_faults, s.sums.dropped);
	expect_all_recorded("faults_unmapped_before_tick", &s.sums, &before, &after);
	expect(s.file_faults >= UNMAPPED_ROUNDS * UNMAPPED_FILE_PAGES,
	       "%" PRIu64 " faults in the file's row, %d written", s.file_faults,
	       UNMAPPED_ROUNDS * UNMAPPED_FILE_PAGES);
	expect(s.sums.kind_minor[MP3_MAPPING_ANON] >= UNMAPPED_ROUNDS * UNMAPPED_ANON_PAGES,
	       "%" PRIu64 " faults in anonymous rows, %d written",
	       s.sums.kind_minor[MP3_MAPPING_ANON], UNMAPPED_ROUNDS * UNMAPPED_ANON_PAGES);
	expect(s.sums.unresolved_faults * 100 <= all,
	       "%" PRIu64 " of %" PRIu64 " faults unresolved, at most 1 %%",
	       s.sums.unresolved_faults, all);
	maps_child_end(&c);
	unlink(UNMAPPED_FILE);
}
