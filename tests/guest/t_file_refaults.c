// SPDX-License-Identifier: GPL-2.0
/*
 * Which pages of files a traced process reads again after reclaim dropped
 * them (MP3_RECORD_REFAULT): a reader in a cgroup whose memory.max is half
 * its file reads the file over and over, by read(2) and by faults. Its records must add up to the
 * kernel's own count of the cgroup's file refaults (memory.stat's
 * workingset_refault_file) within 1 %, each naming the file (device and
 * inode as stat(2) gives them) and a page in it. The file lives on ext2 on
 * a zram device of its own: the guest's root is in memory, whose pages
 * reclaim never drops. With the reader's cgroup followed and given
 * "charged", the pages reclaim drops are the cgroup's evictions
 * (MP3_RECORD_CGROUP_EVICT), against the kernel's pgsteal_file.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "cgroupmemory.h"
#include "daemonrun.h"
#include "harness.h"
#include "jsonout.h"
#include "pfprof.h"
#include "tests.h"

#define FILE_MIB 32
#define LIMIT_MIB 16
#define READS 4
#define SCRATCH_MIB 64
#define SCRATCH_NODE "/tmp/pfprof-zram-ext"
#define SCRATCH_DIR "/tmp/pfprof-ext"
#define SCRATCH_FILE SCRATCH_DIR "/data"
#define READER_CGROUP CGROUP_ROOT "/pfprof-file-refaults"

/* A new zram device's number (zram's hot_add), or -1. */
static int zram_added(void)
{
	FILE *f = fopen("/sys/class/zram-control/hot_add", "re");
	int id = -1;

	if (!f)
		return -1;
	if (fscanf(f, "%d", &id) != 1)
		id = -1;
	fclose(f);
	return id;
}

/* zram device id's node at SCRATCH_NODE; false if its number is unreadable. */
static bool zram_node(int id)
{
	unsigned int major, minor;
	char path[64];
	FILE *f;
	bool made;

	snprintf(path, sizeof(path), "/sys/block/zram%d/dev", id);
	f = fopen(path, "re");
	if (!f)
		return false;
	made = fscanf(f, "%u:%u", &major, &minor) == 2 &&
	       (!mknod(SCRATCH_NODE, S_IFBLK | 0600, makedev(major, minor)) || errno == EEXIST);
	fclose(f);
	return made;
}

/*
 * ext2 (busybox's mke2fs) on a zram device of its own, mounted at
 * SCRATCH_DIR by the ext4 driver, at the first call; false, saying why, if
 * this guest cannot have it (no zram or ext4 module).
 */
static bool scratch_fs_ready(char *why, size_t size)
{
	/* 4 KiB blocks: 32 MiB take 9 indirect blocks (1 KiB ones: over 130). */
	char *mkfs[] = { "/bin/mke2fs", "-q", "-F", "-b", "4096", SCRATCH_NODE, NULL };
	char path[64], disksize[24];
	int id;

	if (file_contains("/proc/mounts", SCRATCH_DIR))
		return true;
	id = zram_added();
	if (id < 0) {
		snprintf(why, size, "no zram device to add (no zram module)");
		return false;
	}
	snprintf(path, sizeof(path), "/sys/block/zram%d/disksize", id);
	snprintf(disksize, sizeof(disksize), "%d", SCRATCH_MIB << 20);
	write_file(path, disksize);
	expect(zram_node(id), "zram%d's node: %s", id, strerror(errno));
	if (run_program_err(mkfs, "/dev/null", "/tmp/mke2fs.err")) {
		show_file("/tmp/mke2fs.err", "  mke2fs: ");
		fail("mke2fs %s failed", SCRATCH_NODE);
	}
	expect(!mkdir(SCRATCH_DIR, 0755) || errno == EEXIST, "mkdir %s: %s", SCRATCH_DIR,
	       strerror(errno));
	if (mount(SCRATCH_NODE, SCRATCH_DIR, "ext4", 0, NULL)) {
		snprintf(why, size, "mount ext2 by ext4 on %s: %s", SCRATCH_NODE, strerror(errno));
		return false;
	}
	return true;
}

/* SCRATCH_FILE read with read(2), its pages taken in by readahead. */
static void read_file(int fd)
{
	static char buf[1 << 20];
	ssize_t n;

	do
		n = read(fd, buf, sizeof(buf));
	while (n > 0);
	if (n < 0)
		_exit(8);
}

/* SCRATCH_FILE mapped and touched with no readahead: each fault takes in its own page. */
static void fault_file(int fd)
{
	const size_t page = (size_t)sysconf(_SC_PAGESIZE), bytes = (size_t)FILE_MIB << 20;
	char *p = mmap(NULL, bytes, PROT_READ, MAP_SHARED, fd, 0);

	if (p == MAP_FAILED || madvise(p, bytes, MADV_RANDOM))
		_exit(9);
	for (size_t i = 0; i < bytes; i += page)
		(void)((volatile char *)p)[i];
	munmap(p, bytes);
}

/*
 * spawn_piped()'s fn: at each "g", reads SCRATCH_FILE READS times, with
 * read(2) and by faults in turn (the page cache takes pages in by both
 * paths), then says so and waits for the next.
 */
static void file_reader(int go, int back)
{
	for (;;) {
		child_waits(go);
		for (int i = 0; i < READS; i++) {
			int fd = open(SCRATCH_FILE, O_RDONLY | O_CLOEXEC);

			if (fd < 0)
				_exit(7);
			if (i % 2)
				fault_file(fd);
			else
				read_file(fd);
			close(fd);
		}
		child_says(back, 1);
	}
}

/*
 * What the refault records of the reader say. Reading the file reads its
 * indirect blocks through the device's own page cache, whose inode is on
 * the kernel's block device pseudo-filesystem (an anonymous device, major
 * 0): those pages may be read again too, and are the device's, not
 * another file's.
 */
struct refault_sums {
	pid_t tgid;
	dev_t dev;
	ino_t inode;
	uint64_t file_pages;
	uint64_t records, pages, file_read_again;
	uint64_t device_pages, other_file, past_end, other_kind;
	uint64_t first_other_dev, first_other_inode;
};

static void add_refault_record(void *ctx, const struct mp3_proc_record *r)
{
	struct refault_sums *s = ctx;

	if (r->tgid != (uint32_t)s->tgid || r->type != MP3_RECORD_REFAULT)
		return;
	s->records++;
	s->pages += r->swap_time.pages;
	s->other_kind += r->mapping != MP3_MAPPING_FILE || r->target || r->swap_time.stall_ns;
	if (r->dev != (uint32_t)s->dev || r->refault.inode != s->inode) {
		if (!major(r->dev)) {
			s->device_pages += r->swap_time.pages;
			return;
		}
		if (!s->other_file++) {
			s->first_other_dev = r->dev;
			s->first_other_inode = r->refault.inode;
		}
		return;
	}
	s->file_read_again += r->swap_time.pages;
	s->past_end += r->refault.index + r->swap_time.pages > s->file_pages;
}

/* SCRATCH_FILE written, on disk, and out of the page cache without a trace (no shadows). */
static void write_cold_file(struct stat *st)
{
	const unsigned int pages = (FILE_MIB << 20) / (unsigned int)sysconf(_SC_PAGESIZE);

	write_file_pages(SCRATCH_FILE, pages);
	sync();
	write_file("/proc/sys/vm/drop_caches", "3");
	expect(!stat(SCRATCH_FILE, st), "stat %s: %s", SCRATCH_FILE, strerror(errno));
}

static uint64_t cgroup_file_refaults(void)
{
	struct cgroup_memory m;

	expect_ok(cgroup_memory_read(READER_CGROUP, &m), "reading " READER_CGROUP);
	expect(cgroup_memory_has(&m, CGMEM_REFAULT_FILE), "no workingset_refault_file in "
	       READER_CGROUP "/memory.stat");
	return m.value[CGMEM_REFAULT_FILE];
}

/*
 * The reader ready to read SCRATCH_FILE in READER_CGROUP under memory.max
 * LIMIT_MIB, the file cold on disk, *st its stat(2); false, having said
 * why, if the guest cannot have the file.
 */
static bool reader_ready(const char *test, pid_t reader, struct stat *st)
{
	char why[160], max[24];

	if (!scratch_fs_ready(why, sizeof(why))) {
		expect(!file_contains("load-modules", "ext4"), "no file system although the payload"
		       " has ext4: %s", why);
		printf("  %s: not run: %s\n", test, why);
		return false;
	}
	write_cold_file(st);
	make_cgroup(READER_CGROUP);
	write_file(CGROUP_ROOT "/cgroup.subtree_control", "+memory");
	snprintf(max, sizeof(max), "%d", LIMIT_MIB << 20);
	write_file(READER_CGROUP "/memory.max", max);
	move_to_cgroup(READER_CGROUP, reader);
	return true;
}

/* Whether the guest has memory cgroups; else says so of @test, @cmd refused as it must be. */
static bool memory_cgroups(const char *test, const char *cmd)
{
	int err;

	mount_cgroup2(CGROUP_ROOT);
	if (file_contains(CGROUP_ROOT "/cgroup.controllers", "memory"))
		return true;
	err = -status_write(cmd);
	expect(err == EOPNOTSUPP, "%s without memory cgroups: %s, want EOPNOTSUPP", cmd,
	       strerror(err));
	printf("  %s: not run: no memory cgroups (%s refused, as it must be)\n", test, cmd);
	return false;
}

/* Waits up to 2 s for the probe on __filemap_remove_folio to be gone. */
static void wait_evictions_unprobed(const char *after)
{
	uint64_t until = now_ns() + 2000000000ULL;

	while (kprobe_state("__filemap_remove_folio") != KPROBE_ABSENT) {
		expect(now_ns() < until, "the probe on __filemap_remove_folio still there 2 s "
		       "after %s", after);
		sleep_ms(20);
	}
}

/*
 * The reader's READS reads, and the kernel's count of the file refaults
 * they took: read after the kernel's periodic flush of the cgroups'
 * counters (every 2 s), which reading memory.stat does only past a
 * threshold of changes (128 pages on two CPUs: near 1 % of these).
 */
static uint64_t reads_refaulted(int go, int back)
{
	uint64_t before = cgroup_file_refaults();
	uintptr_t done;

	expect(write(go, "g", 1) == 1 && read(back, &done, sizeof(done)) == sizeof(done),
	       "the reader did not read its file %d times", READS);
	sleep_ms(2500);
	return cgroup_file_refaults() - before;
}

void test_pages_file_refaults(void)
{
	struct refault_sums s = { 0 };
	uint64_t kernel, from, to, dropped;
	struct mp3ring ring;
	struct stat st;
	char cmd[32];
	int go, back, fd;

	map_ring(&ring, &fd);
	s.tgid = spawn_piped(file_reader, &go, &back);
	snprintf(cmd, sizeof(cmd), "R %d pages", (int)s.tgid);
	if (!memory_cgroups("pages_file_refaults", cmd) ||
	    !reader_ready("pages_file_refaults", s.tgid, &st))
		goto end;
	s.dev = st.st_dev;
	s.inode = st.st_ino;
	s.file_pages = (uint64_t)st.st_size / (uint64_t)sysconf(_SC_PAGESIZE);
	expect_ok(status_write(cmd), cmd);
	expect(kprobe_state("filemap_add_folio") == KPROBE_ENABLED &&
	       kprobe_state("__filemap_remove_folio") == KPROBE_ABSENT, "after %s, no probe on "
	       "filemap_add_folio, or one on __filemap_remove_folio", cmd);
	from = mp3ring_head(&ring);
	dropped = ring.hdr->swap_dropped;
	kernel = reads_refaulted(go, back);
	/* Events go out at the tick after them. */
	to = wait_head(&ring, mp3ring_head(&ring) + 2, 2000);
	for_each_record_between(&ring, from, to, add_refault_record, &s);
	dropped = page_events_dropped_since(&ring, dropped);
	printf("  pages_file_refaults: %d reads of %d MiB under memory.max %d MiB: %" PRIu64
	       " pages read again in %" PRIu64 " records (the kernel: %" PRIu64 "), %" PRIu64
	       " of the file, %" PRIu64 " of its device's blocks; %" PRIu64 " records naming"
	       " another file, %" PRIu64 " past its end, %" PRIu64 " of another kind; %" PRIu64
	       " dropped\n", READS, FILE_MIB, LIMIT_MIB, s.pages, s.records, kernel,
	       s.file_read_again, s.device_pages, s.other_file, s.past_end, s.other_kind, dropped);
	expect(s.file_read_again >= s.file_pages, "%" PRIu64 " pages of the file read again, "
	       "fewer than its %" PRIu64 ": nothing to compare", s.file_read_again, s.file_pages);
	expect(page_events_agree(s.pages, kernel, dropped), "%" PRIu64 " pages read again and %"
	       PRIu64 " dropped; the kernel counted %" PRIu64, s.pages, dropped, kernel);
	expect(!s.other_file, "%" PRIu64 " records name another file: the first device %#" PRIx64
	       ", inode %" PRIu64 "; the file's are %#x, %" PRIu64, s.other_file,
	       s.first_other_dev, s.first_other_inode, (unsigned int)s.dev, (uint64_t)s.inode);
	expect(!s.past_end && !s.other_kind, "%" PRIu64 " records past the file's %" PRIu64
	       " pages, %" PRIu64 " not a file's page of an \"R\" registration", s.past_end,
	       s.file_pages, s.other_kind);
	kill_and_reap(s.tgid);
	expect(!rmdir(READER_CGROUP), "rmdir %s: %s", READER_CGROUP, strerror(errno));
	goto reaped;
end:
	kill_and_reap(s.tgid);
reaped:
	close(go);
	close(back);
	close(fd);
}

#define EVICTIONS_TARGET 4249

/*
 * The followed cgroup's evictions (MP3_RECORD_CGROUP_EVICT) and the
 * reader's refaults: which of the file's pages are out, and which read
 * again had been seen going.
 */
struct eviction_sums {
	struct refault_sums refaults;
	uint64_t evicted, evicted_device, evicted_other, not_as_they_should_be;
	uint64_t matched;	/* pages read again whose eviction came before */
	uint8_t *out;		/* a flag per page of the file: evicted, not back */
};

static void add_eviction_record(void *ctx, const struct mp3_proc_record *r)
{
	struct eviction_sums *e = ctx;
	const struct refault_sums *s = &e->refaults;
	bool the_file = r->dev == (uint32_t)s->dev && r->refault.inode == s->inode;
	uint64_t end = r->refault.index + r->swap_time.pages;

	if (r->type == MP3_RECORD_CGROUP_EVICT) {
		if (r->tgid || r->target != EVICTIONS_TARGET || r->mapping != MP3_MAPPING_FILE ||
		    (the_file && end > s->file_pages))
			e->not_as_they_should_be++;
		else if (!the_file)
			*(major(r->dev) ? &e->evicted_other : &e->evicted_device) +=
				r->swap_time.pages;
		else
			memset(e->out + r->refault.index, 1, r->swap_time.pages);
		e->evicted += r->swap_time.pages;
		return;
	}
	add_refault_record(&e->refaults, r);
	if (r->type != MP3_RECORD_REFAULT || r->tgid != (uint32_t)s->tgid || !the_file ||
	    end > s->file_pages)
		return;
	for (uint64_t i = r->refault.index; i < end; i++) {
		e->matched += e->out[i];
		e->out[i] = 0;
	}
}

/*
 * The reader's cgroup followed with "S <target> charged": each page of a
 * file reclaim drops from the cgroup is an eviction of the cgroup's
 * target, of no process (MP3_RECORD_CGROUP_EVICT), as many as the kernel
 * reclaimed (/proc/vmstat's pgsteal_file: the guest reclaims nothing
 * else) within 1 %; every page of the file the reader reads again was
 * seen going before (the file starts cold: no shadow). Given "S <target>"
 * alone, the cgroup gets none (pages_unmapped_unasked). The probe on
 * __filemap_remove_folio is there while the cgroup is "charged" only
 * (pages_file_refaults: none for a process's pages).
 */
void test_pages_file_evictions(void)
{
	struct eviction_sums e = { 0 };
	struct refault_sums *s = &e.refaults;
	uint64_t reclaimed, from, to, dropped;
	struct mp3ring ring;
	struct stat st;
	int go, back, fd;

	map_ring(&ring, &fd);
	s->tgid = spawn_piped(file_reader, &go, &back);
	if (!memory_cgroups("pages_file_evictions", "S 1") ||
	    !reader_ready("pages_file_evictions", s->tgid, &st))
		goto end;
	s->dev = st.st_dev;
	s->inode = st.st_ino;
	s->file_pages = (uint64_t)st.st_size / (uint64_t)sysconf(_SC_PAGESIZE);
	e.out = calloc(s->file_pages, 1);
	expect(e.out, "no memory");
	expect_ok(status_printf(-1, "C %llu %d", cgroup_id(READER_CGROUP), EVICTIONS_TARGET),
		  "C of the reader's cgroup");
	expect_ok(status_printf(-1, "S %d charged", EVICTIONS_TARGET), "S of its target");
	expect(kprobe_state("__filemap_remove_folio") == KPROBE_ENABLED, "the probe on "
	       "__filemap_remove_folio not enabled after \"S %d charged\"", EVICTIONS_TARGET);
	from = mp3ring_head(&ring);
	dropped = ring.hdr->swap_dropped;
	reclaimed = vmstat("pgsteal_file", true);
	reads_refaulted(go, back);
	reclaimed = vmstat("pgsteal_file", true) - reclaimed;
	to = wait_head(&ring, mp3ring_head(&ring) + 2, 2000);
	for_each_record_between(&ring, from, to, add_eviction_record, &e);
	dropped = page_events_dropped_since(&ring, dropped);
	printf("  pages_file_evictions: the kernel reclaimed %" PRIu64 " pages of files; the"
	       " cgroup's evictions %" PRIu64 " (%" PRIu64 " of its device's blocks, %" PRIu64
	       " of other files, %" PRIu64 " not as they should be); the reader read %" PRIu64
	       " pages of the file again, %" PRIu64 " seen going before; %" PRIu64 " dropped\n",
	       reclaimed, e.evicted, e.evicted_device, e.evicted_other, e.not_as_they_should_be,
	       s->file_read_again, e.matched, dropped);
	expect(s->file_read_again >= s->file_pages, "%" PRIu64 " pages of the file read again, "
	       "fewer than its %" PRIu64 ": nothing to compare", s->file_read_again,
	       s->file_pages);
	expect(page_events_agree(e.evicted, reclaimed, dropped), "%" PRIu64 " pages evicted and %"
	       PRIu64 " dropped; the kernel reclaimed %" PRIu64, e.evicted, dropped, reclaimed);
	expect(!e.not_as_they_should_be && !e.evicted_other, "%" PRIu64 " evictions not the "
	       "cgroup's target's file pages, %" PRIu64 " pages of other files",
	       e.not_as_they_should_be, e.evicted_other);
	expect(e.matched + dropped >= s->file_read_again, "of %" PRIu64 " pages read again, %"
	       PRIu64 " seen going (%" PRIu64 " dropped)", s->file_read_again, e.matched,
	       dropped);
	free(e.out);
	kill_and_reap(s->tgid);
	expect_ok(status_printf(-1, "X %d", EVICTIONS_TARGET), "X of the cgroup's target");
	wait_evictions_unprobed("its cgroup's target went");
	expect(!rmdir(READER_CGROUP), "rmdir %s: %s", READER_CGROUP, strerror(errno));
	goto reaped;
end:
	kill_and_reap(s->tgid);
reaped:
	close(go);
	close(back);
	close(fd);
}

/* What the pages log's refault lines of a process say, by their documented columns. */
struct refaults_logged {
	uint64_t pages;		/* read again */
	uint64_t of_file;	/* of them, the file's (its "file" column) */
};

static struct refaults_logged refaults_logged(pid_t pid, const char *file)
{
	struct refaults_logged seen = { 0 };
	char line[512], *field[14], *save;
	FILE *f = fopen(LOG_DIR "/" LOGFORMAT_PAGES_FILE, "re");

	while (f && fgets(line, sizeof(line), f)) {
		size_t n = 0;

		line[strcspn(line, "\n")] = '\0';
		for (char *p = strtok_r(line, "\t", &save); p && n < 14; p = strtok_r(NULL, "\t", &save))
			field[n++] = p;
		if (n != 14 || line[0] == '#' || atoi(field[2]) != pid || strcmp(field[5], "refault"))
			continue;
		seen.pages += strtoull(field[9], NULL, 10);
		if (!strcmp(field[13], file))
			seen.of_file += strtoull(field[9], NULL, 10);
	}
	if (f)
		fclose(f);
	return seen;
}

/* pfprofctl memory --files PID's row of the file: its pages, and whether it has one. */
static bool files_row(const char *pid_arg, const char *file, uint64_t *pages)
{
	char line[512], name[64];
	unsigned long long read_again, distinct;
	bool found = false;
	FILE *f;

	expect(daemon_ctl(DAEMON_DIR "/files.out", "memory", "--files", pid_arg) == 0,
	       "pfprofctl memory --files %s failed", pid_arg);
	f = fopen(DAEMON_DIR "/files.out", "re");
	while (f && !found && fgets(line, sizeof(line), f))
		found = sscanf(line, "%llu %llu %63s", &read_again, &distinct, name) == 3 &&
			!strcmp(name, file);
	if (f)
		fclose(f);
	*pages = found ? read_again : 0;
	return found;
}

/*
 * pfprofd and the refaults: a reader added with pfprofctl add --pages
 * reads its file over and over under memory.max; the pages log's refault
 * lines add up to the cgroup's workingset_refault_file within 1 %, and
 * pfprofctl memory --files names the file (device and inode as stat(2)
 * gives them) with what the log has.
 */
void test_daemon_file_refaults(void)
{
	struct refaults_logged logged;
	uint64_t kernel, listed = 0;
	uint64_t deadline = now_ns() + scaled_ms(20000) * 1000000ULL;
	pid_t reader, daemon = 0;
	char pid_arg[16], file[64];
	struct stat st;
	int go, back;

	daemon_setup("");
	reader = spawn_piped(file_reader, &go, &back);
	snprintf(pid_arg, sizeof(pid_arg), "%d", (int)reader);
	mount_cgroup2(CGROUP_ROOT);
	if (!file_contains(CGROUP_ROOT "/cgroup.controllers", "memory")) {
		printf("  daemon_file_refaults: not run: no memory cgroups\n");
		goto end;
	}
	if (!reader_ready("daemon_file_refaults", reader, &st))
		goto end;
	daemon = expect_kept_by_daemon("--pages", reader, "pages", "swapped pages");
	snprintf(file, sizeof(file), "%x:%x:%" PRIu64, major(st.st_dev), minor(st.st_dev),
		 (uint64_t)st.st_ino);
	kernel = reads_refaulted(go, back);
	while ((logged = refaults_logged(reader, file)).pages < kernel * 99 / 100) {
		expect(now_ns() < deadline, "after 20 s the pages log has %" PRIu64 " pages read "
		       "again of PID %d, the kernel counted %" PRIu64, logged.pages, (int)reader,
		       kernel);
		sleep_ms(100);
	}
	/* A page or two may still be logged after the wait for 99 %. */
	for (int attempt = 0; !files_row(pid_arg, file, &listed) || listed != logged.of_file;
	     attempt++) {
		expect(attempt < 50, "pfprofctl memory --files %s has %" PRIu64 " pages of %s (0: no"
		       " row), the log %" PRIu64, pid_arg, listed, file, logged.of_file);
		sleep_ms(100);
		logged = refaults_logged(reader, file);
	}
	printf("  daemon_file_refaults: the kernel counted %" PRIu64 " file refaults; the pages log"
	       " %" PRIu64 ", %" PRIu64 " of them of %s, as pfprofctl memory --files says\n", kernel,
	       logged.pages, logged.of_file, file);
	expect(within_pct((double)logged.pages, (double)kernel, 1), "the log's %" PRIu64 " pages "
	       "read again against the kernel's %" PRIu64, logged.pages, kernel);
	expect(logged.of_file >= (uint64_t)st.st_size / (uint64_t)sysconf(_SC_PAGESIZE),
	       "only %" PRIu64 " pages of the file read again in the log", logged.of_file);
	stop_daemon(daemon);
	daemon = 0;
	kill_and_reap(reader);
	expect(!rmdir(READER_CGROUP), "rmdir %s: %s", READER_CGROUP, strerror(errno));
	goto reaped;
end:
	if (daemon)
		stop_daemon(daemon);
	kill_and_reap(reader);
reaped:
	close(go);
	close(back);
}

#define READER_UNIT_PATH "/sys/fs/cgroup/pfprof-file-refaults"

/*
 * pfprof's estimate of the memory the reader needs, memory.max LIMIT_MIB
 * plus @extra, within 10 % of @file_bytes; with memory.max raised by
 * @extra, its reads read at least 90 % fewer pages again than the
 * @refaulted before.
 */
static void expect_fewer_refaults(int go, int back, uint64_t refaulted, uint64_t extra,
				  uint64_t file_bytes)
{
	const uint64_t raised = ((uint64_t)LIMIT_MIB << 20) + extra;
	uint64_t after;
	char max[24];

	expect(within_pct((double)raised, (double)file_bytes, 10), "an estimate of %.1f MiB for "
	       "a file of %.1f MiB", (double)raised / (1 << 20), (double)file_bytes / (1 << 20));
	snprintf(max, sizeof(max), "%" PRIu64, raised);
	write_file(READER_CGROUP "/memory.max", max);
	/* The pages evicted before come back once. */
	reads_refaulted(go, back);
	after = reads_refaulted(go, back);
	printf("  daemon_file_evictions: at memory.max %.1f MiB, the same %d reads read %" PRIu64
	       " pages again (%" PRIu64 " at %d MiB)\n", (double)raised / (1 << 20), READS, after,
	       refaulted, LIMIT_MIB);
	expect(after * 10 <= refaulted, "memory.max raised by the estimate: %" PRIu64 " pages "
	       "read again, %" PRIu64 " before", after, refaulted);
}

/* pfprofctl memory --json of the reader's cgroup: its one owner, or NULL without one yet. */
static struct json_object *cgroup_owner(struct json_object **all)
{
	char *argv[] = { "./pfprofctl", "--config", CONF, "memory", "--json", "--cgroup",
			 READER_UNIT_PATH, NULL };

	expect(!run_program_err(argv, DAEMON_DIR "/memory.json", DAEMON_DIR "/ctl.stderr"),
	       "pfprofctl memory --json --cgroup %s failed", READER_UNIT_PATH);
	*all = json_read_line(DAEMON_DIR "/memory.json");
	return json_object_array_get_idx(json_at(*all, "owners"), 0);
}

/*
 * pfprofd and a cgroup's file evictions: pfprofctl add --pages --cgroup of
 * the reader's cgroup asks for them ("S <target> charged"). The reader's
 * pages of the file read again all have their eviction in the pages log:
 * pfprofctl memory gives the cgroup as many as the kernel counted (within
 * 1 %), none without a distance, and the memory that would have kept 90 %
 * of them in: with it, the estimate of what the reader needs (memory.max
 * plus that) is within 10 % of the file; memory.max raised by it, the
 * same reads (after one round that brings the evicted pages back) read at
 * least 90 % fewer pages again.
 */
void test_daemon_file_evictions(void)
{
	uint64_t kernel, deadline, file_bytes;
	struct json_object *all = NULL, *owner;
	double refaulted = 0, unmatched, evicted, extra;
	pid_t reader, daemon;
	struct stat st;
	int go, back, rc;

	daemon_setup("");
	reader = spawn_piped(file_reader, &go, &back);
	mount_cgroup2(CGROUP_ROOT);
	if (!file_contains(CGROUP_ROOT "/cgroup.controllers", "memory")) {
		printf("  daemon_file_evictions: not run: no memory cgroups\n");
		kill_and_reap(reader);
		goto closed;
	}
	if (!reader_ready("daemon_file_evictions", reader, &st)) {
		kill_and_reap(reader);
		goto closed;
	}
	file_bytes = (uint64_t)st.st_size;
	mount_cgroup2("/sys/fs/cgroup");
	daemon = start_ready_daemon();
	{
		char *argv[] = { "./pfprofctl", "--config", CONF, "add", "--pages", "--cgroup",
				 READER_UNIT_PATH, NULL };

		rc = run_program_err(argv, NULL, DAEMON_DIR "/ctl.stderr");
	}
	expect(rc == 0, "pfprofctl add --pages --cgroup %s: exit %d", READER_UNIT_PATH, rc);
	kernel = reads_refaulted(go, back);
	deadline = now_ns() + scaled_ms(20000) * 1000000ULL;
	for (;;) {
		owner = cgroup_owner(&all);
		refaulted = owner ? json_number_at(owner, "file_refault_pages") : 0;
		if (refaulted >= (double)kernel * 0.99)
			break;
		expect(now_ns() < deadline, "after 20 s pfprofctl memory has %.0f pages of files read"
		       " again of the cgroup, the kernel counted %" PRIu64, refaulted, kernel);
		json_object_put(all);
		sleep_ms(200);
	}
	unmatched = json_number_at(owner, "file_unmatched_pages");
	evicted = json_number_at(owner, "file_evicted_pages");
	extra = json_object_is_type(json_at(owner, "extra_90_bytes"), json_type_null) ? -1 :
		json_number_at(owner, "extra_90_bytes");
	printf("  daemon_file_evictions: the kernel counted %" PRIu64 " file refaults; pfprofctl"
	       " memory: %.0f read again, %.0f without a distance, %.0f evicted; 90 %% kept in"
	       " by %.1f MiB more (the file %.1f MiB, memory.max %d MiB)\n", kernel, refaulted,
	       unmatched, evicted, extra / (1 << 20), (double)file_bytes / (1 << 20), LIMIT_MIB);
	expect(within_pct(refaulted, (double)kernel, 1), "%.0f pages read again against the "
	       "kernel's %" PRIu64, refaulted, kernel);
	expect(!unmatched && evicted >= refaulted, "%.0f pages read again without a distance, "
	       "%.0f evicted", unmatched, evicted);
	expect(extra > 0 && extra < (double)file_bytes, "%.0f bytes more would have kept 90 %% "
	       "in, the file has %" PRIu64, extra, file_bytes);
	if (extra > 0)
		expect_fewer_refaults(go, back, kernel, (uint64_t)extra, file_bytes);
	json_object_put(all);
	stop_daemon(daemon);
	kill_and_reap(reader);
	expect(!rmdir(READER_CGROUP), "rmdir %s: %s", READER_CGROUP, strerror(errno));
	umount("/sys/fs/cgroup");
closed:
	close(go);
	close(back);
}
