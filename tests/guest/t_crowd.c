// SPDX-License-Identifier: GPL-2.0
/*
 * One owner's records beside another's (issue 55, item 2): a user who loops
 * "T"/"X" over a tree of a thousand processes writes thousands of records a
 * sample (a LEFT per process at each "X", a COMM and COUNTS per process at
 * the sample after each "T"). Unbounded, they lap the record ring while a
 * reader is a few seconds behind, and root's records go with theirs; with
 * a budget per owner, the user's beyond records_per_user in a sample are
 * dropped, and counted, and root's are all there.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "harness.h"
#include "mp3ring.h"
#include "tests.h"

#define CROWD_PROCS 1000
#define CROWD_SECONDS 5
#define CROWD_TARGET 861
#define CROWD_ROOT_TARGET 862
/* The module parameter tests.c loads the module with for this test. */
#define CROWD_PER_USER 256

struct crowd_totals {
	uint64_t root_minor;		/* the worker's, in root's target */
	uint64_t root_unflagged;	/* root's records without MP3_RECORD_ADMIN */
	uint64_t user_records;		/* uid 65534's */
	uint64_t user_dropped;		/* in its MP3_RECORD_DROPPED records */
	uint64_t sample;		/* the sample being counted */
	uint32_t user_in_sample, user_max;	/* its records in one sample */
};

static pid_t crowd_worker;

static void crowd_count(void *ctx, const struct mp3_proc_record *r)
{
	struct crowd_totals *t = ctx;

	if (r->sample != t->sample) {
		t->sample = r->sample;
		t->user_in_sample = 0;
	}
	if (r->type == MP3_RECORD_DROPPED) {
		if (r->owner == NOBODY_ID)
			t->user_dropped += r->dropped.records;
		return;
	}
	if (r->tgid == (uint32_t)crowd_worker) {
		if (r->type == MP3_RECORD_COUNTS)
			t->root_minor += r->counts.minor_faults;
		t->root_unflagged += !(r->flags & MP3_RECORD_ADMIN);
		return;
	}
	if (r->owner == NOBODY_ID && !(r->flags & MP3_RECORD_ADMIN)) {
		t->user_records++;
		if (++t->user_in_sample > t->user_max)
			t->user_max = t->user_in_sample;
	}
}

/*
 * spawn_piped()'s child, as uid 65534: forks CROWD_PROCS idle children,
 * says so, and once told loops "T <itself> CROWD_TARGET" / "X CROWD_TARGET"
 * for CROWD_SECONDS; says how many rounds it made, then waits to be killed.
 */
static void crowd_child(int go, int back)
{
	char add[64], end[32];
	unsigned long rounds = 0;
	uint64_t stop;
	int fd;

	become_nobody_with(CROWD_PROCS);
	fd = open(MP3_STATUS_PATH, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		_exit(7);
	snprintf(add, sizeof(add), "T %d %d", (int)getpid(), CROWD_TARGET);
	snprintf(end, sizeof(end), "X %d", CROWD_TARGET);
	child_says(back, 1);
	child_waits(go);
	stop = now_ns() + CROWD_SECONDS * 1000000000ULL;
	while (now_ns() < stop) {
		if (status_write_cmd_fd(fd, add) || status_write_cmd_fd(fd, end))
			_exit(8);
		rounds++;
	}
	child_done(back, rounds);
}

void test_records_beside_root(void)
{
	struct crowd_totals totals = { .sample = UINT64_MAX };
	struct proc_stat before, after;
	uint64_t from, to, dropped;
	uintptr_t said, rounds;
	struct mp3ring ring;
	struct worker w;
	int go, back, fd;
	pid_t crowd;

	map_ring(&ring, &fd);
	worker_spawn(&w);
	crowd_worker = w.pid;
	expect_ok(status_cmd('R', w.pid), "root's R of its worker");
	crowd = spawn_piped(crowd_child, &go, &back);
	expect(read(back, &said, sizeof(said)) == sizeof(said), "uid %d did not fork its %d processes",
	       NOBODY_ID, CROWD_PROCS);
	worker_do(&w, 'c', 0);
	wait_blocked(w.pid, 5000);
	from = wait_head(&ring, mp3ring_head(&ring) + 2, ticks_ms(&ring, 2));
	read_pid_stat(w.pid, &before);
	dropped = ring.hdr->records_dropped;
	expect(write(go, "g", 1) == 1, "telling uid %d: %s", NOBODY_ID, strerror(errno));
	for (int i = 0; i < CROWD_SECONDS * 2; i++) {
		worker_do(&w, 't', 500);
		sleep_ms(400);
	}
	expect(read(back, &rounds, sizeof(rounds)) == sizeof(rounds) && rounds,
	       "uid %d's loop of T and X failed", NOBODY_ID);
	wait_blocked(w.pid, 5000);
	read_pid_stat(w.pid, &after);
	to = wait_head(&ring, mp3ring_head(&ring) + 3, ticks_ms(&ring, 3));
	dropped = ring.hdr->records_dropped - dropped;
	/* Read only now, CROWD_SECONDS behind: it fails if one record was overwritten. */
	for_each_record_between(&ring, from, to, crowd_count, &totals);
	printf("  records_beside_root: uid %d: %lu rounds of T and X over %d processes, %" PRIu64
	       " records written, %" PRIu64 " dropped (header: %" PRIu64 "), at most %u in a"
	       " sample; root's worker: %" PRIu64 " minor faults counted, /proc: %llu\n",
	       NOBODY_ID, (unsigned long)rounds, CROWD_PROCS + 1, totals.user_records,
	       totals.user_dropped, dropped, totals.user_max, totals.root_minor,
	       after.minflt - before.minflt);
	expect(totals.root_minor == after.minflt - before.minflt && !totals.root_unflagged,
	       "root's worker: %" PRIu64 " of %llu faults counted, %" PRIu64 " records not an"
	       " administrator's", totals.root_minor, after.minflt - before.minflt,
	       totals.root_unflagged);
	expect(totals.user_max <= CROWD_PER_USER, "uid %d wrote %u records in one sample, past %d",
	       NOBODY_ID, totals.user_max, CROWD_PER_USER);
	expect(totals.user_dropped > 0 && totals.user_dropped == dropped,
	       "uid %d's records dropped: %" PRIu64 " in its records, %" PRIu64 " in the header",
	       NOBODY_ID, totals.user_dropped, dropped);
	expect_ok(status_cmd('U', w.pid), "root's U of its worker");
	kill_and_reap(crowd);
	kill_and_reap(w.pid);
	close(go);
	close(back);
	close(fd);
}
