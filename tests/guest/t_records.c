// SPDX-License-Identifier: GPL-2.0
/*
 * The per-process records of the ring: they add up to the samples and to
 * /proc, name processes at exec, say when one left, reach a slow or an
 * older reader, and can be turned off.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "harness.h"
#include "jsonout.h"
#include "pfprof.h"
#include "recordsums.h"
#include "tests.h"

#define TOP_ERR "/tmp/top.err"

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
	total_records(&ring, from, to, &records_seen);
	expect(!records_seen.lost && !named.lost, "%" PRIu64 " records lost", records_seen.lost + named.lost);
	for (int i = 0; i < 2; i++) {
		struct proc_total *p = proc_of(&records_seen, w[i].pid), *n = proc_of(&named, w[i].pid);
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
	expect(proc_of(&records_seen, w[0].pid)->minor >= 3000, "3000 pages touched, fewer faults");
	expect(proc_of(&records_seen, w[1].pid)->cpu_ns >= 300000000ULL, "300 ms burnt, less CPU");
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
	/*
	 * Its first name goes out with the next sample: read from there, not
	 * from two before the head found after the wait, which may be past it.
	 */
	from = mp3ring_head(&ring);
	wait_head(&ring, from + 2, 2000);
	expect(write(go[1], "g", 1) == 1, "starting the child: %s", strerror(errno));
	close(go[1]);
	to = wait_head(&ring, mp3ring_head(&ring) + 4, 2000);
	total_records(&ring, from, to, &records_seen);
	kill_and_reap(child);
	printf("  records_exec_name: %u names, the last '%s'\n", proc_of(&records_seen, child)->names,
	       proc_of(&records_seen, child)->comm);
	expect(proc_of(&records_seen, child)->names == 2 && !strcmp(proc_of(&records_seen, child)->comm, "work"),
	       "named %u times, last '%s': want the test's name, then 'work'",
	       proc_of(&records_seen, child)->names, proc_of(&records_seen, child)->comm);
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
	from = mp3ring_head(&ring);
	wait_head(&ring, from + 2, 2000);
	kill_and_reap(goes);
	killed = mp3ring_head(&ring);
	to = wait_head(&ring, killed + 4, 2000);
	total_records(&ring, from, to, &records_seen);
	if (active_only(&ring))
		expect(proc_of(&records_seen, stays)->last_sample < killed &&
		       !proc_of(&records_seen, stays)->lefts, "the sleeping process has records in sample %"
		       PRIu64 ", after the kill, or left", proc_of(&records_seen, stays)->last_sample);
	else
		expect(proc_of(&records_seen, stays)->last_sample == to - 1,
		       "the live process has no records in the last sample");
	/* Its last period, up to its exit, comes in the first sample after it. */
	expect(proc_of(&records_seen, goes)->last_sample <= killed, "records of the exited process in "
	       "sample %" PRIu64 ", it was reaped before sample %" PRIu64,
	       proc_of(&records_seen, goes)->last_sample, killed);
	expect(active_only(&ring) ? proc_of(&records_seen, goes)->lefts == 1 &&
				   proc_of(&records_seen, goes)->left_sample ==
				   proc_of(&records_seen, goes)->last_sample :
				   !proc_of(&records_seen, goes)->lefts,
	       "the exited process left %u times, in sample %" PRIu64 " (its last counts: %" PRIu64
	       ")", proc_of(&records_seen, goes)->lefts, proc_of(&records_seen, goes)->left_sample,
	       proc_of(&records_seen, goes)->last_sample);
	kill_and_reap(stays);
	close(fd);
}

/*
 * Visiting all (sampler=visit), MANY_PROCS registered processes are all in
 * every sample.
 */
void test_records_thousand(void)
{
	static pid_t pids[MANY_PROCS];
	const int many = count_from_env("PFPROF_MANY_PROCS", MANY_PROCS);
	struct mp3ring ring;
	uint64_t from, to;
	int fd;

	map_ring(&ring, &fd);
	for (int i = 0; i < many; i++) {
		pids[i] = spawn_sleeper();
		expect_ok(status_cmd('R', pids[i]), "R sleeper");
	}
	from = wait_head(&ring, mp3ring_head(&ring) + 2, 5000);
	to = wait_head(&ring, from + 5, 5000);
	total_records(&ring, from, to, &records_seen);
	printf("  records_thousand: %d processes in samples %" PRIu64 "..%" PRIu64 ", %" PRIu64
	       " records lost\n", records_seen.nr, from, to - 1, records_seen.lost);
	expect(!records_seen.lost && records_seen.nr == many, "%d processes, %" PRIu64 " records lost",
	       records_seen.nr, records_seen.lost);
	for (int i = 0; i < many; i++)
		expect(proc_of(&records_seen, pids[i])->counts == to - from,
		       "process %d in %" PRIu64 " of %" PRIu64 " samples", (int)pids[i],
		       proc_of(&records_seen, pids[i])->counts, to - from);
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
	total_records(&ring, from, head, &records_seen);
	printf("  records_slow_reader: samples %" PRIu64 "..%" PRIu64 ", %" PRIu64
	       " records lost, %d processes\n", from, head - 1, records_seen.lost, records_seen.nr);
	expect(records_seen.lost > 0, "no record lost: the reader did not fall behind");
	expect(records_seen.nr == 300, "%d processes in the records read, want 300", records_seen.nr);
	for (int i = 0; i < 300; i++)
		expect(proc_of(&records_seen, pids[i])->counts > 0, "no record of process %d read",
		       (int)pids[i]);
	close(fd);
}

/*
 * Event sampling: MANY_PROCS sleepers and 10 workers registered. Each gets its
 * name and first counts; then the sleepers have no records while samples
 * go on, the workers have theirs while they run, and the sleeper
 * unregistered and the one killed say that they left.
 */
void test_records_idle(void)
{
	static pid_t sleepers[MANY_PROCS];
	const int many = count_from_env("PFPROF_MANY_PROCS", MANY_PROCS);
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
	for (int i = 0; i < many; i++) {
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
	total_records(&ring, from, to, &records_seen);
	for (next = idle_at; next < idle_at + 5;) {
		expect(mp3ring_read(&ring, &next, &s, &missed) == MP3RING_SAMPLE, "sample %" PRIu64,
		       next);
		most = s.nr_records > most ? s.nr_records : most;
	}
	printf("  records_idle: samples %" PRIu64 "..%" PRIu64 ", %d processes, %" PRIu64
	       " records lost; at most %u records in the 5 idle samples\n", from, to - 1, records_seen.nr,
	       records_seen.lost, most);
	expect(!records_seen.lost, "%" PRIu64 " records lost", records_seen.lost);
	expect(!most, "%u records in a sample while all slept", most);
	for (int i = 0; i < many; i++) {
		struct proc_total *p = proc_of(&records_seen, sleepers[i]);

		/* The one killed ran its exit: its last counts come with its departure. */
		expect(p->names == 1 && p->counts >= 1 &&
		       (i == 1 ? p->last_sample == p->left_sample : p->last_sample < idle_at),
		       "sleeper %d (%d of %d): %u names, %" PRIu64 " counts records, the last in "
		       "sample %" PRIu64 ", %.3f ms CPU; all asleep from sample %" PRIu64,
		       (int)sleepers[i], i, many, p->names, p->counts, p->last_sample, p->cpu_ns / 1e6,
		       idle_at);
		expect(p->lefts == (i < 2) && (i >= 2 || p->left_sample >= idle_at + 5),
		       "sleeper %d left %u times, in sample %" PRIu64, (int)sleepers[i], p->lefts,
		       p->left_sample);
	}
	for (int i = 0; i < 10; i++) {
		struct proc_total *p = proc_of(&records_seen, w[i].pid);

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

/*
 * The system's counters in a sample are /proc/vmstat's at that moment (0
 * where the kernel counts none: the debug kernel has no vm event counters).
 */
void test_records_system_counters(void)
{
	pid_t sleeper = spawn_sleeper();
	uint64_t before_maj, before_in, before_out, head, next, missed = 0;
	struct mp3_ring_sample s;
	struct mp3ring ring;
	int fd;

	map_ring(&ring, &fd);
	expect_ok(status_cmd('R', sleeper), "R sleeper");
	before_maj = vmstat("pgmajfault", false);
	before_in = vmstat("pswpin", false);
	before_out = vmstat("pswpout", false);
	head = wait_head(&ring, mp3ring_head(&ring) + 2, 2000);
	next = head - 1;
	expect(mp3ring_read(&ring, &next, &s, &missed) == MP3RING_SAMPLE, "the last sample");
	printf("  records_system_counters: pgmajfault %llu pswpin %llu pswpout %llu\n",
	       (unsigned long long)s.pgmajfault, (unsigned long long)s.pswpin,
	       (unsigned long long)s.pswpout);
	expect(s.pgmajfault >= before_maj && s.pgmajfault <= vmstat("pgmajfault", false),
	       "pgmajfault %llu, /proc/vmstat %llu before", (unsigned long long)s.pgmajfault,
	       (unsigned long long)before_maj);
	expect(s.pswpin >= before_in && s.pswpin <= vmstat("pswpin", false) &&
	       s.pswpout >= before_out && s.pswpout <= vmstat("pswpout", false),
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
	total_records(&ring, from, to, &records_seen);
	p = proc_of(&records_seen, w.pid);
	read_comm(w.pid, comm, sizeof(comm));
	printf("  records_pid_reuse: PID %d reused; %" PRIu64 " minor in %" PRIu64
	       " samples, /proc: %llu; named '%s' %u times\n", (int)w.pid, p->minor, p->counts,
	       after.minflt - before.minflt, p->comm, p->names);
	expect(!records_seen.lost, "%" PRIu64 " records lost", records_seen.lost);
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
