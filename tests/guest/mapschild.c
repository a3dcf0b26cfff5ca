// SPDX-License-Identifier: GPL-2.0
#include "mapschild.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "harness.h"
#include "pfprof.h"

void add_fault_record(void *ctx, const struct mp3_proc_record *r)
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
	if (r->mapping == MP3_MAPPING_UNRESOLVED) {
		sums->unresolved++;
		sums->unresolved_faults += r->faults.minor_faults + r->faults.major_faults;
	}
	if (r->faults.inode && sums->nr_files < sizeof(sums->files) / sizeof(sums->files[0]))
		sums->files[sums->nr_files++] = (struct fault_file){ r->faults.start,
								   r->faults.inode, r->dev };
	if (r->faults.start == sums->region_start) {
		sums->region_minor += r->faults.minor_faults;
		sums->region_major += r->faults.major_faults;
		sums->region_kind = r->mapping;
	}
}

void register_maps(pid_t pid)
{
	char cmd[64];

	snprintf(cmd, sizeof(cmd), "R %d maps", (int)pid);
	expect_ok(status_write(cmd), cmd);
}

/*
 * Starts fn as a child (spawn_piped()) and registers it with maps once it
 * has said size bytes into ready (none if ready is NULL); from then on the
 * ring's samples count.
 */
void maps_child_start(struct maps_child *c, void (*fn)(int, int), void *ready,
		      size_t size)
{
	c->pid = spawn_piped(fn, &c->go, &c->back);
	map_ring(&c->ring, &c->fd);
	if (ready)
		expect(read(c->back, ready, size) == (ssize_t)size, "the child died");
	/*
	 * Asleep, waiting to be told: the first run of each page of its code
	 * since the fork faults, and a fault between the registration and the
	 * caller's read of /proc would be the module's alone.
	 */
	wait_blocked(c->pid, 2000);
	c->dropped_from = c->ring.hdr->faults_dropped;
	register_maps(c->pid);
	c->from = wait_head(&c->ring, mp3ring_head(&c->ring) + 1, ticks_ms(&c->ring, 2));
}

void maps_child_go(struct maps_child *c, const char *bytes)
{
	size_t len = strlen(bytes);

	expect(write(c->go, bytes, len) == (ssize_t)len, "telling the child to go: %s",
	       strerror(errno));
}

void maps_child_stat(struct maps_child *c, struct proc_stat *st)
{
	wait_blocked(c->pid, 2000);
	read_pid_stat(c->pid, st);
}

/* What the child says back, size bytes into what. */
void maps_child_hear(struct maps_child *c, void *what, size_t size)
{
	expect(read(c->back, what, size) == (ssize_t)size, "the child died");
}

/*
 * Adds the child's records from its registration on to sums, three samples
 * from now: faults are placed at the tick after the one that counted them.
 * Returns the end of the samples read.
 */
uint64_t maps_child_records(struct maps_child *c, struct fault_sums *sums)
{
	uint64_t to = wait_head(&c->ring, mp3ring_head(&c->ring) + 3, 2000);

	sums->tgid = c->pid;
	for_each_record_between(&c->ring, c->from, to, add_fault_record, sums);
	sums->dropped = c->ring.hdr->faults_dropped - c->dropped_from;
	return to;
}

void maps_child_end(struct maps_child *c)
{
	kill_and_reap(c->pid);
	close(c->go);
	close(c->back);
	close(c->fd);
}

/* Without drops each kind's records equal its counts; the drops are of either kind. */
void expect_all_recorded(const char *test, const struct fault_sums *sums,
			 const struct proc_stat *before, const struct proc_stat *after)
{
	expect(sums->faults_minor <= sums->counts_minor &&
	       sums->faults_major <= sums->counts_major &&
	       sums->faults_minor + sums->faults_major + sums->dropped ==
	       sums->counts_minor + sums->counts_major &&
	       sums->counts_minor == after->minflt - before->minflt &&
	       sums->counts_major == after->majflt - before->majflt,
	       "%s: faults records %" PRIu64 "/%" PRIu64 " and %" PRIu64 " dropped, counts %"
	       PRIu64 "/%" PRIu64 ", /proc %llu/%llu", test, sums->faults_minor,
	       sums->faults_major, sums->dropped, sums->counts_minor, sums->counts_major,
	       after->minflt - before->minflt, after->majflt - before->majflt);
}
