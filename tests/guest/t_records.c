// SPDX-License-Identifier: GPL-2.0
/*
 * Version 2 of the versioned region: per-process records and system
 * counters, and pfprofctl top, which shows them.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <math.h>
#include <pty.h>
#include <sched.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "harness.h"
#include "jsonout.h"
#include "overlap.h"
#include "pfprof.h"
#include "tests.h"

#define MAX_PROCS 1024
#define TOP_OUT "/tmp/top.out"
#define TOP_ERR "/tmp/top.err"

/* What the records of a run of samples say about one process. */
struct proc_total {
	pid_t tgid;
	uint64_t minor, major, cpu_ns;
	uint64_t counts;		/* MP3_RECORD_COUNTS records */
	uint64_t last_sample;		/* seq of the sample of its last counts record */
	uint64_t left_sample;		/* of its last MP3_RECORD_LEFT record */
	unsigned int lefts;		/* MP3_RECORD_LEFT records */
	uint32_t target;		/* of its last record */
	char comm[24];			/* its last MP3_RECORD_COMM */
	unsigned int names;		/* MP3_RECORD_COMM records */
};

struct record_totals {
	struct proc_total procs[MAX_PROCS];
	int nr;
	uint64_t lost;			/* records overwritten before they were read */
};

static struct proc_total *proc_of(struct record_totals *t, pid_t tgid)
{
	for (int i = 0; i < t->nr; i++)
		if (t->procs[i].tgid == tgid)
			return &t->procs[i];
	expect(t->nr < MAX_PROCS, "more than %d processes in the records", MAX_PROCS);
	memset(&t->procs[t->nr], 0, sizeof(t->procs[0]));
	t->procs[t->nr].tgid = tgid;
	return &t->procs[t->nr++];
}

/* One sample's records as add_records() reads them: their sums, for the check. */
struct sample_sums {
	struct record_totals *totals;
	uint64_t seq;
	uint64_t minor, major, cpu_ns, counts;
};

static void add_record(void *ctx, const struct mp3_proc_record *r)
{
	struct sample_sums *sums = ctx;
	struct proc_total *p = proc_of(sums->totals, r->tgid);

	p->target = r->target;
	expect(r->type == MP3_RECORD_COUNTS || r->type == MP3_RECORD_COMM ||
	       r->type == MP3_RECORD_LEFT, "record %llu has type %u", (unsigned long long)r->seq,
	       r->type);
	if (r->type == MP3_RECORD_LEFT) {
		p->lefts++;
		p->left_sample = sums->seq;
		return;
	}
	if (r->type == MP3_RECORD_COMM) {
		expect(memchr(r->comm, '\0', sizeof(r->comm)), "record %llu: comm without its NUL",
		       (unsigned long long)r->seq);
		memcpy(p->comm, r->comm, sizeof(p->comm));
		p->names++;
		return;
	}
	p->minor += r->counts.minor_faults;
	p->major += r->counts.major_faults;
	p->cpu_ns += r->counts.cpu_ns;
	p->counts++;
	p->last_sample = sums->seq;
	sums->minor += r->counts.minor_faults;
	sums->major += r->counts.major_faults;
	sums->cpu_ns += r->counts.cpu_ns;
	sums->counts++;
}

/* Adds one sample's records; checks that their counts add up to the sample. */
static void add_records(const struct mp3ring *ring, const struct mp3_ring_sample *s,
			struct record_totals *t)
{
	struct sample_sums sums = { .totals = t, .seq = s->seq };
	uint64_t lost = mp3ring_for_each_record(ring, s, add_record, &sums);

	t->lost += lost;
	if (lost)
		return;
	expect(sums.counts == s->nr_procs, "sample %llu: %" PRIu64 " counts records, %u processes",
	       (unsigned long long)s->seq, sums.counts, s->nr_procs);
	expect(sums.minor == s->minor_faults && sums.major == s->major_faults &&
	       sums.cpu_ns == s->cpu_ns,
	       "sample %llu: records sum to %" PRIu64 "/%" PRIu64 "/%" PRIu64
	       ", the sample says %llu/%llu/%llu", (unsigned long long)s->seq, sums.minor,
	       sums.major, sums.cpu_ns, (unsigned long long)s->minor_faults,
	       (unsigned long long)s->major_faults, (unsigned long long)s->cpu_ns);
}

/* The records of samples [from, to); fails if a sample is missed. */
static void total_records(const struct mp3ring *ring, uint64_t from, uint64_t to,
			  struct record_totals *t)
{
	uint64_t next = from, missed = 0;
	struct mp3_ring_sample s;

	memset(t, 0, sizeof(*t));
	while (next < to) {
		expect(mp3ring_read(ring, &next, &s, &missed) == MP3RING_SAMPLE,
		       "sample %" PRIu64 " not published", next);
		expect(!missed, "%" PRIu64 " samples missed before %" PRIu64, missed, next);
		add_records(ring, &s, t);
	}
}

static struct record_totals totals;

/* Whether the module visits only the processes that ran (sampler=events). */
static bool active_only(const struct mp3ring *ring)
{
	return ring->hdr->flags & MP3_RING_ACTIVE_ONLY;
}

/*
 * Two idle workers registered; one touches pages, the other burns CPU.
 * Visiting all, each is in every sample; visiting those that ran, in the
 * first (its name) and in those of its command.
 */
void test_records_match_stat(void)
{
	static struct record_totals named;
	struct proc_stat before[2], after[2];
	struct worker w[2];
	struct mp3ring ring;
	uint64_t from, to, named_from;
	int fd;

	map_ring(&ring, &fd);
	/*
	 * A name goes out with the first sample after the registration, which
	 * the debug kernel may take before the second one's: names are read
	 * from before the first (worker 0 was seen named 0 times there).
	 */
	named_from = mp3ring_head(&ring);
	for (int i = 0; i < 2; i++) {
		worker_spawn(&w[i]);
		/* Once it has answered a command, it waits idle for the next. */
		worker_do(&w[i], 'c', 0);
		wait_blocked(w[i].pid, 5000);
		read_pid_stat(w[i].pid, &before[i]);
		expect_ok(status_cmd('R', w[i].pid), "R worker");
	}
	from = wait_head(&ring, 1, 2000) - 1;
	worker_do(&w[0], 't', 3000);
	worker_do(&w[1], 'c', 300);
	for (int i = 0; i < 2; i++) {
		wait_blocked(w[i].pid, 5000);
		read_pid_stat(w[i].pid, &after[i]);
	}
	/*
	 * Sample head may have found a worker still runnable: head + 1 visits
	 * it one last time, head + 2 must not.
	 */
	to = wait_head(&ring, mp3ring_head(&ring) + 3, 2000);
	total_records(&ring, named_from, to, &named);
	total_records(&ring, from, to, &totals);
	expect(!totals.lost && !named.lost, "%" PRIu64 " records lost", totals.lost + named.lost);
	for (int i = 0; i < 2; i++) {
		struct proc_total *p = proc_of(&totals, w[i].pid), *n = proc_of(&named, w[i].pid);
		double stat_cpu_ns = (after[i].utime + after[i].stime - before[i].utime -
				      before[i].stime) * 1e9 / sysconf(_SC_CLK_TCK);
		char comm[24];

		printf("  records_match_stat: worker %d: %" PRIu64 " minor, %" PRIu64 " major, %.1f ms"
		       " in %" PRIu64 " samples; /proc: %llu, %llu, %.1f ms\n", i, p->minor, p->major,
		       p->cpu_ns / 1e6, p->counts, after[i].minflt - before[i].minflt,
		       after[i].majflt - before[i].majflt, stat_cpu_ns / 1e6);
		/* The first sample may predate the second registration. */
		expect(active_only(&ring) ? p->counts >= 2 && p->last_sample < to - 1 :
					    p->counts >= to - from - 1,
		       "worker %d in %" PRIu64 " of %" PRIu64 " samples, the last %" PRIu64, i,
		       p->counts, to - from, p->last_sample);
		/* Idle while measured: its counters stood still at both ends. */
		expect(p->minor == after[i].minflt - before[i].minflt &&
		       p->major == after[i].majflt - before[i].majflt,
		       "worker %d: records %" PRIu64 " minor %" PRIu64 " major, /proc/pid/stat %llu %llu",
		       i, p->minor, p->major, after[i].minflt - before[i].minflt,
		       after[i].majflt - before[i].majflt);
		/* /proc truncates utime and stime to clock ticks: allow one each. */
		expect(fabs(p->cpu_ns - stat_cpu_ns) <= 2e9 / sysconf(_SC_CLK_TCK),
		       "worker %d: records %.1f ms CPU, /proc/pid/stat %.1f ms", i, p->cpu_ns / 1e6,
		       stat_cpu_ns / 1e6);
		read_comm(w[i].pid, comm, sizeof(comm));
		expect(n->names == 1 && !strcmp(n->comm, comm), "worker %d named %u times, '%s', want"
		       " '%s' once", i, n->names, n->comm, comm);
	}
	expect(proc_of(&totals, w[0].pid)->minor >= 3000, "3000 pages touched, fewer faults");
	expect(proc_of(&totals, w[1].pid)->cpu_ns >= 300000000ULL, "300 ms burnt, less CPU");
	close(fd);
}

/* A registered child that execs gets a record with its new name. */
void test_records_exec_name(void)
{
	int go[2];
	struct mp3ring ring;
	uint64_t from, to;
	pid_t child;
	int fd;

	map_ring(&ring, &fd);
	expect(!pipe(go), "pipe: %s", strerror(errno));
	child = fork();
	expect(child >= 0, "fork: %s", strerror(errno));
	if (!child) {
		char c;

		close(go[1]);
		if (read(go[0], &c, 1) == 1)
			execl("./work", "work", "-q", "--sleep-ms", "100", "-n", "100", "1", "R", "1",
			      (char *)NULL);
		_exit(127);
	}
	close(go[0]);
	expect_ok(status_cmd('R', child), "R child");
	from = wait_head(&ring, mp3ring_head(&ring) + 2, 2000) - 2;
	expect(write(go[1], "g", 1) == 1, "starting the child: %s", strerror(errno));
	close(go[1]);
	to = wait_head(&ring, mp3ring_head(&ring) + 4, 2000);
	total_records(&ring, from, to, &totals);
	kill_and_reap(child);
	printf("  records_exec_name: %u names, the last '%s'\n", proc_of(&totals, child)->names,
	       proc_of(&totals, child)->comm);
	expect(proc_of(&totals, child)->names == 2 && !strcmp(proc_of(&totals, child)->comm, "work"),
	       "named %u times, last '%s': want the test's name, then 'work'",
	       proc_of(&totals, child)->names, proc_of(&totals, child)->comm);
	close(fd);
}

/*
 * A process that exits has no records after its last sample; the other
 * goes on: in every sample when all are visited, without records while it
 * sleeps when only those that ran are. The one that exits says it left.
 */
void test_records_exit(void)
{
	pid_t stays = spawn_sleeper(), goes = spawn_sleeper();
	struct mp3ring ring;
	uint64_t from, killed, to;
	int fd;

	map_ring(&ring, &fd);
	expect_ok(status_cmd('R', stays), "R sleeper");
	expect_ok(status_cmd('R', goes), "R sleeper");
	from = wait_head(&ring, mp3ring_head(&ring) + 2, 2000) - 2;
	kill_and_reap(goes);
	killed = mp3ring_head(&ring);
	to = wait_head(&ring, killed + 4, 2000);
	total_records(&ring, from, to, &totals);
	if (active_only(&ring))
		expect(proc_of(&totals, stays)->last_sample < killed &&
		       !proc_of(&totals, stays)->lefts, "the sleeping process has records in sample %"
		       PRIu64 ", after the kill, or left", proc_of(&totals, stays)->last_sample);
	else
		expect(proc_of(&totals, stays)->last_sample == to - 1,
		       "the live process has no records in the last sample");
	/* Its last period, up to its exit, comes in the first sample after it. */
	expect(proc_of(&totals, goes)->last_sample <= killed, "records of the exited process in "
	       "sample %" PRIu64 ", it was reaped before sample %" PRIu64,
	       proc_of(&totals, goes)->last_sample, killed);
	expect(active_only(&ring) ? proc_of(&totals, goes)->lefts == 1 &&
				   proc_of(&totals, goes)->left_sample ==
				   proc_of(&totals, goes)->last_sample :
				   !proc_of(&totals, goes)->lefts,
	       "the exited process left %u times, in sample %" PRIu64 " (its last counts: %" PRIu64
	       ")", proc_of(&totals, goes)->lefts, proc_of(&totals, goes)->left_sample,
	       proc_of(&totals, goes)->last_sample);
	kill_and_reap(stays);
	close(fd);
}

/* Visiting all (sampler=visit), 1000 registered processes are all in every sample. */
void test_records_thousand(void)
{
	static pid_t pids[1000];
	struct mp3ring ring;
	uint64_t from, to;
	int fd;

	map_ring(&ring, &fd);
	for (int i = 0; i < 1000; i++) {
		pids[i] = spawn_sleeper();
		expect_ok(status_cmd('R', pids[i]), "R sleeper");
	}
	from = wait_head(&ring, mp3ring_head(&ring) + 2, 5000);
	to = wait_head(&ring, from + 5, 5000);
	total_records(&ring, from, to, &totals);
	printf("  records_thousand: %d processes in samples %" PRIu64 "..%" PRIu64 ", %" PRIu64
	       " records lost\n", totals.nr, from, to - 1, totals.lost);
	expect(!totals.lost && totals.nr == 1000, "%d processes, %" PRIu64 " records lost",
	       totals.nr, totals.lost);
	for (int i = 0; i < 1000; i++)
		expect(proc_of(&totals, pids[i])->counts == to - from,
		       "process %d in %" PRIu64 " of %" PRIu64 " samples", (int)pids[i],
		       proc_of(&totals, pids[i])->counts, to - from);
	close(fd);
}

/*
 * A reader that falls behind (samples of 300 processes every jiffy, read
 * once the records have gone round their ring twice) finds the oldest
 * records overwritten: it counts them lost, and
 * every record it does read belongs to its sample and to a registered
 * process (total_records() checks each sample it reads fully).
 */
void test_records_slow_reader(void)
{
	static pid_t pids[300];
	struct mp3ring ring;
	uint64_t head, from;
	int fd;

	map_ring(&ring, &fd);
	for (int i = 0; i < 300; i++) {
		pids[i] = spawn_sleeper();
		expect_ok(status_cmd('R', pids[i]), "R sleeper");
	}
	/* From the first sample with all 300, once their records went round twice. */
	from = wait_head(&ring, mp3ring_head(&ring) + 1, 2000);
	head = wait_head(&ring, from + 2 * ring.record_capacity / 300 + 1, 30000);
	total_records(&ring, from, head, &totals);
	printf("  records_slow_reader: samples %" PRIu64 "..%" PRIu64 ", %" PRIu64
	       " records lost, %d processes\n", from, head - 1, totals.lost, totals.nr);
	expect(totals.lost > 0, "no record lost: the reader did not fall behind");
	expect(totals.nr == 300, "%d processes in the records read, want 300", totals.nr);
	for (int i = 0; i < 300; i++)
		expect(proc_of(&totals, pids[i])->counts > 0, "no record of process %d read",
		       (int)pids[i]);
	close(fd);
}

/*
 * Event sampling: 1000 sleepers and 10 workers registered. Each gets its
 * name and first counts; then the sleepers have no records while samples
 * go on, the workers have theirs while they run, and the sleeper
 * unregistered and the one killed say that they left.
 */
void test_records_idle(void)
{
	static pid_t sleepers[1000];
	struct worker w[10];
	struct mp3_ring_sample s;
	struct mp3ring ring;
	uint64_t from, idle_at, to, next, missed = 0;
	uint32_t most = 0;
	int fd;

	expect(file_contains("/sys/module/mp3/parameters/sampler", "events"),
	       "the parameter sampler does not read events");
	map_ring(&ring, &fd);
	expect(active_only(&ring) && ring.hdr->compat_version == MP3_RING_ACTIVE_ONLY_COMPAT_VERSION,
	       "flags %#x, compat_version %u", ring.hdr->flags, ring.hdr->compat_version);
	from = mp3ring_head(&ring);
	for (int i = 0; i < 1000; i++) {
		sleepers[i] = spawn_sleeper();
		expect_ok(status_cmd('R', sleepers[i]), "R sleeper");
	}
	for (int i = 0; i < 10; i++) {
		worker_spawn(&w[i]);
		worker_do(&w[i], 'c', 0);
		expect_ok(status_cmd('R', w[i].pid), "R worker");
	}
	/* All are asleep and have had their first sample: from here on, nothing to visit. */
	idle_at = wait_head(&ring, mp3ring_head(&ring) + 3, 5000);
	wait_head(&ring, idle_at + 5, 5000);
	for (int i = 0; i < 10; i++)
		worker_do(&w[i], 'c', 50);
	expect_ok(status_cmd('U', sleepers[0]), "U sleeper");
	kill_and_reap(sleepers[1]);
	to = wait_head(&ring, mp3ring_head(&ring) + 2, 2000);
	total_records(&ring, from, to, &totals);
	for (next = idle_at; next < idle_at + 5;) {
		expect(mp3ring_read(&ring, &next, &s, &missed) == MP3RING_SAMPLE, "sample %" PRIu64,
		       next);
		most = s.nr_records > most ? s.nr_records : most;
	}
	printf("  records_idle: samples %" PRIu64 "..%" PRIu64 ", %d processes, %" PRIu64
	       " records lost; at most %u records in the 5 idle samples\n", from, to - 1, totals.nr,
	       totals.lost, most);
	expect(!totals.lost, "%" PRIu64 " records lost", totals.lost);
	expect(!most, "%u records in a sample while all slept", most);
	for (int i = 0; i < 1000; i++) {
		struct proc_total *p = proc_of(&totals, sleepers[i]);

		/* The one killed ran its exit: its last counts come with its departure. */
		expect(p->names == 1 && p->counts >= 1 &&
		       (i == 1 ? p->last_sample == p->left_sample : p->last_sample < idle_at),
		       "sleeper %d (%d of 1000): %u names, %" PRIu64 " counts records, the last in "
		       "sample %" PRIu64 ", %.3f ms CPU; all asleep from sample %" PRIu64,
		       (int)sleepers[i], i, p->names, p->counts, p->last_sample, p->cpu_ns / 1e6,
		       idle_at);
		expect(p->lefts == (i < 2) && (i >= 2 || p->left_sample >= idle_at + 5),
		       "sleeper %d left %u times, in sample %" PRIu64, (int)sleepers[i], p->lefts,
		       p->left_sample);
	}
	for (int i = 0; i < 10; i++) {
		struct proc_total *p = proc_of(&totals, w[i].pid);

		expect(p->names == 1 && p->last_sample >= idle_at + 5 && p->cpu_ns >= 50000000ULL &&
		       !p->lefts, "worker %d: %u names, last counts in sample %" PRIu64 ", %.1f ms, "
		       "left %u times", i, p->names, p->last_sample, p->cpu_ns / 1e6, p->lefts);
		kill_and_reap(w[i].pid);
	}
	close(fd);
}

/* The sample of a version 1 module, frozen here as it was. */
struct v1_sample {
	uint64_t seq, time_ns, jiffies, minor_faults, major_faults, cpu_ns;
	uint64_t minor_total, major_total, cpu_ns_total;
	uint32_t nr_procs, reserved;
};

/*
 * Loaded with sampler=visit, a version 1 reader, as lib/mp3ring was, may
 * use the region and reads the same samples.
 */
void test_records_v1_reader(void)
{
	struct worker w;
	struct mp3ring ring;
	struct mp3_ring_sample s;
	uint64_t next, missed = 0, head;
	int fd;

	map_ring(&ring, &fd);
	worker_spawn(&w);
	expect_ok(status_cmd('R', w.pid), "R worker");
	worker_do(&w, 't', 500);
	head = wait_head(&ring, mp3ring_head(&ring) + 2, 2000);
	expect(file_contains("/sys/module/mp3/parameters/sampler", "visit") &&
	       ring.hdr->flags == kernel_stalls_flag(),
	       "sampler=visit: the parameter does not read visit, or flags are %#x",
	       ring.hdr->flags);
	expect(ring.hdr->compat_version <= 1 && ring.hdr->sample_size >= sizeof(struct v1_sample) &&
	       ring.hdr->header_size >= offsetof(struct mp3_ring_header, record_offset),
	       "compat_version %u, sample_size %u, header_size %u: a version 1 reader refuses it",
	       ring.hdr->compat_version, ring.hdr->sample_size, ring.hdr->header_size);
	next = head - 3;
	for (uint64_t n = head - 3; n < head; n++) {
		const struct v1_sample *v1 = (const void *)(ring.slots +
			(n & (ring.hdr->capacity - 1)) * ring.hdr->sample_size);

		expect(mp3ring_read(&ring, &next, &s, &missed) == MP3RING_SAMPLE, "sample %" PRIu64, n);
		expect(v1->seq == n && v1->minor_faults == s.minor_faults &&
		       v1->cpu_ns_total == s.cpu_ns_total && v1->nr_procs == s.nr_procs,
		       "sample %" PRIu64 " at version 1's offsets differs", n);
	}
	close(fd);
}

static uint64_t vmstat(const char *key)
{
	char line[128];
	uint64_t value = 0;
	size_t len = strlen(key);
	FILE *f = fopen("/proc/vmstat", "re");

	expect(f, "/proc/vmstat: %s", strerror(errno));
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, key, len) && line[len] == ' ')
			value = strtoull(line + len + 1, NULL, 10);
	fclose(f);
	return value;
}

/* The system's counters in a sample are /proc/vmstat's at that moment. */
void test_records_system_counters(void)
{
	pid_t sleeper = spawn_sleeper();
	uint64_t before_maj, before_in, before_out, head, next, missed = 0;
	struct mp3_ring_sample s;
	struct mp3ring ring;
	int fd;

	map_ring(&ring, &fd);
	expect_ok(status_cmd('R', sleeper), "R sleeper");
	before_maj = vmstat("pgmajfault");
	before_in = vmstat("pswpin");
	before_out = vmstat("pswpout");
	head = wait_head(&ring, mp3ring_head(&ring) + 2, 2000);
	next = head - 1;
	expect(mp3ring_read(&ring, &next, &s, &missed) == MP3RING_SAMPLE, "the last sample");
	printf("  records_system_counters: pgmajfault %llu pswpin %llu pswpout %llu\n",
	       (unsigned long long)s.pgmajfault, (unsigned long long)s.pswpin,
	       (unsigned long long)s.pswpout);
	expect(s.pgmajfault >= before_maj && s.pgmajfault <= vmstat("pgmajfault"),
	       "pgmajfault %llu, /proc/vmstat %llu before", (unsigned long long)s.pgmajfault,
	       (unsigned long long)before_maj);
	expect(s.pswpin >= before_in && s.pswpin <= vmstat("pswpin") &&
	       s.pswpout >= before_out && s.pswpout <= vmstat("pswpout"),
	       "pswpin %llu pswpout %llu, /proc/vmstat %llu %llu before",
	       (unsigned long long)s.pswpin, (unsigned long long)s.pswpout,
	       (unsigned long long)before_in, (unsigned long long)before_out);
	kill_and_reap(sleeper);
	close(fd);
}

/*
 * A registered process exits and a new one gets its PID: the new one's
 * records begin with its own name record, and its counts start at its
 * registration, never from the old process's counters.
 */
void test_records_pid_reuse(void)
{
	pid_t anchor = spawn_sleeper(), old = spawn_sleeper();
	struct proc_stat before, after;
	struct proc_total *p;
	struct mp3ring ring;
	struct worker w;
	uint64_t from, registered, to;
	char comm[24];
	int fd;

	map_ring(&ring, &fd);
	/* Keeps the sampler running once the old process is gone. */
	expect_ok(status_cmd('R', anchor), "R anchor");
	expect_ok(status_cmd('R', old), "R old");
	wait_head(&ring, mp3ring_head(&ring) + 2, 2000);
	kill_and_reap(old);
	/* The old process's last record is in a sample before from. */
	from = wait_head(&ring, mp3ring_head(&ring) + 2, 2000);
	set_last_pid(old - 1);
	worker_spawn(&w);
	expect(w.pid == old, "the PID was not reused: got %d, wanted %d", (int)w.pid, (int)old);
	worker_do(&w, 'c', 0);
	/* Samples before this one are from before the registration. */
	registered = wait_head(&ring, mp3ring_head(&ring) + 2, 2000);
	read_pid_stat(w.pid, &before);
	expect_ok(status_cmd('R', w.pid), "R of the new process with the reused PID");
	worker_do(&w, 't', 3000);
	read_pid_stat(w.pid, &after);
	to = wait_head(&ring, mp3ring_head(&ring) + 2, 2000);
	total_records(&ring, from, to, &totals);
	p = proc_of(&totals, w.pid);
	read_comm(w.pid, comm, sizeof(comm));
	printf("  records_pid_reuse: PID %d reused; %" PRIu64 " minor in %" PRIu64
	       " samples, /proc: %llu; named '%s' %u times\n", (int)w.pid, p->minor, p->counts,
	       after.minflt - before.minflt, p->comm, p->names);
	expect(!totals.lost, "%" PRIu64 " records lost", totals.lost);
	expect(p->names == 1 && !strcmp(p->comm, comm),
	       "the new process named %u times, '%s', want '%s' once", p->names, p->comm, comm);
	expect(p->counts && p->counts <= to - registered, "the new process in %" PRIu64 " of %"
	       PRIu64 " samples, registered in the last %" PRIu64 " at most", p->counts,
	       to - from, to - registered);
	expect(p->minor == after.minflt - before.minflt && p->minor >= 3000,
	       "records %" PRIu64 " minor faults, /proc/pid/stat %llu since its registration",
	       p->minor, after.minflt - before.minflt);
	kill_and_reap(w.pid);
	kill_and_reap(anchor);
	close(fd);
}

/* Loaded with records=off: the same samples, no records, and top says why it cannot run. */
void test_records_off(void)
{
	char *argv[] = { "./pfprofctl", "top", "-n", "1", NULL };
	struct mp3_ring_sample s;
	struct sample_sum sum;
	struct mp3ring ring;
	struct worker w;
	uint64_t from, to, next, missed = 0;
	int fd, rc;

	expect(file_contains("/sys/module/mp3/parameters/records", "N"),
	       "the parameter records does not read N");
	map_ring(&ring, &fd);
	worker_spawn(&w);
	expect_ok(status_cmd('R', w.pid), "R worker");
	from = wait_head(&ring, mp3ring_head(&ring) + 1, 2000);
	worker_do(&w, 't', 3000);
	to = wait_head(&ring, mp3ring_head(&ring) + 2, 2000);
	sum_samples(&ring, from, to, &sum);
	expect(sum.minor >= 3000 && sum.max_procs == 1, "%llu minor faults from %u processes",
	       (unsigned long long)sum.minor, sum.max_procs);
	for (next = from; next < to;) {
		expect(mp3ring_read(&ring, &next, &s, &missed) == MP3RING_SAMPLE, "sample %" PRIu64,
		       next);
		expect(!s.nr_records, "sample %llu has %u records", (unsigned long long)s.seq,
		       s.nr_records);
	}
	expect(!__atomic_load_n(&ring.hdr->record_head, __ATOMIC_ACQUIRE),
	       "record_head %llu with records=off", (unsigned long long)ring.hdr->record_head);
	rc = run_program_err(argv, TOP_OUT, TOP_ERR);
	show_file(TOP_ERR, "records_off| ");
	expect(rc == PFPROF_EXIT_FAILED && file_contains(TOP_ERR, "records=off"),
	       "pfprofctl top exited %d, without naming records=off", rc);
	kill_and_reap(w.pid);
	close(fd);
}

/* ---- pfprofctl top, which reads the records ---- */


struct top_row {
	int pid;
	char comm[32];
	double minor_s, major_s, cpu_pct;
};

/* The rows of `pfprofctl top -n 1` output, and the samples it says it read. */
static int parse_top(const char *path, uint64_t *first, uint64_t *last, struct top_row *rows,
		     int max)
{
	char line[256];
	unsigned long long a, b;
	int n = 0, lineno = 0;
	FILE *f = fopen(path, "re");

	expect(f, "%s: %s", path, strerror(errno));
	while (fgets(line, sizeof(line), f)) {
		lineno++;
		if (lineno == 1) {
			char *at = strstr(line, "samples ");

			expect(at && sscanf(at, "samples %llu..%llu", &a, &b) == 2,
			       "top's first line: %s", line);
			*first = a;
			*last = b;
		} else if (lineno > 3) {
			expect(n < max, "more than %d rows", max);
			expect(sscanf(line, "%d %31s %lf %lf %lf", &rows[n].pid, rows[n].comm,
				      &rows[n].minor_s, &rows[n].major_s, &rows[n].cpu_pct) == 5,
			       "top's row: %s", line);
			n++;
		}
	}
	fclose(f);
	return n;
}

/* The same from `pfprofctl top --json -n 1`: one line, one object, its processes. */
static int parse_top_json(const char *path, uint64_t *first, uint64_t *last,
			  struct top_row *rows, int max)
{
	struct json_object *o = json_read_line(path), *procs = json_at(o, "processes");
	struct json_object *targets = json_at(o, "targets");
	int n = (int)json_object_array_length(procs);

	*first = (uint64_t)json_number_at(o, "first_sample");
	*last = (uint64_t)json_number_at(o, "last_sample");
	expect(n <= max, "more than %d processes", max);
	for (int i = 0; i < n; i++) {
		struct json_object *p = json_object_array_get_idx(procs, i);

		rows[i].pid = (int)json_number_at(p, "pid");
		snprintf(rows[i].comm, sizeof(rows[i].comm), "%s",
			 json_object_get_string(json_at(p, "comm")));
		rows[i].minor_s = json_number_at(p, "minor_faults_per_s");
		rows[i].major_s = json_number_at(p, "major_faults_per_s");
		rows[i].cpu_pct = json_number_at(p, "cpu_percent");
	}
	/* Added by PID alone: one group without a target, of them all. */
	expect(json_object_array_length(targets) == 1 &&
	       json_number_at(json_object_array_get_idx(targets, 0), "processes") == n,
	       "targets: %s", json_object_to_json_string(targets));
	json_object_put(o);
	return n;
}

static bool close_to(double printed, double want)
{
	return fabs(printed - want) <= 0.051 + want * 1e-9;
}

/*
 * `pfprofctl top -n 1` (or with --json): every row is what the records of
 * its samples say.
 */
static void check_top(bool json)
{
	char window[16];
	char *text_argv[] = { "./pfprofctl", "top", "-n", "1", "-d", window, NULL };
	char *json_argv[] = { "./pfprofctl", "top", "--json", "-n", "1", "-d", window, NULL };
	char **argv = json ? json_argv : text_argv;
	struct top_row rows[8];
	struct worker w[2];
	struct mp3ring ring;
	struct mp3_ring_sample before, last;
	uint64_t first = 0, end = 0, next, missed = 0;
	pid_t sleeper = spawn_sleeper(), top;
	double seconds;
	int fd, n, status;

	/*
	 * Top's one window must hold the work below: 2 s, longer where the
	 * guest is slower (the work took longer than 2 s once, and its last
	 * worker had no records in the window).
	 */
	snprintf(window, sizeof(window), "%u", scaled_ms(2000) / 1000);
	map_ring(&ring, &fd);
	/* Asleep before it is registered: its start has no records in the window. */
	wait_blocked(sleeper, 5000);
	expect_ok(status_cmd('R', sleeper), "R sleeper");
	for (int i = 0; i < 2; i++) {
		worker_spawn(&w[i]);
		expect_ok(status_cmd('R', w[i].pid), "R worker");
	}
	wait_head(&ring, mp3ring_head(&ring) + 2, 2000);
	top = fork();
	expect(top >= 0, "fork: %s", strerror(errno));
	if (!top) {
		int out = open(TOP_OUT, O_WRONLY | O_CREAT | O_TRUNC, 0644);

		if (out < 0 || dup2(out, STDOUT_FILENO) < 0)
			_exit(126);
		execv(argv[0], argv);
		_exit(127);
	}
	/*
	 * Its window begins once it has mapped the ring: the work must come
	 * after, and two ticks later, or a slow start (the debug kernel) misses it.
	 */
	wait_ring_mapped(top, 10000);
	wait_head(&ring, mp3ring_head(&ring) + 2, 2000);
	worker_do(&w[0], 't', 4000);
	worker_do(&w[1], 'c', 200);
	expect(waitpid(top, &status, 0) == top && WIFEXITED(status) && !WEXITSTATUS(status),
	       "pfprofctl top -n 1 ended with status %#x", status);
	show_file(TOP_OUT, "top| ");
	n = (json ? parse_top_json : parse_top)(TOP_OUT, &first, &end, rows, 8);
	end++;
	next = first - 1;
	expect(mp3ring_read(&ring, &next, &before, &missed) == MP3RING_SAMPLE, "sample before");
	next = end - 1;
	expect(mp3ring_read(&ring, &next, &last, &missed) == MP3RING_SAMPLE, "last sample");
	seconds = (last.time_ns - before.time_ns) / 1e9;
	total_records(&ring, first, end, &totals);
	printf("  top_batch: samples %" PRIu64 "..%" PRIu64 " over %.2f s, %d rows\n", first,
	       end - 1, seconds, n);
	/* The sleeper has no records while it sleeps, and its row all the same. */
	expect(n == 3 && totals.nr == (active_only(&ring) ? 2 : 3),
	       "%d rows, %d processes in the records", n, totals.nr);
	for (int i = 0; i < n; i++) {
		struct proc_total *p = proc_of(&totals, rows[i].pid);

		expect(p->counts || rows[i].pid == sleeper, "row %d: PID %d has no records", i,
		       rows[i].pid);
		expect(close_to(rows[i].minor_s, p->minor / seconds) &&
		       close_to(rows[i].major_s, p->major / seconds) &&
		       close_to(rows[i].cpu_pct, p->cpu_ns / 1e7 / seconds),
		       "PID %d: top %.1f %.1f %.1f, records %.2f %.2f %.2f", rows[i].pid,
		       rows[i].minor_s, rows[i].major_s, rows[i].cpu_pct, p->minor / seconds,
		       p->major / seconds, p->cpu_ns / 1e7 / seconds);
		expect(!i || rows[i - 1].major_s > rows[i].major_s ||
		       (rows[i - 1].major_s == rows[i].major_s &&
			rows[i - 1].minor_s >= rows[i].minor_s), "row %d out of order", i);
	}
	expect(rows[0].pid == w[0].pid, "the page-touching worker is not first");
	close(fd);
}

void test_top_batch(void)
{
	check_top(false);
}

void test_top_json(void)
{
	check_top(true);
}

/* Rows of the last complete frame (lines between its home and clear-below); -1 if none. */
static int last_frame_rows(const char *screen)
{
	const char *end = NULL, *home = NULL, *p;
	int lines = 0;

	for (p = strstr(screen, "\033[J"); p; p = strstr(p + 1, "\033[J"))
		end = p;
	if (!end)
		return -1;
	for (p = screen; (p = strstr(p, "\033[H")) && p < end; p++)
		home = p;
	if (!home)
		return -1;
	for (p = home; p < end; p++)
		lines += *p == '\n';
	return lines - 3;
}

static bool top_drawn_12_rows(const char *screen)
{
	return strstr(screen, "\033[?1049h") && strstr(screen, "pfprof top:") &&
	       last_frame_rows(screen) == 12;
}

static bool top_drawn_4_rows(const char *screen)
{
	return last_frame_rows(screen) == 4;
}

/* On a terminal: the screen fills, follows a resize, and q restores it. */
void test_top_terminal(void)
{
	struct winsize ws = { .ws_row = 24, .ws_col = 80 };
	static char screen[SCREEN_MAX];
	pid_t sleepers[12], top;
	int master;
	size_t len = 0;

	for (int i = 0; i < 12; i++) {
		sleepers[i] = spawn_sleeper();
		expect_ok(status_cmd('R', sleepers[i]), "R sleeper");
	}
	top = forkpty(&master, NULL, NULL, &ws);
	expect(top >= 0, "forkpty: %s", strerror(errno));
	if (!top) {
		execl("./pfprofctl", "pfprofctl", "top", "-d", "0.2", (char *)NULL);
		_exit(127);
	}
	len = pty_read_until(master, screen, len, top_drawn_12_rows, 10000);
	expect(strstr(screen, "\033[?1049h") && strstr(screen, "pfprof top:"),
	       "no top screen on the terminal: %.200s", screen);
	expect(last_frame_rows(screen) == 12, "%d rows for 12 processes on 24 lines",
	       last_frame_rows(screen));
	ws.ws_row = 8;
	expect(!ioctl(master, TIOCSWINSZ, &ws), "resizing: %s", strerror(errno));
	/* 3 header lines, 4 rows, the last line left empty. */
	len = pty_read_until(master, screen, len, top_drawn_4_rows, 10000);
	expect(last_frame_rows(screen) == 4, "%d rows on 8 lines, want 4", last_frame_rows(screen));
	pty_expect_quit(master, top, screen, len, "top");
}

#define TREE_TARGET 4242
#define TREE_CHILDREN 20
#define TREE_PAGES 256

static uint64_t minor_faults_with_children(void)
{
	struct rusage self, children;

	getrusage(RUSAGE_SELF, &self);
	getrusage(RUSAGE_CHILDREN, &children);
	return (uint64_t)self.ru_minflt + (uint64_t)children.ru_minflt;
}

/* One short-lived child: touches its pages and exits. */
static void tree_child(unsigned long pages)
{
	size_t len = pages * 4096UL;
	char *p;

	if (prctl(PR_SET_THP_DISABLE, 1, 0, 0, 0))
		_exit(6);
	p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		_exit(7);
	for (size_t off = 0; off < len; off += 4096)
		p[off] = 1;
	_exit(0);
}

/*
 * The root of the tree: on a byte from go_fd, forks the children (each
 * touching pages) one after the other and reaps each, then writes to done_fd
 * its and its children's minor faults before and after, and waits to be
 * killed.
 */
static void tree_root(int go_fd, int done_fd, int children, unsigned long pages)
{
	uint64_t counts[2];
	char go;

	if (read(go_fd, &go, 1) != 1)
		_exit(5);
	counts[0] = minor_faults_with_children();
	for (int i = 0; i < children; i++) {
		pid_t pid = fork();

		if (pid == 0)
			tree_child(pages);
		if (pid < 0 || waitpid(pid, NULL, 0) != pid)
			_exit(4);
	}
	counts[1] = minor_faults_with_children();
	if (write(done_fd, counts, sizeof(counts)) != sizeof(counts))
		_exit(3);
	for (;;)
		pause();
}

/*
 * A tree's root (tree_root()) registered as "T <root> <target>", waiting
 * for its go: run_tree() gives it.
 */
static pid_t start_tree(int target, int children, unsigned long pages, int *go_fd,
			int *done_fd)
{
	int go[2], done[2];
	char cmd[64];
	pid_t root;

	expect(!pipe(go) && !pipe(done), "pipe: %s", strerror(errno));
	root = fork();
	expect(root >= 0, "fork: %s", strerror(errno));
	if (root == 0)
		tree_root(go[0], done[1], children, pages);
	snprintf(cmd, sizeof(cmd), "T %d %d", (int)root, target);
	expect_ok(status_write(cmd), cmd);
	*go_fd = go[1];
	*done_fd = done[0];
	return root;
}

/* Lets the tree run; the minor faults of its root and children before and after in counts. */
static void run_tree(int go_fd, int done_fd, uint64_t counts[2])
{
	expect(write(go_fd, "g", 1) == 1, "starting the tree: %s", strerror(errno));
	expect(read(done_fd, counts, 2 * sizeof(*counts)) == 2 * sizeof(*counts),
	       "the tree's root died");
}

/*
 * "T <pid> <target>": every process the root forks is counted from its fork
 * to its exit, although each lives less than a sampling period and is
 * reaped at once: the records of the tree add up to what getrusage() says
 * of the root and its children. @test names the test in what it prints.
 */
static void check_tree_counts(const char *test, const struct mp3ring *ring)
{
	int go_fd, done_fd, members = 0;
	uint64_t counts[2], from, to, minor = 0;
	pid_t root;

	root = start_tree(TREE_TARGET, TREE_CHILDREN, TREE_PAGES, &go_fd, &done_fd);
	from = mp3ring_head(ring);
	run_tree(go_fd, done_fd, counts);
	to = wait_head(ring, mp3ring_head(ring) + 2, 2000);
	total_records(ring, from, to, &totals);
	for (int i = 0; i < totals.nr; i++) {
		if (totals.procs[i].target != TREE_TARGET)
			continue;
		members++;
		minor += totals.procs[i].minor;
	}
	printf("  %s: %d processes of the tree in the records, %" PRIu64
	       " minor faults; getrusage: %" PRIu64 "\n", test, members, minor, counts[1] - counts[0]);
	expect(!totals.lost, "%" PRIu64 " records lost", totals.lost);
	expect(members == TREE_CHILDREN + 1, "%d processes of the tree, want %d", members,
	       TREE_CHILDREN + 1);
	expect(within_pct((double)minor, (double)(counts[1] - counts[0]), 1),
	       "the tree's records: %" PRIu64 " minor faults, getrusage: %" PRIu64, minor,
	       counts[1] - counts[0]);
	kill_and_reap(root);
	close(go_fd);
	close(done_fd);
}

void test_tree_counts_children(void)
{
	struct mp3ring ring;
	int fd;

	map_ring(&ring, &fd);
	check_tree_counts("tree_counts_children", &ring);
	close(fd);
}

/*
 * The probes are detached once nothing is followed (the sampler stops) and
 * attached again by the next registration: a tree registered then is
 * followed as the first was.
 */
void test_tree_after_idle(void)
{
	struct mp3ring ring;
	int fd;

	map_ring(&ring, &fd);
	check_tree_counts("tree_after_idle", &ring);
	wait_none_listed(2000);
	wait_stopped(&ring);
	check_tree_counts("tree_after_idle", &ring);
	close(fd);
}

/* Faults in one process's records: counted, and placed or not. */
struct placed_faults {
	uint64_t counted;	/* MP3_RECORD_COUNTS, minor and major */
	uint64_t placed;	/* MP3_RECORD_FAULTS, in a mapping */
	uint64_t unresolved;	/* MP3_RECORD_FAULTS, MP3_MAPPING_UNRESOLVED */
};

#define PLACED_PROCESSES 64

/* A target's faults in its processes' records, in all and by process (the first ones). */
struct placed_count {
	uint32_t target;
	struct placed_faults all;
	uint32_t tgids[PLACED_PROCESSES];
	struct placed_faults by_process[PLACED_PROCESSES];
	unsigned int processes;
};

static void add_placed(struct placed_faults *f, const struct mp3_proc_record *r)
{
	if (r->type == MP3_RECORD_COUNTS)
		f->counted += r->counts.minor_faults + r->counts.major_faults;
	else if (r->type == MP3_RECORD_FAULTS && r->mapping == MP3_MAPPING_UNRESOLVED)
		f->unresolved += r->faults.minor_faults + r->faults.major_faults;
	else if (r->type == MP3_RECORD_FAULTS)
		f->placed += r->faults.minor_faults + r->faults.major_faults;
}

static void count_placed_record(void *ctx, const struct mp3_proc_record *r)
{
	struct placed_count *c = ctx;
	unsigned int i;

	if (r->target != c->target)
		return;
	add_placed(&c->all, r);
	for (i = 0; i < c->processes && c->tgids[i] != r->tgid; i++)
		;
	if (i == PLACED_PROCESSES)
		return;
	c->tgids[i] = r->tgid;
	c->processes += i == c->processes;
	add_placed(&c->by_process[i], r);
}

/* The processes whose faults records add up to more than their counts records. */
static void print_placed_over(const struct placed_count *c)
{
	for (unsigned int i = 0; i < c->processes; i++) {
		const struct placed_faults *f = &c->by_process[i];

		if (f->placed + f->unresolved > f->counted)
			printf("  PID %u: %" PRIu64 " faults counted, %" PRIu64 " placed, %" PRIu64
			       " unresolved\n", c->tgids[i], f->counted, f->placed, f->unresolved);
	}
}

/* Faults a churning tree given "M" may take while its counters are being created, at most. */
#define CREATION_LOST_PCT 5

/*
 * A tree given "M" whose children each live less than a period: most exit
 * before the tick that would give them counters, and their removal puts
 * their faults in unresolved records; those that get counters and exit
 * have their last faults placed after they left. The tree's faults records
 * never add up to more than its counts records (with a thread per vCPU, a
 * fault in flight while another CPU made the counters was once counted
 * twice: 5321 of 5320 on 7.3), and to less only by the faults a child took
 * between the reading of its counts and of its fault number (faults.c; it
 * faults all the time here: 0 and 1 of 5320 on 7.3 and 6.1).
 */
void test_tree_maps_short_lived(void)
{
	struct placed_count count = { .target = TREE_TARGET };
	uint64_t counts[2], from, to;
	int go_fd, done_fd, fd;
	struct mp3ring ring;
	char cmd[32];
	pid_t root;

	map_ring(&ring, &fd);
	root = start_tree(TREE_TARGET, TREE_CHILDREN, TREE_PAGES, &go_fd, &done_fd);
	snprintf(cmd, sizeof(cmd), "M %d", TREE_TARGET);
	expect_ok(status_write(cmd), cmd);
	/*
	 * The root may still fault on its way to wait for its go, counted in
	 * one sample and placed in the next: the count starts once it waits,
	 * two samples later.
	 */
	wait_blocked(root, 5000);
	from = wait_head(&ring, mp3ring_head(&ring) + 2, 2000);
	run_tree(go_fd, done_fd, counts);
	to = wait_head(&ring, mp3ring_head(&ring) + 3, 2000);
	for_each_record_between(&ring, from, to, count_placed_record, &count);
	printf("  tree_maps_short_lived: %" PRIu64 " faults counted, %" PRIu64 " placed, %" PRIu64
	       " unresolved; getrusage: %" PRIu64 "; root PID %d\n", count.all.counted,
	       count.all.placed, count.all.unresolved, counts[1] - counts[0], (int)root);
	print_placed_over(&count);
	expect(count.all.placed + count.all.unresolved <= count.all.counted &&
	       within_pct((double)(count.all.placed + count.all.unresolved),
			  (double)count.all.counted, CREATION_LOST_PCT),
	       "faults records %" PRIu64 " + %" PRIu64 ", counts records %" PRIu64 " (at most %d %%"
	       " fewer)", count.all.placed, count.all.unresolved, count.all.counted,
	       CREATION_LOST_PCT);
	expect(count.all.unresolved > 0, "no child's faults unresolved: none exited before its tick?");
	kill_and_reap(root);
	close(go_fd);
	close(done_fd);
	close(fd);
}

#define CHURN_TARGET 4343
#define CHURN_CHILDREN 4000
#define CHURN_PAGES 4
#define PID_MAX_LIMIT 4194304

/* The processes of a target in the records, each counted once, and their faults. */
struct target_count {
	uint32_t target;
	uint8_t seen[PID_MAX_LIMIT / 8];	/* a bit per PID */
	unsigned int processes;
	uint64_t minor;
};

static void count_target_record(void *ctx, const struct mp3_proc_record *r)
{
	struct target_count *c = ctx;
	uint8_t bit = 1u << (r->tgid % 8);

	if (r->type != MP3_RECORD_COUNTS || r->target != c->target)
		return;
	c->minor += r->counts.minor_faults;
	expect(r->tgid < PID_MAX_LIMIT, "record of PID %u", r->tgid);
	if (!(c->seen[r->tgid / 8] & bit))
		c->processes++;
	c->seen[r->tgid / 8] |= bit;
}

static unsigned long read_pid_max(void)
{
	FILE *f = fopen("/proc/sys/kernel/pid_max", "re");
	unsigned long value = 0;

	expect(f && fscanf(f, "%lu", &value) == 1, "reading pid_max: %s", strerror(errno));
	fclose(f);
	return value;
}

static void write_pid_max(unsigned long value)
{
	FILE *f = fopen("/proc/sys/kernel/pid_max", "we");

	expect(f && fprintf(f, "%lu\n", value) > 0 && !fclose(f), "setting pid_max: %s",
	       strerror(errno));
}

/* CHURN_CHILDREN, or fewer if PFPROF_CHURN_CHILDREN says so (tests/guest/run). */
static int churn_children(void)
{
	const char *env = getenv("PFPROF_CHURN_CHILDREN");
	long n = env ? strtol(env, NULL, 10) : CHURN_CHILDREN;

	expect(n > 0 && n <= CHURN_CHILDREN, "PFPROF_CHURN_CHILDREN=%s: want 1 to %d", env,
	       CHURN_CHILDREN);
	return (int)n;
}

/*
 * Churn: CHURN_CHILDREN short-lived processes forked one after the other
 * through a registered tree are each in the records, none missed (PIDs are
 * not reused meanwhile: pid_max is raised), their faults add up to what
 * getrusage() says, and none is left registered once they have gone. On the
 * debug kernel, the suite's kmemleak scan then finds nothing the module
 * leaked.
 */
void test_tree_churn(void)
{
	static struct target_count count = { .target = CHURN_TARGET };
	unsigned long pid_max = read_pid_max();
	int children = churn_children();
	int go_fd, done_fd, fd;
	uint64_t counts[2], from, to, t0;
	struct mp3ring ring;
	char cmd[64];
	bool traced;
	pid_t root;

	write_pid_max(PID_MAX_LIMIT);
	map_ring(&ring, &fd);
	root = start_tree(CHURN_TARGET, children, CHURN_PAGES, &go_fd, &done_fd);
	from = mp3ring_head(&ring);
	t0 = now_ns();
	traced = overlap_start("tree_churn");
	run_tree(go_fd, done_fd, counts);
	if (traced)
		overlap_report("tree_churn");
	printf("  tree_churn: %d processes forked, exited and reaped in %.1f s\n",
	       children, (now_ns() - t0) / 1e9);
	to = wait_head(&ring, mp3ring_head(&ring) + 2, 2000);
	for_each_record_between(&ring, from, to, count_target_record, &count);
	write_pid_max(pid_max);
	printf("  tree_churn: %u processes of the tree in the records, %" PRIu64
	       " minor faults; getrusage: %" PRIu64 "\n", count.processes, count.minor,
	       counts[1] - counts[0]);
	expect(count.processes == (unsigned int)children + 1, "%u processes of the tree, want %d",
	       count.processes, children + 1);
	expect(within_pct((double)count.minor, (double)(counts[1] - counts[0]), 1),
	       "the tree's records: %" PRIu64 " minor faults, getrusage: %" PRIu64, count.minor,
	       counts[1] - counts[0]);
	expect_listing((const pid_t[]){ root }, 1, "after the churn");
	snprintf(cmd, sizeof(cmd), "X %d", CHURN_TARGET);
	expect_ok(status_write(cmd), cmd);
	kill_and_reap(root);
	close(go_fd);
	close(done_fd);
	close(fd);
}

/* Present descendants join a tree; "X" drops it whole; the commands' errors. */
void test_tree_commands(void)
{
	pid_t pids[2];
	char cmd[64];

	pids[0] = spawn_root_with_child(&pids[1]);
	snprintf(cmd, sizeof(cmd), "T %d 77", (int)pids[0]);
	expect_ok(status_write(cmd), cmd);
	expect_listing(pids, 2, "after T of a process with a child");
	expect_errno(status_write(cmd), EEXIST, "the same T again");
	snprintf(cmd, sizeof(cmd), "T %d", (int)pids[0]);
	expect_errno(status_write(cmd), EINVAL, "T without a target");
	snprintf(cmd, sizeof(cmd), "T %d 0", (int)pids[0]);
	expect_errno(status_write(cmd), EINVAL, "T with target 0");
	snprintf(cmd, sizeof(cmd), "T %d 7 8", (int)pids[0]);
	expect_errno(status_write(cmd), EINVAL, "T with a third number");
	expect_errno(status_write("X"), EINVAL, "X without a target");
	expect_errno(status_write("X 78"), ENOENT, "X of a target with no process");
	expect_ok(status_write("X 77"), "X 77");
	expect_listing(pids, 0, "after X");
	expect_errno(status_write("X 77"), ENOENT, "X 77 again");
	kill(pids[1], SIGKILL);
	kill_and_reap(pids[0]);
}

#define CGROUP_DIR CGROUP_ROOT "/mp3-test"
#define CGROUP_TARGET 99

/* MP3_CGROUPS_MAX cgroups at most (one is followed already): the next gets ENOSPC. */
static void fill_cgroup_targets(unsigned long long id)
{
	const int first = 1000;
	char cmd[64];
	int target;

	for (target = first; target < first + MP3_CGROUPS_MAX - 1; target++) {
		snprintf(cmd, sizeof(cmd), "C %llu %d", id, target);
		expect_ok(status_write(cmd), cmd);
	}
	snprintf(cmd, sizeof(cmd), "C %llu %d", id, target);
	expect_errno(status_write(cmd), ENOSPC, "C beyond MP3_CGROUPS_MAX");
	while (--target >= first) {
		snprintf(cmd, sizeof(cmd), "X %d", target);
		expect_ok(status_write(cmd), cmd);
	}
}

/*
 * "C <cgroup-id> <target>": the processes in a cgroup join, and so does one
 * forked there or moved in; one moved out leaves; "X" ends it all.
 */
void test_cgroup_follows(void)
{
	pid_t present = spawn_sleeper(), outside = spawn_sleeper(), forker, child;
	int go_fd, child_fd;
	char cmd[64];

	make_cgroup(CGROUP_DIR);
	forker = spawn_forker(&go_fd, &child_fd);
	move_to_cgroup(CGROUP_DIR, present);
	move_to_cgroup(CGROUP_DIR, forker);
	snprintf(cmd, sizeof(cmd), "C %llu %d", cgroup_id(CGROUP_DIR), CGROUP_TARGET);
	expect_ok(status_write(cmd), cmd);
	expect_listing((const pid_t[]){ present, forker }, 2, "after C of a cgroup with two");
	expect_errno(status_write(cmd), EEXIST, "the same C again");
	snprintf(cmd, sizeof(cmd), "C %llu %d", cgroup_id(CGROUP_ROOT), CGROUP_TARGET);
	expect_errno(status_write(cmd), EBUSY, "C of another cgroup with the same target");
	fill_cgroup_targets(cgroup_id(CGROUP_ROOT));
	expect(write(go_fd, "g", 1) == 1 && read(child_fd, &child, sizeof(child)) == sizeof(child),
	       "the forker did not fork");
	expect(status_lists(child), "a child forked in the cgroup is not registered");
	move_to_cgroup(CGROUP_DIR, outside);
	expect(status_lists(outside), "a process moved into the cgroup is not registered");
	move_to_cgroup(CGROUP_ROOT, present);
	wait_unlisted(present, 1000);
	expect_errno(status_write("C 987654321987 98"), ENOENT, "C of no cgroup");
	expect_errno(status_write("C 5"), EINVAL, "C without a target");
	expect_errno(status_write("C 0 5"), EINVAL, "C of id 0");
	snprintf(cmd, sizeof(cmd), "X %d", CGROUP_TARGET);
	expect_ok(status_write(cmd), cmd);
	expect_listing(NULL, 0, "after X of the cgroup");
	expect_errno(status_write(cmd), ENOENT, "X of the cgroup again");
	kill(child, SIGKILL);
	kill_and_reap(forker);
	kill_and_reap(outside);
	kill_and_reap(present);
	close(go_fd);
	close(child_fd);
}

#define CPU_CGROUP CGROUP_ROOT "/mp3-cpu"
#define CPU_TARGET 503
#define CPU_WORKERS 16
#define CPU_WORKER_MS 40

/* The cgroup's own CPU time: cpu.stat's usage_usec. */
static uint64_t cgroup_usage_usec(const char *dir)
{
	char path[128];

	snprintf(path, sizeof(path), "%s/cpu.stat", dir);
	return proc_key_value(path, "usage_usec");
}

/*
 * In the cgroup: on a byte from go_fd, forks the workers (each on the CPU
 * for CPU_WORKER_MS, then exiting), four at a time, reaps them, and
 * reports on done_fd; idle in read() before and after.
 */
static void cpu_spawner(int go_fd, int done_fd)
{
	char go;

	if (read(go_fd, &go, 1) != 1)
		_exit(5);
	for (int i = 0; i < CPU_WORKERS; i++) {
		pid_t pid = fork();

		if (pid == 0) {
			burn_cpu_ms(CPU_WORKER_MS);
			_exit(0);
		}
		if (pid < 0 || (i % 4 == 3 && (wait(NULL) < 0 || wait(NULL) < 0 ||
						 wait(NULL) < 0 || wait(NULL) < 0)))
			_exit(4);
	}
	if (write(done_fd, "d", 1) != 1)
		_exit(3);
	for (;;)
		pause();
}

/*
 * "C": the CPU time of a cgroup's processes in the records, the exiting
 * ones' last run included, is the cgroup's own (cpu.stat) within 1 %.
 */
void test_cgroup_cpu_matches(void)
{
	int go[2], done[2], fd;
	uint64_t from, to, usage0, usage1, cpu_ns = 0;
	struct mp3ring ring;
	char cmd[64], byte;
	pid_t spawner;

	make_cgroup(CPU_CGROUP);
	expect(!pipe(go) && !pipe(done), "pipe: %s", strerror(errno));
	spawner = fork();
	expect(spawner >= 0, "fork: %s", strerror(errno));
	if (spawner == 0)
		cpu_spawner(go[0], done[1]);
	move_to_cgroup(CPU_CGROUP, spawner);
	map_ring(&ring, &fd);
	snprintf(cmd, sizeof(cmd), "C %llu %d", cgroup_id(CPU_CGROUP), CPU_TARGET);
	expect_ok(status_write(cmd), cmd);
	from = wait_head(&ring, mp3ring_head(&ring) + 1, 2000);
	usage0 = cgroup_usage_usec(CPU_CGROUP);
	expect(write(go[1], "g", 1) == 1, "starting the workers: %s", strerror(errno));
	expect(read(done[0], &byte, 1) == 1, "the spawner died");
	/* The last worker's last run is counted once it is off the CPU: a period or two. */
	to = wait_head(&ring, mp3ring_head(&ring) + 4, 2000);
	usage1 = cgroup_usage_usec(CPU_CGROUP);
	total_records(&ring, from, to, &totals);
	for (int i = 0; i < totals.nr; i++)
		if (totals.procs[i].target == CPU_TARGET)
			cpu_ns += totals.procs[i].cpu_ns;
	printf("  cgroup_cpu_matches: %d workers, records %.3f ms, cpu.stat %.3f ms\n",
	       CPU_WORKERS, cpu_ns / 1e6, (usage1 - usage0) / 1e3);
	expect(within_pct(cpu_ns / 1e3, (double)(usage1 - usage0), 1),
	       "the records' CPU time %.3f ms, cpu.stat's %.3f ms", cpu_ns / 1e6,
	       (usage1 - usage0) / 1e3);
	snprintf(cmd, sizeof(cmd), "X %d", CPU_TARGET);
	expect_ok(status_write(cmd), cmd);
	kill_and_reap(spawner);
	close(fd);
	expect(!rmdir(CPU_CGROUP), "rmdir %s: %s", CPU_CGROUP, strerror(errno));
}

#define PIDNS_CGROUP CGROUP_ROOT "/mp3-pidns"
#define PIDNS_TREE 501
#define PIDNS_CGROUP_TARGET 502

/* A sleeping child of the caller; its PID as the caller's namespace numbers it. */
static pid_t fork_sleeper(void)
{
	pid_t pid = fork();

	expect(pid >= 0, "fork: %s", strerror(errno));
	if (pid == 0)
		for (;;)
			pause();
	return pid;
}

/*
 * PID 1 of a new PID namespace with its own /proc, in a cgroup of its own:
 * a tree ("T 1") and the cgroup ("C") registered through that /proc hold
 * it and its children, listed by the namespace's numbers. Reports on
 * ready_fd, then waits for the parent to look from outside.
 */
static void targets_in_pidns(int ready_fd)
{
	pid_t self = getpid(), first, second;
	char cmd[64];

	expect(self == 1, "child of unshare(CLONE_NEWPID) has PID %d", (int)self);
	move_to_cgroup(PIDNS_CGROUP, self);
	expect(!unshare(CLONE_NEWNS), "unshare(CLONE_NEWNS): %s", strerror(errno));
	expect(!mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL), "making the mounts private: %s",
	       strerror(errno));
	expect(!mount("proc", "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL),
	       "mounting the namespace's /proc: %s", strerror(errno));

	snprintf(cmd, sizeof(cmd), "T 1 %d", PIDNS_TREE);
	expect_ok(status_write(cmd), "T 1 through the namespace's /proc");
	first = fork_sleeper();
	expect_listing((const pid_t[]){ 1, first }, 2, "the tree of PID 1, in the namespace");
	snprintf(cmd, sizeof(cmd), "X %d", PIDNS_TREE);
	expect_ok(status_write(cmd), cmd);
	expect_listing(NULL, 0, "after X of the tree, in the namespace");

	snprintf(cmd, sizeof(cmd), "C %llu %d", cgroup_id(PIDNS_CGROUP), PIDNS_CGROUP_TARGET);
	expect_ok(status_write(cmd), "C of the namespace's cgroup");
	second = fork_sleeper();
	expect_listing((const pid_t[]){ 1, first, second }, 3, "the cgroup, in the namespace");
	expect(write(ready_fd, "k", 1) == 1, "reporting: %s", strerror(errno));
	for (;;)
		pause();
}

/* Outside: the namespace's PID 1 and its two children, by their global numbers. */
static void enter_pidns_targets(int unused)
{
	pid_t inner, listed[16];
	int ready[2], n;
	char ack;

	(void)unused;
	expect(!pipe(ready), "pipe: %s", strerror(errno));
	expect(!unshare(CLONE_NEWPID), "unshare(CLONE_NEWPID): %s", strerror(errno));
	inner = fork();
	expect(inner >= 0, "fork into the new namespace: %s", strerror(errno));
	if (inner == 0) {
		close(ready[0]);
		targets_in_pidns(ready[1]);
	}
	close(ready[1]);
	expect(read(ready[0], &ack, 1) == 1, "the namespace's PID 1 failed");
	expect(status_lists(inner), "PID 1 of the namespace, %d outside, is not listed", (int)inner);
	n = status_list(listed, 16);
	expect(n == 3, "%d processes listed outside, want the namespace's 3", n);
	kill_and_reap(inner);
}

/* Trees and cgroups registered from inside a PID namespace (issue 15's rule: by the /proc mount). */
void test_targets_pidns(void)
{
	char cmd[64];

	make_cgroup(PIDNS_CGROUP);
	in_child(enter_pidns_targets, 0, "the namespace parent");
	snprintf(cmd, sizeof(cmd), "X %d", PIDNS_CGROUP_TARGET);
	expect_ok(status_write(cmd), cmd);
	expect_listing(NULL, 0, "after X of the namespace's cgroup");
	expect(!rmdir(PIDNS_CGROUP), "rmdir %s: %s", PIDNS_CGROUP, strerror(errno));
}

#define COMM_NAME "mp3-comm-test"
#define COMM_TARGET 77

/*
 * A process named COMM_NAME that, on a byte from *cmd_fd, forks a sleeping
 * child ('f', its PID written to *back_fd), renames itself ('r') or execs
 * sleep ('e'); it is named before this returns.
 */
static pid_t spawn_named(int *cmd_fd, int *back_fd)
{
	int cmd[2], back[2];
	char byte;
	pid_t pid;

	expect(!pipe(cmd) && !pipe(back), "pipe: %s", strerror(errno));
	pid = fork();
	expect(pid >= 0, "fork: %s", strerror(errno));
	if (pid == 0) {
		pid_t child;

		if (prctl(PR_SET_NAME, COMM_NAME) || write(back[1], "n", 1) != 1)
			_exit(3);
		while (read(cmd[0], &byte, 1) == 1) {
			if (byte == 'r' && prctl(PR_SET_NAME, "renamed"))
				_exit(4);
			if (byte == 'e')
				execl("/bin/sleep", "sleep", "1000", (char *)NULL);
			if (byte != 'f')
				continue;
			child = fork();
			if (child == 0)
				for (;;)
					pause();
			if (write(back[1], &child, sizeof(child)) != sizeof(child))
				_exit(5);
		}
		_exit(6);
	}
	close(cmd[0]);
	close(back[1]);
	expect(read(back[0], &byte, 1) == 1, "the named process died");
	*cmd_fd = cmd[1];
	*back_fd = back[0];
	return pid;
}

/* Runs sleep under the name COMM_NAME: a symbolic link's name is the exec's. */
static pid_t spawn_exec_named(void)
{
	const char *link = "/tmp/" COMM_NAME;
	pid_t pid;

	expect(!symlink("/bin/sleep", link) || errno == EEXIST, "symlink %s: %s", link,
	       strerror(errno));
	pid = fork();
	expect(pid >= 0, "fork: %s", strerror(errno));
	if (pid == 0) {
		execl(link, COMM_NAME, "1000", (char *)NULL);
		_exit(7);
	}
	return pid;
}

/* MP3_COMMS_MAX names at most (one is followed already): the next gets ENOSPC. */
static void fill_comm_targets(void)
{
	const int first = 2000;
	char cmd[64];
	int target;

	for (target = first; target < first + MP3_COMMS_MAX - 1; target++) {
		snprintf(cmd, sizeof(cmd), "N %d filler", target);
		expect_ok(status_write(cmd), cmd);
	}
	snprintf(cmd, sizeof(cmd), "N %d filler", target);
	expect_errno(status_write(cmd), ENOSPC, "N beyond MP3_COMMS_MAX");
	while (--target >= first) {
		snprintf(cmd, sizeof(cmd), "X %d", target);
		expect_ok(status_write(cmd), cmd);
	}
}

static void send_byte(int fd, char byte)
{
	expect(write(fd, &byte, 1) == 1, "commanding a named process: %s", strerror(errno));
}

/*
 * "N <target> <comm>": the processes of that name join, and so do their
 * children and a process that execs a program of that name; one renamed,
 * by prctl() or by an exec, leaves; "X" ends it all.
 */
void test_comm_follows(void)
{
	int forker_cmd, forker_back, renamer_cmd, renamer_back, execer_cmd, execer_back;
	pid_t forker = spawn_named(&forker_cmd, &forker_back);
	pid_t renamer = spawn_named(&renamer_cmd, &renamer_back);
	pid_t execer = spawn_named(&execer_cmd, &execer_back);
	pid_t other = spawn_sleeper(), child, late;
	char cmd[64];

	snprintf(cmd, sizeof(cmd), "N %d %s", COMM_TARGET, COMM_NAME);
	expect_ok(status_write(cmd), cmd);
	expect_listing((const pid_t[]){ forker, renamer, execer }, 3,
		       "after N of a name three processes have");
	expect_errno(status_write(cmd), EEXIST, "the same N again");
	snprintf(cmd, sizeof(cmd), "N %d other", COMM_TARGET);
	expect_errno(status_write(cmd), EBUSY, "N of another name with the same target");
	expect_errno(status_write("N 78 0123456789abcdef"), EINVAL, "N of a 16-byte name");
	expect_errno(status_write("N 78"), EINVAL, "N without a name");
	expect_errno(status_write("N 0 x"), EINVAL, "N with target 0");
	fill_comm_targets();

	send_byte(forker_cmd, 'f');
	expect(read(forker_back, &child, sizeof(child)) == sizeof(child), "the forker did not fork");
	expect(status_lists(child), "a child of a process of the name is not registered");
	send_byte(renamer_cmd, 'r');
	wait_unlisted(renamer, 1000);
	send_byte(execer_cmd, 'e');
	wait_unlisted(execer, 1000);
	late = spawn_exec_named();
	wait_listed(late, 1000);
	expect(!status_lists(other), "a process of another name is registered");

	snprintf(cmd, sizeof(cmd), "X %d", COMM_TARGET);
	expect_ok(status_write(cmd), cmd);
	expect_listing(NULL, 0, "after X of the name");
	expect_errno(status_write(cmd), ENOENT, "X of the name again");
	kill(child, SIGKILL);
	for (pid_t *p = (pid_t[]){ forker, renamer, execer, late, other, 0 }; *p; p++)
		kill_and_reap(*p);
	close(forker_cmd);
	close(forker_back);
	close(renamer_cmd);
	close(renamer_back);
	close(execer_cmd);
	close(execer_back);
	unlink("/tmp/" COMM_NAME);
}
