// SPDX-License-Identifier: GPL-2.0
/*
 * Faults placed in the right mapping as processes come and go: joiners of
 * trees and names, exec layouts, PID reuse, many mappings, the thread cap.
 */
#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "harness.h"
#include "mapschild.h"
#include "pfprof.h"
#include "tests.h"

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
 * 16384 of its region afterwards all placed but those counted as dropped (a
 * CPU's buffer full: the tick can lag on an overloaded host), and together
 * no more than its counts, and at most JOIN_LOST_MAX fewer than them and
 * those dropped.
 */
static void expect_joiner_placed(const char *test, const char *registration, const char *maps,
				 const char *unregistration)
{
	struct fault_sums sums = {};
	struct maps_child c;
	uintptr_t joiner, addr;
	char cmd[64];
	uint64_t placed, dropped;
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
	dropped = c.ring.hdr->faults_dropped;
	maps_child_go(&c, "g");
	maps_child_hear(&c, &addr, sizeof(addr));
	sums.region_start = mapping_start((pid_t)joiner, addr);
	c.pid = (pid_t)joiner;
	maps_child_records(&c, &sums);
	dropped = c.ring.hdr->faults_dropped - dropped;
	placed = sums.faults_minor + sums.faults_major;
	printf("  %s: region %" PRIu64 " minor %" PRIu64 " major (kind %u); all mappings %"
	       PRIu64 "/%" PRIu64 " in %u records, %u unresolved; counts %" PRIu64 "/%" PRIu64
	       "; %" PRIu64 " dropped\n", test, sums.region_minor, sums.region_major,
	       sums.region_kind, sums.faults_minor, sums.faults_major, sums.fault_records,
	       sums.unresolved, sums.counts_minor, sums.counts_major, dropped);
	expect(sums.region_minor <= REGION_PAGES && sums.region_minor + dropped >= REGION_PAGES &&
	       !sums.region_major && sums.region_kind == MP3_MAPPING_ANON,
	       "%s: the region: %" PRIu64 " minor, %" PRIu64 " major, kind %u, %" PRIu64
	       " dropped; want %d (less those dropped), 0, %d", test, sums.region_minor,
	       sums.region_major, sums.region_kind, dropped, REGION_PAGES, MP3_MAPPING_ANON);
	expect(sums.faults_minor <= sums.counts_minor && sums.faults_major <= sums.counts_major &&
	       placed + dropped + JOIN_LOST_MAX >= sums.counts_minor + sums.counts_major,
	       "%s: faults records %" PRIu64 "/%" PRIu64 " and %" PRIu64 " dropped against counts %"
	       PRIu64 "/%" PRIu64 " (at most %d fewer)", test, sums.faults_minor,
	       sums.faults_major, dropped, sums.counts_minor, sums.counts_major, JOIN_LOST_MAX);
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

/*
 * Whether r is a faults record at the start of a mapping of the setuid
 * program, and then whether it names the program's (a file, or an inode)
 * rather than the child's own anonymous one from before the exec.
 */
static bool at_layout(const struct mp3_proc_record *r, bool *program)
{
	for (unsigned int i = 0; i < nr_layout; i++) {
		if (r->faults.start == layout[i].start) {
			*program = r->mapping != MP3_MAPPING_ANON || r->faults.inode;
			return true;
		}
	}
	return false;
}

struct layout_sums {
	pid_t tgid;
	uint64_t unresolved, in_program, in_own;
};

static void add_layout_record(void *ctx, const struct mp3_proc_record *r)
{
	struct layout_sums *s = ctx;
	uint64_t faults = r->faults.minor_faults + r->faults.major_faults;
	bool program;

	if (r->tgid != (uint32_t)s->tgid || r->type != MP3_RECORD_FAULTS)
		return;
	if (r->mapping == MP3_MAPPING_UNRESOLVED)
		s->unresolved += faults;
	else if (at_layout(r, &program))
		*(program ? &s->in_program : &s->in_own) += faults;
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
 * starts, inodes) to whoever reads the ring. Each is placed in the
 * child's own anonymous mapping at that address, in the map the exec
 * replaced, which the module holds until the sample places them; none in
 * the program's. Address randomization is off meanwhile, so that the
 * layout is known beforehand.
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
	       " before the exec; %" PRIu64 " faults in the child's own mappings there, %" PRIu64
	       " unresolved, %" PRIu64 " in the program's mappings\n", nr_layout, touched,
	       s.in_own, s.unresolved, s.in_program);
	expect(touched >= 16, "only %" PRIuPTR " pages touched", touched);
	/* The program's own faults after the exec are its registrant's to see (root's): not these. */
	expect(s.in_own >= touched, "%" PRIu64 " faults in the child's own mappings at the program's"
	       " addresses (%" PRIu64 " unresolved, %" PRIu64 " in the program's), %" PRIuPTR
	       " taken there before the exec", s.in_own, s.unresolved, s.in_program, touched);
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

/* What the new process maps where the old one had its region: a file, which records tell apart. */
#define REUSE_FILE "/tmp/mp3-reuse-file"

/*
 * A child, not registered, that maps REUSE_FILE at the old process's
 * address and waits. MAP_FIXED: since the old process was forked, its
 * parent may have mapped something there (the ring), which this child
 * does not use.
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
		int fd = open(REUSE_FILE, O_RDONLY | O_CLOEXEC);
		char *p = mmap((void *)addr, REUSE_PAGES * page, PROT_READ,
			       MAP_PRIVATE | MAP_FIXED, fd, 0);

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

/*
 * The faults records of the PID both processes had: the old one's region
 * is anonymous memory, the new one's mapping there a file.
 */
struct reuse_sums {
	pid_t tgid;
	uint64_t region_start;
	uint64_t unresolved, in_old_region, in_new_mapping;
};

static void add_reuse_record(void *ctx, const struct mp3_proc_record *r)
{
	struct reuse_sums *s = ctx;
	uint64_t n = r->faults.minor_faults + r->faults.major_faults;

	if (r->tgid != (uint32_t)s->tgid || r->type != MP3_RECORD_FAULTS)
		return;
	if (r->mapping == MP3_MAPPING_UNRESOLVED)
		s->unresolved += n;
	else if (r->faults.start == s->region_start && r->mapping == MP3_MAPPING_ANON)
		s->in_old_region += n;
	else if (r->mapping == MP3_MAPPING_FILE)
		s->in_new_mapping += n;
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

	write_file_pages(REUSE_FILE, REUSE_PAGES);
	for (int i = 0; i < QUIET_TRIES && !quiet; i++)
		quiet = pid_reuse_try(&s, register_new);
	unlink(REUSE_FILE);
	expect(quiet, "no PID reuse without a sample in between in %d tries", QUIET_TRIES);
	printf("  faults_pid_reuse: PID %d reused by a process %s; the old process's faults: %"
	       PRIu64 " unresolved, %" PRIu64 " in its own region, %" PRIu64
	       " in the new one's file\n", (int)s.tgid, how, s.unresolved, s.in_old_region,
	       s.in_new_mapping);
	expect(!s.in_new_mapping, "%" PRIu64 " faults placed in the new process's file, %s",
	       s.in_new_mapping, how);
	expect(s.unresolved + s.in_old_region >= REUSE_PAGES, "%" PRIu64 " faults unresolved and %"
	       PRIu64 " in the old region, %d pages touched", s.unresolved, s.in_old_region,
	       REUSE_PAGES);
}

/*
 * Issue 42, 1: a process registered with maps takes faults and exits;
 * before the next sample a new process gets its PID and maps a file at the
 * same addresses: not registered, then registered with maps. The old
 * process's faults must not be placed in the new one's mappings: they are
 * placed in its own memory map, which the module held (issue 58), or
 * unresolved (when the new process is followed under that PID, its owner
 * tells them apart).
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
 * pages without access (else they would merge into one), then it says it
 * is ready (the mprotect() calls took over 16 s on an overloaded host's
 * debug kernel); on a byte, one fault in each, then it says so.
 */
static void many_mappings_child(int go, int back)
{
	long page = sysconf(_SC_PAGESIZE);
	char *p = map_region(2 * MANY_MAPPINGS);

	for (unsigned long i = 0; i < MANY_MAPPINGS; i++)
		if (mprotect(p + (2 * i + 1) * page, page, PROT_NONE))
			_exit(6);
	child_says(back, 0);
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
	uintptr_t addr, ready;

	maps_child_start(&c, many_mappings_child, &ready, sizeof(ready));
	summed = c.ring.hdr->faults_summed;
	maps_child_stat(&c, &before);
	/*
	 * The cap is per sample: the touches start right after a tick, with a
	 * whole period (1 s, tests.c) before the next. At 50 ms a slow guest
	 * spread them over samples of at most 47 faults each, and the cap was
	 * never reached; now it fails only if touching takes over ~30 periods.
	 */
	wait_head(&c.ring, mp3ring_head(&c.ring) + 1, ticks_ms(&c.ring, 2));
	maps_child_go(&c, "g");
	maps_child_hear(&c, &addr, sizeof(addr));
	maps_child_stat(&c, &after);
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
	expect(mp3ring_fault_records_max(&c.ring) == MP3_FAULT_RECORDS_MAX,
	       "the header's bound %u, the module's %d", mp3ring_fault_records_max(&c.ring),
	       MP3_FAULT_RECORDS_MAX);
	expect(most <= MP3_FAULT_RECORDS_MAX, "%u faults records in one sample, at most %d",
	       most, MP3_FAULT_RECORDS_MAX);
	expect(summed > 0, "nothing counted in faults_summed");
	s.sums.dropped = c.ring.hdr->faults_dropped - c.dropped_from;
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
	maps_child_stat(&c, &before);
	memset(all, 'g', sizeof(all));
	expect(write(c.go, all, THREADS_MAX_PARAM - 1) == THREADS_MAX_PARAM - 1,
	       "telling the threads to go: %s", strerror(errno));
	maps_child_hear(&c, &word, sizeof(word));
	maps_child_stat(&c, &after);
	maps_child_records(&c, &sums);
	printf("  faults_threads_max: %d threads refused; %d followed: %" PRIu64 "/%" PRIu64
	       " in %u records, %u unresolved; counts %" PRIu64 "/%" PRIu64 "\n",
	       2 * THREADS_MAX_PARAM + 1, THREADS_MAX_PARAM, sums.faults_minor,
	       sums.faults_major, sums.fault_records, sums.unresolved, sums.counts_minor,
	       sums.counts_major);
	expect(sums.faults_minor + sums.dropped >= (THREADS_MAX_PARAM - 1) * THREADS_MAX_PAGES,
	       "%" PRIu64 " minor faults (%" PRIu64 " dropped), %d pages touched",
	       sums.faults_minor, sums.dropped, (THREADS_MAX_PARAM - 1) * THREADS_MAX_PAGES);
	expect_all_recorded("faults_threads_max", &sums, &before, &after);
	maps_child_end(&c);
}
