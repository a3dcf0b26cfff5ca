// SPDX-License-Identifier: GPL-2.0
/* pfprofd/promfile: the metrics file node_exporter serves, and counting on from it after a restart. */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "expect_metrics.h"
#include "promfile.h"

static void add_process(struct metrics *m, pid_t tgid, const char *name, uint64_t minor,
			uint64_t major, uint64_t cpu_ns)
{
	struct mp3_proc_record r = { .tgid = tgid, .type = MP3_RECORD_COMM };

	strncpy(r.comm, name, sizeof(r.comm) - 1);
	expect(!metrics_add_record(m, &r), "metrics_add_record failed");
	r = (struct mp3_proc_record){ .tgid = tgid, .type = MP3_RECORD_COUNTS };
	r.counts.minor_faults = minor;
	r.counts.major_faults = major;
	r.counts.cpu_ns = cpu_ns;
	expect(!metrics_add_record(m, &r), "metrics_add_record failed");
}

/* Two processes, one sample of each kind of counter, sampler cost of load 0xab. */
static void fill(struct metrics *m)
{
	struct mp3_ring_sample s = { .minor_faults = 70, .major_faults = 3, .cpu_ns = 2500000001ULL,
				     .pgmajfault = 1234, .pswpin = 56, .pswpout = 78 };
	pid_t pids[] = { 42, 43 };
	struct pidlist registered = { .pids = pids, .count = 2 };

	add_process(m, 42, "a\"b\\c\xc3", 7, 1, 1500000000ULL);
	add_process(m, 43, "work", 63, 2, 1000000001ULL);
	metrics_add_sample(m, &s, true);
	metrics_add_lost(m, 4);
	metrics_set_sampler(m, 0xab, 3000000, 60);
	metrics_set_psi(m, &(struct psi_memory){ .some_avg10 = 12.5, .full_avg10 = 2.25 });
	expect(!metrics_select(m, &registered, 100), "metrics_select failed");
}

static char *rendered(struct metrics *m)
{
	char *text = NULL;
	size_t size = 0;
	FILE *out = open_memstream(&text, &size);

	expect(out && !promfile_render(out, m), "promfile_render failed");
	fclose(out);
	return text;
}

static void expect_line(const char *text, const char *line)
{
	const char *p = strstr(text, line);

	expect(p && (p == text || p[-1] == '\n') && p[strlen(line)] == '\n',
	       "no line \"%s\" in:\n%s", line, text);
}

static void test_render(void)
{
	struct metrics m = { 0 };
	char *text;

	fill(&m);
	text = rendered(&m);
	expect_line(text, "# TYPE pfprof_process_minor_faults_total counter");
	/* Quote and backslash escaped, the cut UTF-8 byte replaced. */
	expect_line(text, "pfprof_process_minor_faults_total{pid=\"42\",comm=\"a\\\"b\\\\c?\"} 7");
	expect_line(text, "pfprof_process_cpu_seconds_total{pid=\"42\",comm=\"a\\\"b\\\\c?\"} "
		    "1.500000000");
	expect_line(text, "pfprof_process_major_faults_total{pid=\"43\",comm=\"work\"} 2");
	expect_line(text, "pfprof_minor_faults_total 70");
	expect_line(text, "pfprof_cpu_seconds_total 2.500000001");
	expect_line(text, "pfprof_samples_written_total 1");
	expect_line(text, "pfprof_samples_lost_total 4");
	expect_line(text, "pfprof_registered_processes 2");
	expect_line(text, "pfprof_sampler_seconds_total 0.003000000");
	expect_line(text, "pfprof_sampler_runs_total 60");
	expect_line(text, "pfprof_swap_in_pages_total 56");
	expect_line(text, "pfprof_memory_pressure_some_ratio 0.1250");
	expect_line(text, "# TYPE pfprof_memory_pressure_full_ratio gauge");
	free(text);
	metrics_free(&m);
}

/* Without PSI and with a version 1 module, those lines are left out, not made up. */
static void test_render_leaves_out_unknown(void)
{
	struct metrics m = { 0 };
	char *text = rendered(&m);

	expect(!strstr(text, "pfprof_swap_in_pages_total") && !strstr(text, "pressure"),
	       "unknown context rendered:\n%s", text);
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
	struct metrics m = { 0 };
	char *text, *written;
	struct stat st;
	int err;

	fill(&m);
	umask(077);
	err = promfile_write(unit_dir(), &m);
	expect(!err, "promfile_write: %s", strerror(-err));
	expect(!stat(PROMFILE_NAME, &st) && (st.st_mode & 07777) == 0644,
	       "mode %o, want 644 for node_exporter", st.st_mode & 07777);
	expect(files_in(unit_dir()) == 1, "a temporary file was left");
	text = rendered(&m);
	written = unit_read_file(PROMFILE_NAME);
	expect(!strcmp(text, written), "the file is not what was rendered");
	free(text);
	free(written);
	err = promfile_write("missing", &m);
	expect(err == -ENOENT, "a missing directory gave %d, want -ENOENT", err);
	metrics_free(&m);
}

static void expect_same_counts(struct metrics *a, struct metrics *b, pid_t tgid)
{
	struct proc_entry *x = proctable_find(&a->procs, tgid), *y = proctable_find(&b->procs, tgid);

	expect(x->minor == y->minor && x->major == y->major && x->cpu_ns == y->cpu_ns &&
	       !strcmp(x->comm, y->comm), "process %d: %llu %llu %llu %s, seeded %llu %llu %llu %s",
	       (int)tgid, (unsigned long long)x->minor, (unsigned long long)x->major,
	       (unsigned long long)x->cpu_ns, x->comm, (unsigned long long)y->minor,
	       (unsigned long long)y->major, (unsigned long long)y->cpu_ns, y->comm);
}

/* A restart: the next pfprofd counts on from exactly what the last one wrote. */
static void test_seed_round_trip(void)
{
	struct metrics before = { 0 }, after = { 0 };
	int err;

	fill(&before);
	before.omitted = 9;
	expect(!promfile_write(".", &before), "promfile_write failed");
	err = promfile_seed(".", &after);
	expect(!err, "promfile_seed: %s", strerror(-err));
	expect(after.minor == before.minor && after.major == before.major &&
	       after.cpu_ns == before.cpu_ns && after.samples_written == before.samples_written &&
	       after.samples_lost == before.samples_lost && after.omitted == 9,
	       "totals differ after seeding");
	/* pid 42's comm was written with '?' for its last byte: seeded so. */
	strcpy(proctable_find(&before.procs, 42)->comm, "a\"b\\c?");
	expect_same_counts(&before, &after, 42);
	expect_same_counts(&before, &after, 43);
	expect_sampler(&after, 3000000, 60, "seeded");
	metrics_free(&before);
	metrics_free(&after);
}

/* After a restart and then a module reload, the sampler's counters only grow. */
static void test_seed_then_reload(void)
{
	struct metrics before = { 0 }, after = { 0 };

	metrics_set_sampler(&before, 0x1, 500, 5);
	metrics_set_sampler(&before, 0x2, 700, 7);
	expect(!promfile_write(".", &before), "promfile_write failed");
	expect(!promfile_seed(".", &after), "promfile_seed failed");
	/* The same load goes on: only what it added since counts. */
	metrics_set_sampler(&after, 0x2, 1000, 10);
	expect_sampler(&after, 1500, 15, "the same load after a restart");
	/* A new load: all of its counts come on top. */
	metrics_set_sampler(&after, 0x3, 40, 1);
	expect_sampler(&after, 1540, 16, "a new load after a restart");
}

static void test_seed_skips_what_it_does_not_know(void)
{
	struct metrics m = { 0 };

	unit_write_file(PROMFILE_NAME,
			"pfprof_minor_faults_total 18446744073709551616\n"	/* overflows */
			"pfprof_major_faults_total -3\n"
			"pfprof_cpu_seconds_total 1.25\n"
			"pfprof_process_minor_faults_total{pid=\"0\",comm=\"x\"} 5\n"
			"pfprof_process_minor_faults_total{pid=\"7\",comm=\"x\"\n"
			"pfprof_process_major_faults_total{pid=\"8\",comm=\"y\"} 6\n"
			"other_metric 99\n"
			"# pfprofd-state load_id=zz\n");
	expect(!promfile_seed(".", &m), "promfile_seed failed");
	expect(m.minor == 0 && m.major == 0 && m.cpu_ns == 1250000000ULL,
	       "seeded %llu %llu %llu", (unsigned long long)m.minor, (unsigned long long)m.major,
	       (unsigned long long)m.cpu_ns);
	expect(m.procs.used == 1 && proctable_find(&m.procs, 8)->major == 6,
	       "%zu processes seeded, want only 8", m.procs.used);
	metrics_free(&m);
}

/* The directory is another user's: a link there is not followed. */
static void test_seed_refuses_link(void)
{
	struct metrics m = { 0 };
	int err;

	unit_write_file("elsewhere", "pfprof_minor_faults_total 5\n");
	expect(!symlink("elsewhere", PROMFILE_NAME), "symlink: %s", strerror(errno));
	err = promfile_seed(".", &m);
	expect(err == -ELOOP && m.minor == 0, "seeding through a link gave %d", err);
	expect(promfile_seed("missing", &m) == -ENOENT, "a missing file is not -ENOENT");
}

/* promtool's exit status and output on path; fails the test if it cannot be run. */
static int promtool_check(const char *path, char *output, size_t size)
{
	const char *promtool = getenv("PROMTOOL");
	char command[4096];
	size_t len;
	FILE *p;

	expect(promtool && *promtool, "PROMTOOL is not set (tests/lib/promtool.sh prints one)");
	snprintf(command, sizeof(command), "'%s' check metrics < '%s' 2>&1", promtool, path);
	p = popen(command, "r");
	expect(p, "popen: %s", strerror(errno));
	len = fread(output, 1, size - 1, p);
	output[len] = '\0';
	return WEXITSTATUS(pclose(p));
}

/* Prometheus' own linter: the format and the naming conventions (units, _total). */
static void test_promtool_accepts(void)
{
	struct metrics m = { 0 };
	char output[4096];
	int status;

	fill(&m);
	expect(!promfile_write(".", &m), "promfile_write failed");
	status = promtool_check(PROMFILE_NAME, output, sizeof(output));
	expect(status == 0 && !output[0], "promtool check metrics: status %d:\n%s", status, output);
	metrics_free(&m);
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

UNIT_TESTS(UNIT_TEST(render), UNIT_TEST(render_leaves_out_unknown), UNIT_TEST(write),
	   UNIT_TEST(seed_round_trip), UNIT_TEST(seed_then_reload),
	   UNIT_TEST(seed_skips_what_it_does_not_know), UNIT_TEST(seed_refuses_link),
	   UNIT_TEST(promtool_accepts), UNIT_TEST(promtool_rejects));
