// SPDX-License-Identifier: GPL-2.0
/*
 * Faults of processes forked into a target with "maps", placed from their
 * first one: the child makes its counters before its first instruction
 * (module/newborn.c), so a worker that does its work in its first tick has
 * it placed, not unresolved.
 */
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "harness.h"
#include "mapschild.h"
#include "pfprof.h"
#include "tests.h"

#define FORK_TARGET 4250
/*
 * Faults a child takes before its first instruction, which no counter can
 * see: the kernel's write of its thread ID (CLONE_CHILD_SETTID, a
 * copy-on-write of the page), and one more to spare.
 */
#define NEWBORN_UNRESOLVED_MAX 2

/* A tree's root, registered as "T <root> FORK_TARGET" and given "M": it runs fn when told. */
static pid_t start_fork_tree(void (*fn)(int, int), int *go, int *back)
{
	char cmd[64];
	pid_t root = spawn_piped(fn, go, back);

	/* Asleep: what it faults from here on is its own first run of its code. */
	wait_blocked(root, 2000);
	snprintf(cmd, sizeof(cmd), "T %d %d", (int)root, FORK_TARGET);
	expect_ok(status_write(cmd), cmd);
	snprintf(cmd, sizeof(cmd), "M %d", FORK_TARGET);
	expect_ok(status_write(cmd), cmd);
	return root;
}

/* What a child of the first test says: its PID and its region. */
struct newborn_word {
	pid_t pid;
	uintptr_t region;
};

/*
 * spawn_piped()'s fn: at a byte, forks a child that at once touches a
 * fresh region of REGION_PAGES pages, says its PID and region, and waits
 * to be killed; the root waits too.
 */
static void forks_touching_child(int go, int back)
{
	struct newborn_word word;
	pid_t pid;
	char *p;

	/* One fault a page, whatever the THP setting: inherited by the child. */
	if (prctl(PR_SET_THP_DISABLE, 1, 0, 0, 0))
		_exit(6);
	child_waits(go);
	pid = fork();
	if (pid < 0)
		_exit(4);
	if (pid > 0)
		for (;;)
			pause();
	p = map_region(REGION_PAGES);
	touch_region(p, REGION_PAGES);
	word = (struct newborn_word){ getpid(), (uintptr_t)p };
	if (write(back, &word, sizeof(word)) != sizeof(word))
		_exit(3);
	for (;;)
		pause();
}

/*
 * A tree's child that touches 64 MiB at once, all of it well within its
 * first tick: every fault of the region placed in the region, those it
 * took before its first instruction (at most NEWBORN_UNRESOLVED_MAX)
 * unresolved, and placed + unresolved + dropped = its counts = /proc.
 * Before, the child got its counters at the next tick, and most of the
 * region was unresolved.
 */
void test_faults_fork_first_tick(void)
{
	struct fault_sums sums = {};
	struct newborn_word word;
	struct maps_child c;
	struct proc_stat st;
	pid_t root;

	root = start_fork_tree(forks_touching_child, &c.go, &c.back);
	map_ring(&c.ring, &c.fd);
	c.from = wait_head(&c.ring, mp3ring_head(&c.ring) + 2, ticks_ms(&c.ring, 3));
	c.dropped_from = c.ring.hdr->faults_dropped;
	maps_child_go(&c, "f");
	maps_child_hear(&c, &word, sizeof(word));
	wait_blocked(word.pid, 2000);
	read_pid_stat(word.pid, &st);
	sums.region_start = mapping_start(word.pid, word.region);
	c.pid = word.pid;
	maps_child_records(&c, &sums);
	printf("  faults_fork_first_tick: region %" PRIu64 "/%d placed; %" PRIu64 "/%" PRIu64
	       " faults recorded, %" PRIu64 " of them unresolved, %" PRIu64 " dropped; counts %"
	       PRIu64 "/%" PRIu64 "; /proc %llu/%llu\n", sums.region_minor, REGION_PAGES,
	       sums.faults_minor, sums.faults_major, sums.unresolved_faults, sums.dropped,
	       sums.counts_minor, sums.counts_major, st.minflt, st.majflt);
	expect(sums.region_minor <= REGION_PAGES &&
	       sums.region_minor + sums.dropped >= REGION_PAGES,
	       "the region: %" PRIu64 " placed, %" PRIu64 " dropped; want %d less those dropped",
	       sums.region_minor, sums.dropped, REGION_PAGES);
	expect(sums.unresolved_faults <= NEWBORN_UNRESOLVED_MAX,
	       "%" PRIu64 " faults unresolved; at most %d (before its first instruction)",
	       sums.unresolved_faults, NEWBORN_UNRESOLVED_MAX);
	expect(sums.counts_minor == st.minflt && sums.counts_major == st.majflt &&
	       sums.faults_minor + sums.faults_major + sums.dropped ==
	       sums.counts_minor + sums.counts_major,
	       "faults records %" PRIu64 " + %" PRIu64 " dropped, counts %" PRIu64
	       ", /proc %llu: each fault once", sums.faults_minor + sums.faults_major,
	       sums.dropped, sums.counts_minor + sums.counts_major, st.minflt + st.majflt);
	/* The root's child, not ours: the root reaps it, or init once the root is gone. */
	kill(word.pid, SIGKILL);
	c.pid = root;
	maps_child_end(&c);
}

#define SERVER_REQUESTS 120
#define SERVER_WORKERS 8
#define SERVER_HEAP_PAGES 512
#define SERVER_FILE_PAGES 256
#define SERVER_FILE "/tmp/mp3-fork-server-file"
/*
 * How long a request keeps its worker ("s"): about two ticks, so that one
 * tick at least sees it alive; or none ("q"), a worker that exits at once.
 */
#define SERVER_REQUEST_MS 100
/* The share of a worker's faults that may stay unresolved, in thousandths. */
#define SERVER_UNRESOLVED_PERMILLE 20

/* What the server says of each worker it reaped: its faults, from wait4(). */
struct worker_word {
	pid_t pid;
	uint64_t minflt, majflt;
};

/* A worker: a request's heap and file pages touched, then the rest of the request, ms long. */
static __attribute__((noreturn)) void serve_request(unsigned int ms)
{
	int fd = open(SERVER_FILE, O_RDONLY | O_CLOEXEC);
	volatile const char *file;
	char *heap = map_region(SERVER_HEAP_PAGES);
	unsigned long sum = 0;

	file = fd < 0 ? MAP_FAILED : mmap(NULL, SERVER_FILE_PAGES * 4096UL, PROT_READ,
					  MAP_PRIVATE, fd, 0);
	if (file == MAP_FAILED)
		_exit(5);
	touch_region(heap, SERVER_HEAP_PAGES);
	for (unsigned long i = 0; i < SERVER_FILE_PAGES; i++)
		sum += (unsigned char)file[i * 4096];
	if (ms)
		sleep_ms(ms);
	_exit(sum == SERVER_FILE_PAGES ? 0 : 1);
}

/*
 * A worker that execs a program (as a server's helper would: a CGI, a
 * reload's config test) which maps 2 MiB, touches some 290 pages of it
 * and exits at once, well within a tick.
 */
static __attribute__((noreturn)) void exec_request(void)
{
	execl("./work", "work", "-q", "--no-register", "--pause", "0", "-n", "1", "2", "L", "2048",
	      (char *)NULL);
	_exit(7);
}

static void say_reaped(int back, pid_t pid, const struct rusage *ru)
{
	struct worker_word word = { pid, (uint64_t)ru->ru_minflt, (uint64_t)ru->ru_majflt };

	if (write(back, &word, sizeof(word)) != sizeof(word))
		_exit(3);
}

/*
 * spawn_piped()'s fn: at a byte ("s", "q" or "x"), a fork-per-request server,
 * SERVER_WORKERS at a time; each reaped worker's faults are said back,
 * then a word of PID 0.
 */
static void fork_server(int go, int back)
{
	unsigned int request_ms;
	struct rusage ru;
	int running = 0;
	char how;
	pid_t pid;

	if (prctl(PR_SET_THP_DISABLE, 1, 0, 0, 0) || read(go, &how, 1) != 1)
		_exit(5);
	request_ms = how == 'q' ? 0 : SERVER_REQUEST_MS;
	for (int served = 0; served < SERVER_REQUESTS || running; ) {
		if (served < SERVER_REQUESTS && running < SERVER_WORKERS) {
			pid = fork();
			if (pid < 0)
				_exit(4);
			if (pid == 0 && how == 'x')
				exec_request();
			if (pid == 0)
				serve_request(request_ms);
			served++;
			running++;
			continue;
		}
		pid = wait4(-1, NULL, 0, &ru);
		if (pid < 0)
			_exit(6);
		running--;
		say_reaped(back, pid, &ru);
	}
	say_reaped(back, 0, &(struct rusage){ 0 });
	for (;;)
		pause();
}

/* Each worker's faults, from wait4() and from the records. */
struct worker_sums {
	struct worker_word word;
	uint64_t placed, unresolved;
};

struct server_sums {
	struct worker_sums workers[SERVER_REQUESTS];
	unsigned int nr;
};

static void add_worker_record(void *ctx, const struct mp3_proc_record *r)
{
	struct server_sums *s = ctx;
	uint64_t faults = r->faults.minor_faults + r->faults.major_faults;

	if (r->type != MP3_RECORD_FAULTS || r->target != FORK_TARGET)
		return;
	for (unsigned int i = 0; i < s->nr; i++) {
		if (r->tgid != (uint32_t)s->workers[i].word.pid)
			continue;
		if (r->mapping == MP3_MAPPING_UNRESOLVED)
			s->workers[i].unresolved += faults;
		else
			s->workers[i].placed += faults;
		return;
	}
}

/* What the workers of one run of the server add up to. */
struct server_totals {
	uint64_t faults;	/* wait4()'s */
	uint64_t placed, unresolved, dropped;
	unsigned int workers, mismatched;
};

/*
 * Each worker's placed + unresolved faults against what wait4() says of
 * it: equal, but for up to @unaccounted_max each that no record may have
 * (those dropped aside, counted), printed for the first five that differ.
 */
static void add_workers(const struct server_sums *sums, uint64_t unaccounted_max,
			struct server_totals *t)
{
	for (unsigned int i = 0; i < sums->nr; i++) {
		const struct worker_sums *w = &sums->workers[i];
		uint64_t took = w->word.minflt + w->word.majflt;
		uint64_t recorded = w->placed + w->unresolved;

		t->faults += took;
		t->placed += w->placed;
		t->unresolved += w->unresolved;
		if ((recorded > took || recorded + unaccounted_max < took) && t->mismatched++ < 5)
			printf("  worker %d: %" PRIu64 " placed + %" PRIu64 " unresolved, wait4 %"
			       PRIu64 "\n", (int)w->word.pid, w->placed, w->unresolved, took);
	}
	t->workers = sums->nr;
}

/*
 * Runs the server (how: "s", "q" or "x") in a tree given "M" and checks
 * each worker's records against what wait4() says of it (add_workers()),
 * into *@t.
 */
static void run_fork_server(const char *test, const char *how, uint64_t unaccounted_max,
			    struct server_totals *t)
{
	static struct server_sums sums;
	struct maps_child c;
	uint64_t to;
	pid_t root;

	write_file_pages(SERVER_FILE, SERVER_FILE_PAGES);
	sums.nr = 0;
	*t = (struct server_totals){ 0 };
	root = start_fork_tree(fork_server, &c.go, &c.back);
	map_ring(&c.ring, &c.fd);
	c.from = wait_head(&c.ring, mp3ring_head(&c.ring) + 2, ticks_ms(&c.ring, 3));
	c.dropped_from = c.ring.hdr->faults_dropped;
	maps_child_go(&c, how);
	for (;;) {
		struct worker_word word;

		maps_child_hear(&c, &word, sizeof(word));
		if (!word.pid)
			break;
		expect(sums.nr < SERVER_REQUESTS, "more workers than requests");
		memset(&sums.workers[sums.nr], 0, sizeof(sums.workers[sums.nr]));
		sums.workers[sums.nr++].word = word;
	}
	to = wait_head(&c.ring, mp3ring_head(&c.ring) + 3, ticks_ms(&c.ring, 4));
	for_each_record_between(&c.ring, c.from, to, add_worker_record, &sums);
	t->dropped = c.ring.hdr->faults_dropped - c.dropped_from;
	add_workers(&sums, unaccounted_max, t);
	printf("  %s: %u workers, %" PRIu64 " faults (wait4), %" PRIu64 " placed, %" PRIu64
	       " unresolved (%.2f %%), %" PRIu64 " dropped; %u workers not matching\n", test,
	       t->workers, t->faults, t->placed, t->unresolved,
	       t->faults ? 100.0 * (double)t->unresolved / (double)t->faults : 0.0, t->dropped,
	       t->mismatched);
	expect(t->workers == SERVER_REQUESTS, "%u workers reaped of %d", t->workers,
	       SERVER_REQUESTS);
	expect(t->placed + t->unresolved <= t->faults &&
	       t->placed + t->unresolved + t->dropped + unaccounted_max * t->workers >= t->faults &&
	       (t->dropped || !t->mismatched),
	       "placed %" PRIu64 " + unresolved %" PRIu64 " against wait4's %" PRIu64 " (%" PRIu64
	       " dropped, %u workers not matching)", t->placed, t->unresolved, t->faults,
	       t->dropped, t->mismatched);
	c.pid = root;
	maps_child_end(&c);
	unlink(SERVER_FILE);
}

/*
 * A fork-per-request server in a tree given "M": SERVER_REQUESTS workers,
 * SERVER_WORKERS at a time, each touching heap and file pages at once;
 * how: "s", each living about two ticks, or "q", each exiting at once,
 * most before a tick: their memory map held, their faults are placed all
 * the same; or "x", each exec'ing a program that exits at once, within a
 * tick: the map held is the one the exec made, and the one it replaced is
 * held until the tick has placed the faults taken there (its way out of
 * fork() and into execve()). Each worker's faults are in its records once
 * (but for the exec's writes of the arguments, which no perf event sees:
 * @unaccounted_max), and at most SERVER_UNRESOLVED_PERMILLE of them all
 * unresolved.
 */
static void expect_fork_server_placed(const char *test, const char *how,
				      uint64_t unaccounted_max)
{
	struct server_totals t;

	run_fork_server(test, how, unaccounted_max, &t);
	expect(t.unresolved * 1000 <= SERVER_UNRESOLVED_PERMILLE * t.faults,
	       "%" PRIu64 " of %" PRIu64 " faults unresolved; at most %d per thousand",
	       t.unresolved, t.faults, SERVER_UNRESOLVED_PERMILLE);
}

void test_faults_fork_server(void)
{
	expect_fork_server_placed("faults_fork_server", "s", 0);
}

void test_faults_fork_server_quick(void)
{
	expect_fork_server_placed("faults_fork_server_quick", "q", 0);
}

void test_faults_fork_server_exec(void)
{
	expect_fork_server_placed("faults_fork_server_exec", "x", EXEC_GUP_FAULTS_MAX);
}

/*
 * rmmod while a tree given "M" forks workers without a pause: works queued
 * on children that have not run yet hold the module's code, and unload
 * waits for them. Loaded again, the module follows a tree as before; on
 * the debug kernel, KASAN and kmemleak watch the whole.
 */
void test_faults_fork_unload(void)
{
	int go, back;
	pid_t root;

	write_file_pages(SERVER_FILE, SERVER_FILE_PAGES);
	root = start_fork_tree(fork_server, &go, &back);
	expect(write(go, "q", 1) == 1, "starting the server: %s", strerror(errno));
	sleep_ms(300);
	expect_ok(module_unload(), "rmmod while a maps tree forks");
	expect_ok(module_load(NULL), "loading again");
	kill_and_reap(root);
	close(go);
	close(back);
	unlink(SERVER_FILE);
}
