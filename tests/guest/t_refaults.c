// SPDX-License-Identifier: GPL-2.0
/*
 * How much memory would have ended the paging (lib/refaults.h, from the
 * module's swap records): a worker looping over a known working set in a
 * cgroup whose memory.max is well below it. The estimate must be the
 * working set, and the memory it names must end the paging.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "daemonrun.h"
#include "harness.h"
#include "jsonout.h"
#include "pfprof.h"
#include "refaults.h"
#include "targets.h"
#include "tests.h"

#define WORKING_SET_MIB 64
#define LIMIT_MIB 32
/* Loops over the working set measured at each limit, after those that settle it. */
#define MEASURED_LOOPS 3
#define SETTLING_LOOPS 2
#define REFAULTS_CGROUP CGROUP_ROOT "/pfprof-refaults"

/* The worker's loops so far, shared with the test (spawn_piped() takes no argument). */
static uint64_t *loops_done;

/*
 * spawn_piped()'s fn: writes every page of its working set in order, again
 * and again, counting its loops; 4 KiB pages, as reclaim would split a huge
 * one to swap it.
 */
static void looping_worker(int go, int back)
{
	const size_t page = (size_t)sysconf(_SC_PAGESIZE);
	const size_t pages = ((size_t)WORKING_SET_MIB << 20) / page;
	char *p;

	if (prctl(PR_SET_THP_DISABLE, 1, 0, 0, 0))
		_exit(6);
	p = map_region(pages);
	child_says(back, (uintptr_t)p);
	child_waits(go);
	for (uint64_t n = 1;; n++) {
		for (size_t i = 0; i < pages; i++)
			((volatile uint64_t *)(p + i * page))[0] = n;
		__atomic_store_n(loops_done, n, __ATOMIC_RELEASE);
	}
}

struct refault_feed {
	struct refault_replay replay;
	pid_t worker;
	uint64_t from;			/* the next sample to read */
	int err;
};

static void feed_record(void *ctx, const struct mp3_proc_record *r)
{
	struct refault_feed *f = ctx;
	struct log_page pg;

	if (r->type != MP3_RECORD_SWAP || r->tgid != (uint32_t)f->worker)
		return;
	pg = logformat_page_of(r, 0, LOGFORMAT_COUNT_UNKNOWN, 0, "worker");
	if (!f->err)
		f->err = refaults_add(&f->replay, &pg);
}

/* Feeds the ring's swap records to the replay until the worker has done loops more loops. */
static void feed_loops(const struct mp3ring *ring, struct refault_feed *f, uint64_t loops)
{
	uint64_t until = __atomic_load_n(loops_done, __ATOMIC_ACQUIRE) + loops;
	uint64_t deadline = now_ns() + scaled_ms(120000) * 1000000ULL, head;

	while (__atomic_load_n(loops_done, __ATOMIC_ACQUIRE) < until) {
		head = mp3ring_head(ring);
		expect(now_ns() < deadline, "the worker did %" PRIu64 " of %" PRIu64 " loops",
		       __atomic_load_n(loops_done, __ATOMIC_ACQUIRE), until);
		for_each_record_between(ring, f->from, head, feed_record, f);
		f->from = head;
		sleep_ms(50);
	}
	/* The loop's last events reach the ring at the next sample. */
	head = wait_head(ring, mp3ring_head(ring) + 2, 2000);
	for_each_record_between(ring, f->from, head, feed_record, f);
	f->from = head;
	expect_ok(f->err, "the replay of the swap records");
}

static void set_limit(uint64_t bytes)
{
	char max[24];

	snprintf(max, sizeof(max), "%" PRIu64, bytes);
	write_file(REFAULTS_CGROUP "/memory.max", max);
}

/* The kernel's swap counters over a window, and pfprof's for the same window. */
struct swap_window {
	uint64_t kernel_in, kernel_out;
	uint64_t loops;
};

/*
 * Feeds loops loops into the replay, counting only their events (its
 * window is set to them: the counts of the replay's owners add up the
 * windows), and the kernel's counters over the same time.
 */
static struct swap_window measure_loops(const struct mp3ring *ring, struct refault_feed *f,
					uint64_t loops)
{
	struct swap_window w = { .loops = loops };
	uint64_t in = swapped_in(), out = swapped_out();

	f->replay.from_ns = now_ns();
	f->replay.to_ns = UINT64_MAX;
	feed_loops(ring, f, loops);
	w.kernel_in = swapped_in() - in;
	w.kernel_out = swapped_out() - out;
	f->replay.to_ns = now_ns();
	return w;
}

/* Whether the guest has memory cgroups and swap: else says why test is not run. */
static bool worker_can_page(const char *test)
{
	char why[160];

	mount_cgroup2(CGROUP_ROOT);
	if (!file_contains(CGROUP_ROOT "/cgroup.controllers", "memory")) {
		printf("  %s: not run: no memory cgroups\n", test);
		return false;
	}
	if (!swap_device_ready(why, sizeof(why))) {
		expect(!file_contains("load-modules", "zram"), "no swap although the payload has "
		       "zram: %s", why);
		printf("  %s: not run: %s\n", test, why);
		return false;
	}
	return true;
}

/* looping_worker() in REFAULTS_CGROUP under memory.max = limit, waiting for "g". */
static pid_t spawn_worker_limited(uint64_t limit, int *go, int *back)
{
	pid_t worker;

	loops_done = mmap(NULL, sizeof(*loops_done), PROT_READ | PROT_WRITE,
			  MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	expect(loops_done != MAP_FAILED, "mmap: %s", strerror(errno));
	make_cgroup(REFAULTS_CGROUP);
	write_file(CGROUP_ROOT "/cgroup.subtree_control", "+memory");
	set_limit(limit);
	worker = spawn_piped(looping_worker, go, back);
	move_to_cgroup(REFAULTS_CGROUP, worker);
	return worker;
}

/* The worker killed, its cgroup and counter gone. */
static void end_worker(pid_t worker, int go, int back)
{
	kill_and_reap(worker);
	close(go);
	close(back);
	munmap(loops_done, sizeof(*loops_done));
	expect(!rmdir(REFAULTS_CGROUP), "rmdir %s: %s", REFAULTS_CGROUP, strerror(errno));
}

/*
 * A worker writing 64 MiB in a loop under memory.max = 32 MiB: its pages
 * written out and read back agree with the kernel's counters within 1 %
 * (the guest pages nothing else); pfprof's estimate of the memory it needs
 * (the limit plus the extra that keeps 90 % of its pages read back in) is
 * within 10 % of 64 MiB; with memory.max raised by that extra, it reads at
 * least 90 % fewer pages back per loop.
 */
void test_pages_memory_needed(void)
{
	const uint64_t page = (uint64_t)sysconf(_SC_PAGESIZE), limit = (uint64_t)LIMIT_MIB << 20;
	const uint64_t pages = ((uint64_t)WORKING_SET_MIB << 20) / page;
	struct refault_feed f = { 0 };
	struct swap_window paging, raised;
	double estimate;
	uint64_t extra[3];
	struct refault_owner *o;
	struct mp3ring ring;
	char cmd[32];
	int go, back, fd;
	uintptr_t addr;

	if (!worker_can_page("pages_memory_needed"))
		return;
	map_ring(&ring, &fd);
	f.worker = spawn_worker_limited(limit, &go, &back);
	snprintf(cmd, sizeof(cmd), "R %d pages", (int)f.worker);
	expect_ok(status_write(cmd), cmd);
	f.from = mp3ring_head(&ring);
	/* Nothing counts until measure_loops() opens the window: the loops settle first. */
	refaults_init(&f.replay, UINT64_MAX, UINT64_MAX);
	expect(read(back, &addr, sizeof(addr)) == sizeof(addr) && write(go, "g", 1) == 1,
	       "the worker did not start");

	feed_loops(&ring, &f, SETTLING_LOOPS);
	paging = measure_loops(&ring, &f, MEASURED_LOOPS);
	expect(f.replay.nr_owners == 1, "%zu owners in the worker's records", f.replay.nr_owners);
	o = &f.replay.owners[0];
	extra[0] = refaults_extra(o, 0.5);
	extra[1] = refaults_extra(o, 0.9);
	extra[2] = refaults_extra(o, 0.99);
	estimate = (double)(limit + extra[1] * page);
	printf("  pages_memory_needed: at memory.max %d MiB, over %d loops of %d MiB: the kernel "
	       "wrote out %" PRIu64 " and read back %" PRIu64 " pages; pfprof: %" PRIu64 " out, %"
	       PRIu64 " read back (%" PRIu64 " unmatched), %" PRIu64 " from the swap cache; median "
	       "%.1f ms away; extra for 50/90/99 %%: %.1f/%.1f/%.1f MiB; estimate %.1f MiB\n",
	       LIMIT_MIB, MEASURED_LOOPS, WORKING_SET_MIB, paging.kernel_out, paging.kernel_in,
	       o->out_pages, o->read_pages, o->unmatched, o->in_pages,
	       (double)refaults_median_away(o) / 1e6, (double)(extra[0] * page) / (1 << 20),
	       (double)(extra[1] * page) / (1 << 20), (double)(extra[2] * page) / (1 << 20),
	       estimate / (1 << 20));
	expect(paging.kernel_in > MEASURED_LOOPS * pages / 4, "the worker read back only %"
	       PRIu64 " pages in %d loops: it did not page", paging.kernel_in, MEASURED_LOOPS);
	expect(within_pct((double)o->read_pages, (double)paging.kernel_in, 1) &&
	       within_pct((double)o->out_pages, (double)paging.kernel_out, 1),
	       "pfprof's %" PRIu64 " pages read back and %" PRIu64 " written out against the "
	       "kernel's %" PRIu64 " and %" PRIu64, o->read_pages, o->out_pages, paging.kernel_in,
	       paging.kernel_out);
	expect(o->unmatched <= o->read_pages / 100, "%" PRIu64 " of %" PRIu64 " pages read "
	       "back had no swap-out seen", o->unmatched, o->read_pages);
	expect(within_pct(estimate, (double)((uint64_t)WORKING_SET_MIB << 20), 10),
	       "estimate %.1f MiB for a working set of %d MiB", estimate / (1 << 20),
	       WORKING_SET_MIB);

	set_limit(limit + extra[1] * page);
	feed_loops(&ring, &f, SETTLING_LOOPS);
	raised = measure_loops(&ring, &f, MEASURED_LOOPS);
	printf("  pages_memory_needed: at memory.max %.1f MiB, over %d loops: the kernel read back "
	       "%" PRIu64 " pages\n", (double)(limit + extra[1] * page) / (1 << 20),
	       MEASURED_LOOPS, raised.kernel_in);
	expect(raised.kernel_in * 10 <= paging.kernel_in, "memory.max raised by the estimate: %"
	       PRIu64 " pages read back in %d loops, %" PRIu64 " before", raised.kernel_in,
	       MEASURED_LOOPS, paging.kernel_in);

	end_worker(f.worker, go, back);
	refaults_free(&f.replay);
	close(fd);
}

#define DISTANCES "pfprof_target_swap_refault_distance_bytes"
#define DISTANCE_BUCKETS_MAX 64

/* A target's refault distances as pfprofd's metrics file has them. */
struct distances {
	double le[DISTANCE_BUCKETS_MAX], cumulative[DISTANCE_BUCKETS_MAX];
	int buckets;
	double count;		/* the histogram's */
	double read;		/* the target's pages read back from swap */
	double short90;		/* pfprof_target_swap_memory_short_bytes{share="0.9"} */
	double machine_short90;	/* pfprof_target_swap_machine_short_bytes{share="0.9"} */
};

/* The distances of target label in one read of the metrics file (pfprofd replaces it whole). */
static struct distances read_distances(const char *label)
{
	static struct prom_snapshot snap;
	struct distances d = { 0 };
	char prefix[160];
	size_t len;

	if (!prom_snapshot(&snap))
		return d;
	len = (size_t)snprintf(prefix, sizeof(prefix), DISTANCES "_bucket{target=\"%s\",le=\"",
			       label);
	for (const char *line = snap.text; *line; line = prom_next_line(line)) {
		if (strncmp(line, prefix, len) || d.buckets == DISTANCE_BUCKETS_MAX)
			continue;
		d.le[d.buckets] = strncmp(line + len, "+Inf", 4) ? strtod(line + len, NULL) :
			INFINITY;
		d.cumulative[d.buckets++] = strtod(strchr(line + len, ' ') + 1, NULL);
	}
	snprintf(prefix, sizeof(prefix), DISTANCES "_count{target=\"%s\"} ", label);
	d.count = prom_snapshot_value(&snap, prefix);
	snprintf(prefix, sizeof(prefix), "pfprof_target_swap_in_pages_total{target=\"%s\"} ",
		 label);
	d.read = prom_snapshot_value(&snap, prefix);
	snprintf(prefix, sizeof(prefix),
		 "pfprof_target_swap_memory_short_bytes{target=\"%s\",share=\"0.9\"} ", label);
	d.short90 = prom_snapshot_value(&snap, prefix);
	snprintf(prefix, sizeof(prefix),
		 "pfprof_target_swap_machine_short_bytes{target=\"%s\",share=\"0.9\"} ", label);
	d.machine_short90 = prom_snapshot_value(&snap, prefix);
	return d;
}

/* Where share q of the pages lie, as histogram_quantile() finds it: linearly in its bucket. */
static double distances_quantile(const struct distances *d, double q)
{
	double rank = q * d->cumulative[d->buckets - 1], below = 0, lower = 0;

	for (int b = 0; b < d->buckets; b++) {
		if (d->cumulative[b] >= rank && !isinf(d->le[b]))
			return lower + (d->le[b] - lower) * (rank - below) /
				       (d->cumulative[b] - below);
		if (d->cumulative[b] >= rank)
			return lower;
		below = d->cumulative[b];
		lower = d->le[b];
	}
	return lower;
}

/* The width of the bucket bytes falls in: what histogram_quantile() may be off by. */
static double bucket_width(const struct distances *d, double bytes)
{
	double lower = 0;

	for (int b = 0; b < d->buckets; b++) {
		if (bytes <= d->le[b])
			return d->le[b] - lower;
		lower = d->le[b];
	}
	return INFINITY;
}

/* The distances once pfprofd has counted every page read back it will: the same twice. */
static struct distances settled_distances(const char *label)
{
	uint64_t deadline = now_ns() + scaled_ms(20000) * 1000000ULL;
	struct distances last = read_distances(label), now;

	for (;;) {
		sleep_ms(1500);
		now = read_distances(label);
		if (now.buckets && now.read == last.read && now.count == last.count)
			return now;
		expect(now_ns() < deadline, "pfprofd's metrics file still changes after 20 s: %.0f "
		       "pages read back, %.0f in the histogram", now.read, now.count);
		last = now;
	}
}

/* The records pfprofd could not get, as its pages log says ("# lost N records of sample S"). */
static uint64_t pages_log_lost(void)
{
	char line[256];
	unsigned long long n, total = 0;
	FILE *f = fopen(LOG_DIR "/" LOGFORMAT_PAGES_FILE, "r");

	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "# lost %llu records", &n) == 1)
			total += n;
	if (f)
		fclose(f);
	return total;
}

/* pfprofctl memory's 90 % figure for tree root, in bytes: on its clock, or the machine's. */
static double memory_extra90(const char *root, bool machine)
{
	char *argv[] = { "./pfprofctl", "--config", CONF, "memory", "--json", "--tree",
			 (char *)root, machine ? "--machine" : NULL, NULL };
	struct json_object *o, *owner;
	double extra90;
	int rc;

	rc = run_program_err(argv, DAEMON_DIR "/memory.json", DAEMON_DIR "/ctl.stderr");
	expect(rc == 0, "pfprofctl memory --json --tree %s%s: exit %d", root,
	       machine ? " --machine" : "", rc);
	o = json_read_line(DAEMON_DIR "/memory.json");
	owner = json_object_array_get_idx(json_at(o, "owners"), 0);
	expect(owner, "pfprofctl memory --json --tree %s: no owner in %s", root,
	       json_object_to_json_string(o));
	extra90 = json_number_at(owner, "extra_90_bytes");
	json_object_put(o);
	return extra90;
}

/*
 * pfprofd's refault distances of a tree (pfprofctl add --pages --tree), for
 * the worker of test_pages_memory_needed(). The memory it was short of for
 * 90 % of its pages read back is pfprofctl memory's figure, at most 1/32
 * above (and a page), and with memory.max it is within 10 % of the working
 * set; the same on the machine's clock is pfprofctl memory --machine's,
 * within as much. Every page it read back is in the histogram (pfprofd saw
 * them all go out), but those whose swap-out the module dropped (the ring's
 * swap_dropped: past 8192 events a CPU between two ticks, as when a late
 * tick finds a loop's pages on one CPU) or pfprofd lost; its 90th percentile, as histogram_quantile() reads it, is in the
 * bucket of the exact one: the distances all just above 32 MiB read as 46
 * MiB there, which is why pfprofd tells the figure itself.
 */
void test_daemon_refault_distances(void)
{
	const uint64_t limit = (uint64_t)LIMIT_MIB << 20;
	const double page = (double)sysconf(_SC_PAGESIZE);
	char arg[16], label[32];
	struct distances d;
	struct mp3ring ring;
	uint64_t dropped, lost;
	double p90, extra90, machine_extra90;
	pid_t worker, daemon;
	uintptr_t addr;
	int go, back, rc, fd;

	if (!worker_can_page("daemon_refault_distances"))
		return;
	map_ring(&ring, &fd);
	dropped = ring.hdr->swap_dropped;
	daemon_setup("prometheus_dir = " PROM_DIR "\nprometheus_interval = 1s\n");
	expect(!mkdir(PROM_DIR, 0755), "mkdir %s: %s", PROM_DIR, strerror(errno));
	daemon = start_ready_daemon();
	worker = spawn_worker_limited(limit, &go, &back);
	snprintf(arg, sizeof(arg), "%d", (int)worker);
	snprintf(label, sizeof(label), "tree:%d", (int)worker);
	{
		char *argv[] = { "./pfprofctl", "--config", CONF, "add", "--pages", "--tree", arg,
				 NULL };

		rc = run_program_err(argv, NULL, DAEMON_DIR "/ctl.stderr");
	}
	expect(rc == 0, "pfprofctl add --pages --tree %s: exit %d", arg, rc);
	expect(read(back, &addr, sizeof(addr)) == sizeof(addr) && write(go, "g", 1) == 1,
	       "the worker did not start");
	for (uint64_t deadline = now_ns() + scaled_ms(120000) * 1000000ULL;
	     __atomic_load_n(loops_done, __ATOMIC_ACQUIRE) < SETTLING_LOOPS + MEASURED_LOOPS;) {
		expect(now_ns() < deadline, "the worker did %" PRIu64 " of %d loops",
		       __atomic_load_n(loops_done, __ATOMIC_ACQUIRE),
		       SETTLING_LOOPS + MEASURED_LOOPS);
		sleep_ms(100);
	}
	kill_and_reap(worker);
	d = settled_distances(label);
	dropped = ring.hdr->swap_dropped - dropped;
	lost = pages_log_lost();
	extra90 = memory_extra90(arg, false);
	machine_extra90 = memory_extra90(arg, true);
	p90 = distances_quantile(&d, 0.9);
	printf("  daemon_refault_distances: %.0f pages read back, %.0f with a distance; 90 %% "
	       "would have stayed in with %.2f MiB more (pfprofd), %.2f MiB (pfprofctl memory), "
	       "%.1f MiB (histogram_quantile); on the machine's clock %.2f MiB (pfprofd), %.2f "
	       "MiB (pfprofctl memory --machine); the worker lacks %d MiB; the module dropped %"
	       PRIu64 " swap events, pfprofd lost %" PRIu64 " records\n", d.read, d.count,
	       d.short90 / (1 << 20), extra90 / (1 << 20), p90 / (1 << 20),
	       d.machine_short90 / (1 << 20), machine_extra90 / (1 << 20),
	       WORKING_SET_MIB - LIMIT_MIB, dropped, lost);
	expect(d.short90 >= extra90 && d.short90 <= extra90 + extra90 / 32 + page,
	       "pfprofd's 90 %% figure %.2f MiB against pfprofctl memory's %.2f MiB",
	       d.short90 / (1 << 20), extra90 / (1 << 20));
	expect(d.machine_short90 >= machine_extra90 &&
	       d.machine_short90 <= machine_extra90 + machine_extra90 / 32 + page,
	       "pfprofd's 90 %% figure on the machine's clock %.2f MiB against pfprofctl memory "
	       "--machine's %.2f MiB", d.machine_short90 / (1 << 20), machine_extra90 / (1 << 20));
	expect(within_pct((double)limit + d.short90, (double)((uint64_t)WORKING_SET_MIB << 20), 10),
	       "memory.max %d MiB and pfprofd's 90 %% figure %.1f MiB against a working set of %d "
	       "MiB", LIMIT_MIB, d.short90 / (1 << 20), WORKING_SET_MIB);
	expect(d.read > 0 && d.count <= d.read &&
	       d.read - d.count <= d.read / 100 + (double)(dropped + lost),
	       "%.0f of %.0f pages read back in the histogram; %" PRIu64 " swap events dropped, %"
	       PRIu64 " records lost", d.count, d.read, dropped, lost);
	expect(fabs(p90 - extra90) <= bucket_width(&d, extra90), "the histogram's 90 %% %.1f MiB "
	       "against pfprofctl memory's %.1f MiB, over the bucket's width", p90 / (1 << 20),
	       extra90 / (1 << 20));
	stop_daemon(daemon);
	close(go);
	close(back);
	close(fd);
	munmap(loops_done, sizeof(*loops_done));
	expect(!rmdir(REFAULTS_CGROUP), "rmdir %s: %s", REFAULTS_CGROUP, strerror(errno));
}

#define MEMORY_LOG LOG_DIR "/" LOGFORMAT_MEMORY_FILE
/* REFAULTS_CGROUP where pfprofctl takes cgroups, as systemd mounts cgroup2: the same hierarchy. */
#define TARGET_CGROUP_PATH "/sys/fs/cgroup/pfprof-refaults"

/* The memory log's lines of one target. */
struct memory_lines {
	struct log_memory line[512];
	size_t count;
	bool full;		/* more lines than line[] holds: the first ones kept */
};

static void read_memory_lines(uint32_t target, struct memory_lines *out)
{
	FILE *f = fopen(MEMORY_LOG, "re");
	char *line = NULL;
	size_t size = 0;
	ssize_t len;

	out->count = 0;
	out->full = false;
	if (!f)
		return;
	while ((len = getline(&line, &size, f)) > 0) {
		struct log_memory lm;

		line[len - 1] = '\0';
		if (line[0] == '#' || !logformat_parse_memory(line, &lm) || lm.target != target)
			continue;
		if (out->count == sizeof(out->line) / sizeof(out->line[0]))
			out->full = true;
		else
			out->line[out->count++] = lm;
	}
	free(line);
	fclose(f);
}

/* Whether two readings of a cgroup with no task left agree in what can still change. */
static bool same_reading(const struct cgroup_memory *a, const struct cgroup_memory *b)
{
	return a->known == b->known && !memcmp(a->value, b->value, sizeof(a->value));
}

/* The target's lines once the last two agree (nothing runs in its cgroup any more). */
static void settled_memory_lines(uint32_t target, struct memory_lines *lines)
{
	uint64_t deadline = now_ns() + scaled_ms(20000) * 1000000ULL;

	for (;;) {
		read_memory_lines(target, lines);
		if (lines->count >= 2 && same_reading(&lines->line[lines->count - 1].m,
						       &lines->line[lines->count - 2].m))
			return;
		expect(now_ns() < deadline, "the memory log's lines of %s still change after 20 s "
		       "(%zu lines)", REFAULTS_CGROUP, lines->count);
		sleep_ms(1000);
	}
}

/* The memory log's figures of field f against the cgroup's own, read just after. */
static void expect_logged(const struct cgroup_memory *logged, const struct cgroup_memory *now,
			  enum cgroup_memory_field f, const char *what)
{
	expect(cgroup_memory_has(logged, f) && cgroup_memory_has(now, f) &&
	       logged->value[f] == now->value[f], "%s: %" PRIu64 " in the memory log, %" PRIu64
	       " in the cgroup's files (known %#x and %#x)", what, logged->value[f],
	       now->value[f], logged->known, now->known);
}

/*
 * The metrics file's series of the cgroup say what its last memory log line
 * says, once pfprofd has written it again (it is written every second).
 */
static void expect_metrics_settled(const struct cgroup_memory *logged)
{
	static struct prom_snapshot snap;
	uint64_t deadline = now_ns() + scaled_ms(10000) * 1000000ULL;
	char anon[200], max[200];
	double refaults, limit;

	snprintf(anon, sizeof(anon), "pfprof_target_memory_refaults_total{target=\"cgroup:%s\","
		 "type=\"anon\"} ", TARGET_CGROUP_PATH);
	snprintf(max, sizeof(max), "pfprof_target_memory_max_bytes{target=\"cgroup:%s\"} ",
		 TARGET_CGROUP_PATH);
	for (;;) {
		refaults = prom_snapshot(&snap) ? prom_snapshot_value(&snap, anon) : -1;
		limit = refaults >= 0 ? prom_snapshot_value(&snap, max) : -1;
		if (refaults == (double)logged->value[CGMEM_REFAULT_ANON] &&
		    limit == (double)logged->value[CGMEM_MAX])
			return;
		expect(now_ns() < deadline, "the metrics file says %.0f refaults and memory.max %.0f,"
		       " the memory log %" PRIu64 " and %" PRIu64, refaults, limit,
		       logged->value[CGMEM_REFAULT_ANON], logged->value[CGMEM_MAX]);
		sleep_ms(500);
	}
}

/*
 * pfprofd's memory log of a cgroup added with pages, whose worker pages
 * under memory.max: a line a second at most, and once the worker is gone
 * and its cgroup quiet, the last line is what the cgroup's files say:
 * memory.max, memory.stat's refaults and memory.pressure's totals, to the
 * unit; the worker's paging is in them (refaults and stalls grew). The
 * metrics file says the same. (The thrash timeline drawn from the log is
 * the host tests': the guest has no gnuplot.)
 */
void test_daemon_memory_log(void)
{
	const uint64_t limit = (uint64_t)LIMIT_MIB << 20;
	const uint32_t target = target_number(TARGET_CGROUP, TARGET_CGROUP_PATH, NULL);
	struct memory_lines *lines;
	struct cgroup_memory now;
	const struct log_memory *first, *last;
	pid_t worker, daemon;
	uintptr_t addr;
	int go, back, rc;

	if (!worker_can_page("daemon_memory_log"))
		return;
	lines = calloc(1, sizeof(*lines));
	expect(lines, "calloc: %s", strerror(errno));
	mount_cgroup2("/sys/fs/cgroup");
	daemon_setup("prometheus_dir = " PROM_DIR "\nprometheus_interval = 1s\n");
	expect(!mkdir(PROM_DIR, 0755), "mkdir %s: %s", PROM_DIR, strerror(errno));
	daemon = start_ready_daemon();
	worker = spawn_worker_limited(limit, &go, &back);
	{
		char *argv[] = { "./pfprofctl", "--config", CONF, "add", "--pages", "--cgroup",
				 TARGET_CGROUP_PATH, NULL };

		rc = run_program_err(argv, NULL, DAEMON_DIR "/ctl.stderr");
	}
	if (rc)
		show_file(DAEMON_DIR "/ctl.stderr", "  daemon_memory_log| ");
	expect(rc == 0, "pfprofctl add --pages --cgroup %s: exit %d", TARGET_CGROUP_PATH, rc);
	expect(read(back, &addr, sizeof(addr)) == sizeof(addr) && write(go, "g", 1) == 1,
	       "the worker did not start");
	for (uint64_t deadline = now_ns() + scaled_ms(120000) * 1000000ULL;
	     __atomic_load_n(loops_done, __ATOMIC_ACQUIRE) < SETTLING_LOOPS;) {
		expect(now_ns() < deadline, "the worker did %" PRIu64 " of %d loops",
		       __atomic_load_n(loops_done, __ATOMIC_ACQUIRE), SETTLING_LOOPS);
		sleep_ms(100);
	}
	kill_and_reap(worker);
	settled_memory_lines(target, lines);
	expect_ok(cgroup_memory_read(REFAULTS_CGROUP, &now), "reading " REFAULTS_CGROUP);
	first = &lines->line[0];
	last = &lines->line[lines->count - 1];
	printf("  daemon_memory_log: %zu lines over %.1f s; last: memory.current %" PRIu64
	       " (now %" PRIu64 "), refaults anon %" PRIu64 " file %" PRIu64 ", pressure some %"
	       PRIu64 " full %" PRIu64 " us\n", lines->count,
	       (double)(last->wall_ns - first->wall_ns) / 1e9, last->m.value[CGMEM_CURRENT],
	       now.value[CGMEM_CURRENT], last->m.value[CGMEM_REFAULT_ANON],
	       last->m.value[CGMEM_REFAULT_FILE], last->m.value[CGMEM_SOME_US],
	       last->m.value[CGMEM_FULL_US]);
	for (size_t i = 1; i < lines->count; i++)
		expect(lines->line[i].wall_ns - lines->line[i - 1].wall_ns >= 990000000ULL,
		       "lines %zu and %zu of %s %.3f s apart", i - 1, i, REFAULTS_CGROUP,
		       (double)(lines->line[i].wall_ns - lines->line[i - 1].wall_ns) / 1e9);
	expect(last->m.value[CGMEM_MAX] == limit, "memory.max %" PRIu64 " in the log, set to %"
	       PRIu64, last->m.value[CGMEM_MAX], limit);
	expect_logged(&last->m, &now, CGMEM_MAX, "memory.max");
	expect_logged(&last->m, &now, CGMEM_REFAULT_ANON, "workingset_refault_anon");
	expect_logged(&last->m, &now, CGMEM_REFAULT_FILE, "workingset_refault_file");
	expect_logged(&last->m, &now, CGMEM_SOME_US, "memory.pressure some total");
	expect_logged(&last->m, &now, CGMEM_FULL_US, "memory.pressure full total");
	expect(last->m.value[CGMEM_REFAULT_ANON] > first->m.value[CGMEM_REFAULT_ANON] &&
	       last->m.value[CGMEM_SOME_US] > first->m.value[CGMEM_SOME_US],
	       "the worker's paging is not in the log: refaults %" PRIu64 " to %" PRIu64
	       ", some-pressure %" PRIu64 " to %" PRIu64 " us", first->m.value[CGMEM_REFAULT_ANON],
	       last->m.value[CGMEM_REFAULT_ANON], first->m.value[CGMEM_SOME_US],
	       last->m.value[CGMEM_SOME_US]);
	expect_metrics_settled(&last->m);
	stop_daemon(daemon);
	close(go);
	close(back);
	munmap(loops_done, sizeof(*loops_done));
	free(lines);
	expect(!rmdir(REFAULTS_CGROUP), "rmdir %s: %s", REFAULTS_CGROUP, strerror(errno));
	umount("/sys/fs/cgroup");
}
