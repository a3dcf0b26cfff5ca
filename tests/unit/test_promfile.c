// SPDX-License-Identifier: GPL-2.0
/* daemon/promfile: the metrics file node_exporter serves. */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "expect_counters.h"
#include "promfile.h"

static const struct psi_memory pressure = { .some_avg10 = 12.5, .full_avg10 = 2.25 };

#define UNIT_WEB 0x40000005U
#define CGROUP_DB 0x40000006U

/*
 * The targets file's targets: a unit not running (no cgroup) and a cgroup in
 * the test's directory (make_cgroup()); a number it does not hold is
 * labelled by number.
 */
static struct target listed[] = {
	{ .kind = TARGET_UNIT, .name = "web\".service", .number = UNIT_WEB },
	{ .kind = TARGET_CGROUP, .name = "db", .number = CGROUP_DB },
};
static const struct target_list targets = { listed, 2 };

/* The cgroup target's directory, with its PSI. */
static void make_cgroup(void)
{
	expect(!mkdir("db", 0755), "mkdir: %s", strerror(errno));
	unit_write_file("db/memory.pressure",
			"some avg10=1.50 avg60=0.40 avg300=0.10 total=1234567\n"
			"full avg10=0.75 avg60=0.20 avg300=0.05 total=65\n");
}

/*
 * Three processes, one of no target, two of the unit (one gone before the
 * series were chosen), one of a tree; one sample of each kind of counter,
 * sampler cost of load 0xab; waits measured for the unit's live process,
 * not for the tree's; the unit's faults timed, the tree's not.
 */
/* A user past its budgets in the ring and in the logs, and the owners past those told apart. */
static void fill_owner_losses(struct counters *m)
{
	struct mp3_proc_record user = { .type = MP3_RECORD_COUNTS, .owner = 1000 };
	struct mp3_proc_record dropped = { .type = MP3_RECORD_DROPPED, .owner = MP3_OWNER_OTHERS };

	ownerbudget_init(&m->owners, 1);
	ownerbudget_take_line(&m->owners, &user, 1);
	ownerbudget_take_line(&m->owners, &user, 1);
	dropped.dropped.records = 9;
	ownerbudget_add_dropped(&m->owners, &dropped);
}

/* The unit's process sends 601 pages to swap and reads the first back: 600 pages away. */
static void fill_refault(struct counters *m)
{
	struct log_page pg = { .pid = 43, .target = UNIT_WEB, .event = MP3_SWAP_OUT,
			       .device = 1, .pages = 1, .comm = "work",
			       .wall_ns = (uint64_t)time(NULL) * 1000000000ULL };

	/* The machine writes two pages to swap for each of the unit's. */
	for (pg.offset = 100; pg.offset <= 700; pg.offset++) {
		pg.sys_pswpout = 2 * pg.offset;
		expect(!counters_add_page(m, &pg), "counters_add_page failed");
	}
	pg.offset = 100;
	pg.event = MP3_SWAP_IN | MP3_SWAP_READ;
	expect(!counters_add_page(m, &pg), "counters_add_page failed");
}

/* The unit's cgroup as groupmemory.c read it: a limit, no swap accounting, PSI. */
static void fill_memory(struct counters *m)
{
	struct target_total *t = counters_target(m, UNIT_WEB);

	expect(t, "counters_target failed");
	t->memory = (struct cgroup_memory){
		.value = { [CGMEM_CURRENT] = 33554432, [CGMEM_MAX] = 33554432,
			   [CGMEM_HIGH] = CGROUP_MEMORY_NO_LIMIT, [CGMEM_SOME_US] = 2500001,
			   [CGMEM_FULL_US] = 7, [CGMEM_REFAULT_ANON] = 600,
			   [CGMEM_REFAULT_FILE] = 42 },
		.known = (1U << CGMEM_FIELDS) - 1 - (1U << CGMEM_SWAP),
	};
	t->memory_read = true;
}

static void fill(struct counters *m)
{
	struct mp3_ring_sample s = { .minor_faults = 70, .major_faults = 3, .cpu_ns = 2500000001ULL,
				     .pgmajfault = 1234, .pswpin = 56, .pswpout = 78 };
	static const uint32_t us[STALL_KINDS] = { 1, 2000000, 3, 40, 1500000 };
	pid_t pids[] = { 42, 43, 50 };
	struct pidlist registered = { .pids = pids, .count = 3 };

	add_process(m, 42, "a\"b\\c\xc3", 7, 1, 1500000000ULL);
	add_target_process(m, 43, "work", UNIT_WEB, 63, 2, 1000000001ULL);
	add_target_process(m, 44, "gone", UNIT_WEB, 5, 1, 1);
	add_target_process(m, 50, "make", 77, 1, 0, 0);
	add_faults(m, 43, MP3_MAPPING_STACK, 9, 1);
	add_faults(m, 43, MP3_MAPPING_ANON, 0, 1);
	add_faults(m, 43, MP3_MAPPING_FILE, 0, 4);
	add_faults(m, 43, MP3_MAPPING_UNRESOLVED, 0, 1);
	add_stalls(m, 50, us);
	m->stalls_known = true;
	add_stalls(m, 43, us);
	counters_add_sample(m, &s, true);
	m->samples_written = 1;
	counters_add_lost(m, 4);
	counters_set_sampler(m, 0xab, 3000000, 60);
	counters_set_unfollowed(m, 0xab, 2, 1);
	add_latency(m, 43, LATENCY_MINOR, 0, 3, 900);
	add_latency(m, 43, LATENCY_MINOR, 2, 2, 3000);
	add_latency(m, 43, LATENCY_MAJOR, MP3_LATENCY_BUCKETS - 1, 1, 3000000001ULL);
	counters_set_latency_missed(m, 0xab, 6);
	add_swap_record(m, 43, UNIT_WEB, MP3_SWAP_OUT, 3, 0);
	add_swap_record(m, 43, UNIT_WEB, MP3_SWAP_IN | MP3_SWAP_READ, 2, 1500000);
	add_swap_record(m, 43, UNIT_WEB, MP3_SWAP_IN, 1, 2000);
	add_refault_record(m, 43, UNIT_WEB, 4);
	add_refault_record(m, 43, UNIT_WEB, 1);
	m->file_refaults_known = true;
	fill_refault(m);
	fill_memory(m);
	fill_owner_losses(m);
	expect(!counters_select_series(m, &registered, 100), "counters_select_series failed");
}

static char *rendered(struct counters *m, const struct psi_memory *psi)
{
	char *text = NULL;
	size_t size = 0;
	FILE *out = open_memstream(&text, &size);

	expect(out && !promfile_render(out, m, &targets, psi), "promfile_render failed");
	fclose(out);
	return text;
}

static void expect_line(const char *text, const char *line)
{
	const char *p = strstr(text, line);

	expect(p && (p == text || p[-1] == '\n') && p[strlen(line)] == '\n',
	       "no line \"%s\" in:\n%s", line, text);
}

/* The unit's gauge metric, for each share: bytes. */
static void expect_shorts(const char *text, const char *metric, long bytes)
{
	char line[256];

	snprintf(line, sizeof(line), "# TYPE %s gauge", metric);
	expect_line(text, line);
	for (int q = 0; q < 3; q++) {
		snprintf(line, sizeof(line), "%s{target=\"unit:web\\\".service\",share=\"%s\"} %ld",
			 metric, (const char *[]){ "0.5", "0.9", "0.99" }[q], bytes);
		expect_line(text, line);
	}
}

/*
 * fill_refault()'s page, 600 pages away on its unit's clock (under 3 MiB of
 * 4 KiB pages, over 2), 1200 on the machine's.
 */
static void expect_refault_distances(const char *text)
{
	const long page = sysconf(_SC_PAGESIZE);
	char line[256];

	expect(page == 4096, "a page of %ld bytes: the buckets below are for 4 KiB", page);
	expect_line(text, "# TYPE pfprof_target_swap_refault_distance_bytes histogram");
	expect_line(text, "pfprof_target_swap_refault_distance_bytes_bucket{"
		    "target=\"unit:web\\\".service\",le=\"1048576\"} 0");
	expect_line(text, "pfprof_target_swap_refault_distance_bytes_bucket{"
		    "target=\"unit:web\\\".service\",le=\"2097152\"} 0");
	expect_line(text, "pfprof_target_swap_refault_distance_bytes_bucket{"
		    "target=\"unit:web\\\".service\",le=\"3145728\"} 1");
	expect_line(text, "pfprof_target_swap_refault_distance_bytes_bucket{"
		    "target=\"unit:web\\\".service\",le=\"68719476736\"} 1");
	expect_line(text, "pfprof_target_swap_refault_distance_bytes_bucket{"
		    "target=\"unit:web\\\".service\",le=\"+Inf\"} 1");
	snprintf(line, sizeof(line), "pfprof_target_swap_refault_distance_bytes_sum{"
		 "target=\"unit:web\\\".service\"} %ld", 600 * page);
	expect_line(text, line);
	expect_line(text, "pfprof_target_swap_refault_distance_bytes_count{"
		    "target=\"unit:web\\\".service\"} 1");
	expect(!strstr(text, "pfprof_target_swap_refault_distance_bytes_count{target=\"tree:77\"}"),
	       "refault distances of a target that never paged:\n%s", text);
	/* 600 pages: in the 32nd of an octave that ends at 607 pages. */
	expect_shorts(text, "pfprof_target_swap_memory_short_bytes", 607 * page);
	expect(!strstr(text, "pfprof_target_swap_memory_short_bytes{target=\"tree:77\""),
	       "the memory short of a target that never paged:\n%s", text);
	/* The machine's clock: 1200 pages away, in the 32nd of an octave that ends at 1215. */
	expect_shorts(text, "pfprof_target_swap_machine_short_bytes", 1215 * page);
}

/* fill_memory()'s reading: each field known, no swap line; refaults and pressure by label. */
static void expect_memory(const char *text)
{
	expect_line(text, "# TYPE pfprof_target_memory_bytes gauge");
	expect_line(text, "pfprof_target_memory_bytes{target=\"unit:web\\\".service\"} 33554432");
	expect_line(text, "pfprof_target_memory_max_bytes{target=\"unit:web\\\".service\"} 33554432");
	expect(!strstr(text, "pfprof_target_memory_swap_bytes"), "swap not read, yet told:\n%s", text);
	expect_line(text, "# TYPE pfprof_target_memory_refaults_total counter");
	expect_line(text, "pfprof_target_memory_refaults_total{target=\"unit:web\\\".service\","
		    "type=\"anon\"} 600");
	expect_line(text, "pfprof_target_memory_refaults_total{target=\"unit:web\\\".service\","
		    "type=\"file\"} 42");
	expect_line(text, "pfprof_target_memory_pressure_seconds_total{"
		    "target=\"unit:web\\\".service\",stalled=\"some\"} 2.500001");
	expect_line(text, "pfprof_target_memory_pressure_seconds_total{"
		    "target=\"unit:web\\\".service\",stalled=\"full\"} 0.000007");
	expect(!strstr(text, "pfprof_target_memory_bytes{target=\"tree:77\"}"),
	       "the memory of a target without a reading:\n%s", text);
}

static void test_render(void)
{
	struct counters m = { 0 };
	char *text;

	fill(&m);
	make_cgroup();
	text = rendered(&m, &pressure);
	expect_line(text, "# TYPE pfprof_process_minor_faults_total counter");
	/* Quote and backslash escaped, the cut UTF-8 byte replaced; no target: "". */
	expect_line(text, "pfprof_process_minor_faults_total{pid=\"42\",comm=\"a\\\"b\\\\c?\","
		    "target=\"\"} 7");
	expect_line(text, "pfprof_process_cpu_seconds_total{pid=\"42\",comm=\"a\\\"b\\\\c?\","
		    "target=\"\"} 1.500000000");
	expect_line(text, "pfprof_process_major_faults_total{pid=\"43\",comm=\"work\","
		    "target=\"unit:web\\\".service\"} 2");
	expect_line(text, "pfprof_process_minor_faults_total{pid=\"50\",comm=\"make\","
		    "target=\"tree:77\"} 1");
	expect(!strstr(text, "pid=\"44\""), "a process gone has a series:\n%s", text);
	/* By mapping: only the process registered with maps, three series, none unplaced. */
	expect_line(text, "# TYPE pfprof_process_major_faults_by_mapping_total counter");
	expect_line(text, "pfprof_process_major_faults_by_mapping_total{pid=\"43\",comm=\"work\","
		    "target=\"unit:web\\\".service\",mapping=\"anon\"} 2");
	expect_line(text, "pfprof_process_major_faults_by_mapping_total{pid=\"43\",comm=\"work\","
		    "target=\"unit:web\\\".service\",mapping=\"file\"} 4");
	expect_line(text, "pfprof_process_major_faults_by_mapping_total{pid=\"43\",comm=\"work\","
		    "target=\"unit:web\\\".service\",mapping=\"shmem\"} 0");
	expect(!strstr(text, "by_mapping_total{pid=\"42\""),
	       "a process without maps has series by mapping:\n%s", text);
	/* Each target's processes summed, the one gone too; the live ones counted. */
	expect_line(text, "# TYPE pfprof_target_minor_faults_total counter");
	expect_line(text, "pfprof_target_minor_faults_total{target=\"unit:web\\\".service\"} 68");
	expect_line(text, "pfprof_target_major_faults_total{target=\"unit:web\\\".service\"} 3");
	expect_line(text, "pfprof_target_cpu_seconds_total{target=\"unit:web\\\".service\"} "
		    "1.000000002");
	expect_line(text, "pfprof_target_minor_faults_total{target=\"tree:77\"} 1");
	/* The unit paged; the tree was not added with pages: no series of it, not a zero. */
	expect_line(text, "pfprof_target_swap_out_pages_total{target=\"unit:web\\\".service\"} 3");
	expect_line(text, "pfprof_target_swap_in_pages_total{target=\"unit:web\\\".service\"} 2");
	expect_line(text, "pfprof_target_swap_in_cached_pages_total{target=\"unit:web\\\".service\"} 1");
	expect_line(text, "pfprof_target_swap_in_stall_seconds_total{target=\"unit:web\\\".service\"} "
		    "0.001502000");
	expect(!strstr(text, "pfprof_target_swap_out_pages_total{target=\"tree:77\"}"),
	       "a swap series of a target that never paged:\n%s", text);
	expect_line(text, "# TYPE pfprof_target_file_refault_pages_total counter");
	expect_line(text, "pfprof_target_file_refault_pages_total{target=\"unit:web\\\".service\"} 5");
	expect(!strstr(text, "pfprof_target_file_refault_pages_total{target=\"tree:77\"}"),
	       "file refaults of a target that never paged:\n%s", text);
	expect_refault_distances(text);
	expect_memory(text);
	expect_line(text, "# TYPE pfprof_target_processes gauge");
	expect_line(text, "pfprof_target_processes{target=\"unit:web\\\".service\"} 1");
	expect_line(text, "pfprof_target_processes{target=\"tree:77\"} 1");
	expect(!strstr(text, "{target=\"\"}"), "a total of no target:\n%s", text);
	expect_line(text, "pfprof_minor_faults_total 70");
	expect_line(text, "pfprof_cpu_seconds_total 2.500000001");
	/* The waits in seconds, memory by kind, block I/O apart; only where measured. */
	expect_line(text, "# TYPE pfprof_process_memory_stall_seconds_total counter");
	expect_line(text, "pfprof_process_memory_stall_seconds_total{pid=\"43\",comm=\"work\","
		    "target=\"unit:web\\\".service\",kind=\"swapin\"} 0.000001");
	expect_line(text, "pfprof_process_memory_stall_seconds_total{pid=\"43\",comm=\"work\","
		    "target=\"unit:web\\\".service\",kind=\"thrashing\"} 2.000000");
	expect_line(text, "pfprof_process_memory_stall_seconds_total{pid=\"43\",comm=\"work\","
		    "target=\"unit:web\\\".service\",kind=\"compact\"} 0.000040");
	expect(!strstr(text, "kind=\"blkio\""), "block I/O as a kind of memory stall:\n%s", text);
	expect_line(text, "pfprof_process_block_io_wait_seconds_total{pid=\"43\",comm=\"work\","
		    "target=\"unit:web\\\".service\"} 1.500000");
	expect(!strstr(text, "stall_seconds_total{pid=\"50\"") &&
	       !strstr(text, "wait_seconds_total{pid=\"50\"") &&
	       !strstr(text, "stall_seconds_total{pid=\"42\""),
	       "waits not measured exported:\n%s", text);
	expect_line(text, "pfprof_target_memory_stall_seconds_total{target=\"unit:web\\\".service\","
		    "kind=\"reclaim\"} 0.000003");
	expect_line(text, "pfprof_target_block_io_wait_seconds_total{target=\"unit:web\\\".service\"}"
		    " 1.500000");
	expect(!strstr(text, "stall_seconds_total{target=\"tree:77\""),
	       "a target's waits not measured exported:\n%s", text);
	expect_line(text, "pfprof_delay_accounting_enabled 1");
	/* The cgroup's PSI as the kernel counts it; none for the unit without a cgroup. */
	expect_line(text, "# TYPE pfprof_target_pressure_memory_waiting_seconds_total counter");
	expect_line(text, "pfprof_target_pressure_memory_waiting_seconds_total{target=\"cgroup:db\"}"
		    " 1.234567");
	expect_line(text, "pfprof_target_pressure_memory_stalled_seconds_total{target=\"cgroup:db\"}"
		    " 0.000065");
	expect(!strstr(text, "memory_waiting_seconds_total{target=\"unit:"),
	       "pressure of a unit without a cgroup:\n%s", text);
	expect_line(text, "pfprof_samples_written_total 1");
	expect_line(text, "pfprof_samples_lost_total 4");
	expect_line(text, "pfprof_registered_processes 3");
	expect_line(text, "pfprof_sampler_seconds_total 0.003000000");
	expect_line(text, "pfprof_sampler_runs_total 60");
	expect_line(text, "pfprof_followed_processes_skipped_total 2");
	expect_line(text, "pfprof_followed_processes_missed_total 1");
	expect_line(text, "pfprof_fault_latency_missed_total 6");
	/* Per user what it lost; no series for a user that lost nothing in that place. */
	expect_line(text, "pfprof_user_log_lines_dropped_total{owner=\"1000\"} 1");
	expect_line(text, "pfprof_user_records_dropped_total{owner=\"others\"} 9");
	expect(!strstr(text, "pfprof_user_records_dropped_total{owner=\"1000\"}"),
	       "a user that lost no record has a series:\n%s", text);
	/* The unit's histograms: cumulative, bounds in seconds, both kinds; none for the tree. */
	expect_line(text, "# TYPE pfprof_target_fault_duration_seconds histogram");
	expect_line(text, "pfprof_target_fault_duration_seconds_bucket{target=\"unit:web\\\".service\","
		    "kind=\"minor\",le=\"0.000000512\"} 3");
	expect_line(text, "pfprof_target_fault_duration_seconds_bucket{target=\"unit:web\\\".service\","
		    "kind=\"minor\",le=\"0.000001024\"} 3");
	expect_line(text, "pfprof_target_fault_duration_seconds_bucket{target=\"unit:web\\\".service\","
		    "kind=\"minor\",le=\"0.000002048\"} 5");
	expect_line(text, "pfprof_target_fault_duration_seconds_bucket{target=\"unit:web\\\".service\","
		    "kind=\"minor\",le=\"+Inf\"} 5");
	expect_line(text, "pfprof_target_fault_duration_seconds_sum{target=\"unit:web\\\".service\","
		    "kind=\"minor\"} 0.000003900");
	expect_line(text, "pfprof_target_fault_duration_seconds_count{target=\"unit:web\\\".service\","
		    "kind=\"minor\"} 5");
	expect_line(text, "pfprof_target_fault_duration_seconds_bucket{target=\"unit:web\\\".service\","
		    "kind=\"major\",le=\"2.147483648\"} 0");
	expect_line(text, "pfprof_target_fault_duration_seconds_bucket{target=\"unit:web\\\".service\","
		    "kind=\"major\",le=\"+Inf\"} 1");
	expect_line(text, "pfprof_target_fault_duration_seconds_sum{target=\"unit:web\\\".service\","
		    "kind=\"major\"} 3.000000001");
	expect(!strstr(text, "duration_seconds_count{target=\"tree:77\""),
	       "a target whose faults are not timed has a histogram:\n%s", text);
	expect_line(text, "pfprof_swap_in_pages_total 56");
	expect_line(text, "pfprof_memory_pressure_some_ratio 0.1250");
	expect_line(text, "# TYPE pfprof_memory_pressure_full_ratio gauge");
	free(text);
	counters_free(&m);
}

/* Without PSI and with a version 1 module, those lines are left out, not made up. */
/* A module that does not say which pages of files were read again: no series, not a zero. */
static void test_render_file_refaults_unknown(void)
{
	struct counters m = { 0 };
	char *text;

	fill(&m);
	make_cgroup();
	m.file_refaults_known = false;
	text = rendered(&m, &pressure);
	expect(strstr(text, "pfprof_target_swap_out_pages_total") &&
	       !strstr(text, "pfprof_target_file_refault_pages_total"),
	       "file refaults of a module that does not measure them rendered:\n%s", text);
	free(text);
	counters_free(&m);
}

static void test_render_leaves_out_unknown(void)
{
	struct counters m = { 0 };
	char *text = rendered(&m, NULL);

	expect(!strstr(text, "pfprof_swap_in_pages_total") && !strstr(text, "pressure"),
	       "unknown context rendered:\n%s", text);
	/* No wait measured: no series, not series of 0; the gauge tells why. */
	expect(!strstr(text, "_stall_seconds_total") && !strstr(text, "_wait_seconds_total"),
	       "waits not measured rendered:\n%s", text);
	expect_line(text, "pfprof_delay_accounting_enabled 0");
	expect_line(text, "pfprof_minor_faults_total 0");
	free(text);
}

static size_t files_in(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	size_t n = 0;

	expect(d, "opendir %s: %s", dir, strerror(errno));
	while ((de = readdir(d)))
		if (strcmp(de->d_name, ".") && strcmp(de->d_name, ".."))
			n++;
	closedir(d);
	return n;
}

static void test_write(void)
{
	struct counters m = { 0 };
	char *text, *written;
	struct stat st;
	int err;

	fill(&m);
	umask(077);
	err = promfile_write(unit_dir(), &m, &targets, &pressure);
	expect(!err, "promfile_write: %s", strerror(-err));
	/* Unlike the logs, readable by all: node_exporter serves it anyway (README). */
	expect(!stat(PROMFILE_NAME, &st) && (st.st_mode & 07777) == 0644,
	       "mode %o, want 644 for node_exporter", st.st_mode & 07777);
	expect(files_in(unit_dir()) == 1, "a temporary file was left");
	text = rendered(&m, &pressure);
	written = unit_read_file(PROMFILE_NAME);
	expect(!strcmp(text, written), "the file is not what was rendered");
	free(text);
	free(written);
	err = promfile_write("missing", &m, &targets, &pressure);
	expect(err == -ENOENT, "a missing directory gave %d, want -ENOENT", err);
	counters_free(&m);
}

/* promtool's exit status and output for args; fails the test if it cannot be run. */
static int promtool(const char *args, char *output, size_t size)
{
	const char *promtool = getenv("PROMTOOL");
	char command[4096];
	size_t len;
	FILE *p;

	expect(promtool && *promtool, "PROMTOOL is not set (tests/lib/promtool.sh prints one)");
	snprintf(command, sizeof(command), "'%s' %s 2>&1", promtool, args);
	p = popen(command, "r");
	expect(p, "popen: %s", strerror(errno));
	len = fread(output, 1, size - 1, p);
	output[len] = '\0';
	return WEXITSTATUS(pclose(p));
}

static int promtool_check(const char *path, char *output, size_t size)
{
	char args[PATH_MAX + 32];

	snprintf(args, sizeof(args), "check metrics < '%s'", path);
	return promtool(args, output, size);
}

/* Prometheus' own linter: the format and the naming conventions (units, _total). */
static void test_promtool_accepts(void)
{
	struct counters m = { 0 };
	char output[4096];
	int status;

	fill(&m);
	make_cgroup();
	expect(!promfile_write(".", &m, &targets, &pressure), "promfile_write failed");
	status = promtool_check(PROMFILE_NAME, output, sizeof(output));
	expect(status == 0 && !output[0], "promtool check metrics: status %d:\n%s", status, output);
	counters_free(&m);
}

/* The same check finds a counter named against the conventions: it can fail. */
static void test_promtool_rejects(void)
{
	char output[4096];
	int status;

	unit_write_file("bad.prom", "# HELP pfprof_faults Faults.\n# TYPE pfprof_faults counter\n"
			"pfprof_faults 3\n");
	status = promtool_check("bad.prom", output, sizeof(output));
	expect(status != 0 && strstr(output, "_total"), "promtool accepted a bad counter name: %d %s",
	       status, output);
}

/* The rules pfprofd's package ships: valid, and their own tests pass. */
static void test_rules_pass_their_tests(void)
{
	char output[8192];
	int status;

	status = promtool("check rules '" SHIPPED_RULES_DIR "/pfprof-rules.yml'", output,
			  sizeof(output));
	expect(status == 0, "promtool check rules: status %d:\n%s", status, output);
	/* promtool test rules finds rule_files beside the test file. */
	status = promtool("test rules '" SHIPPED_RULES_DIR "/pfprof-rules.test.yml'", output,
			  sizeof(output));
	expect(status == 0, "promtool test rules: status %d:\n%s", status, output);
}

/* Whether text has a "# TYPE" line for name (len bytes), or for the histogram it is of. */
static bool has_type(const char *text, const char *name, size_t len)
{
	static const char *const suffixes[] = { "_bucket", "_sum", "_count" };
	char want[128];

	snprintf(want, sizeof(want), "# TYPE %.*s ", (int)len, name);
	if (strstr(text, want))
		return true;
	for (size_t i = 0; i < sizeof(suffixes) / sizeof(suffixes[0]); i++) {
		size_t cut = strlen(suffixes[i]);

		snprintf(want, sizeof(want), "# TYPE %.*s histogram", (int)(len - cut), name);
		if (len > cut && !strncmp(name + len - cut, suffixes[i], cut) && strstr(text, want))
			return true;
	}
	return false;
}

/*
 * Counts the metric names in path (pfprof_ and word characters, not a
 * recording rule's "pfprof_x:y") and fails on one that text has no
 * "# TYPE" line for.
 */
static int expect_exported(const char *path, const char *text)
{
	char *file = unit_read_file(path);
	int names = 0;

	for (const char *p = strstr(file, "pfprof_"); p; p = strstr(p, "pfprof_")) {
		size_t len = strspn(p, "abcdefghijklmnopqrstuvwxyz0123456789_");

		if (len < 100 && p[len] != ':') {
			expect(has_type(text, p, len), "%s: %.*s is not a metric pfprofd writes", path,
			       (int)len, p);
			names++;
		}
		p += len;
	}
	free(file);
	return names;
}

/* The rules, their tests and the dashboard name only series pfprofd writes. */
static void test_shipped_queries_use_exported_series(void)
{
	static const char *const files[] = {
		SHIPPED_RULES_DIR "/pfprof-rules.yml", SHIPPED_RULES_DIR "/pfprof-rules.test.yml",
		SHIPPED_RULES_DIR "/pfprof-dashboard.json",
	};
	struct counters m = { 0 };
	char *text;

	fill(&m);
	make_cgroup();
	text = rendered(&m, &pressure);
	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++)
		expect(expect_exported(files[i], text) >= 5, "%s names fewer than 5 metrics",
		       files[i]);
	free(text);
	counters_free(&m);
}

UNIT_TESTS(UNIT_TEST(render), UNIT_TEST(render_file_refaults_unknown),
	   UNIT_TEST(render_leaves_out_unknown), UNIT_TEST(write),
	   UNIT_TEST(promtool_accepts), UNIT_TEST(promtool_rejects),
	   UNIT_TEST(rules_pass_their_tests), UNIT_TEST(shipped_queries_use_exported_series));
