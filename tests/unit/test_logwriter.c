// SPDX-License-Identifier: GPL-2.0
#include "unit.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <sched.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include "logqueue.h"
#include "logwriter.h"

#define DIR_NAME "logs"
#define PATH(name) DIR_NAME "/" name
#define COLUMNS_LINE "# columns: seq wall_time_s monotonic_s jiffies minor_faults " \
	"major_faults cpu_ms processes minor_total major_total cpu_total_ms sys_pgmajfault " \
	"sys_pswpin sys_pswpout psi_some_avg10 psi_full_avg10 swapin_ms thrashing_ms reclaim_ms " \
	"compact_ms blkio_ms"
#define MAX_SEQS 4096

static const struct log_stream stream_a = { 0x0123456789abcdefULL, 250, 50000000 };
static const struct log_stream stream_b = { 0xfedcba9876543210ULL, 1000, 1000000 };

/* ---- helpers ---- */

/* Every field derived from seq, so that a line read back can be checked. */
static struct mp3_ring_sample sample_of(uint64_t seq)
{
	struct mp3_ring_sample s = {
		.seq = seq,
		.time_ns = 100000000000ULL + seq * 50000000 + 123,
		.jiffies = 4294667296ULL + seq * 12,
		.minor_faults = seq * 3,
		.major_faults = seq % 7,
		.cpu_ns = seq * 1234567,
		.minor_total = seq * 30,
		.major_total = seq * 5,
		.cpu_ns_total = seq * 987654321,
		.nr_procs = 1 + seq % 5,
		.pgmajfault = 1000 + seq * 2,
		.pswpin = seq * 3,
		.pswpout = seq * 4,
		.stalls = { .swapin_us = (uint32_t)seq * 1001, .blkio_us = (uint32_t)seq * 7 },
	};

	return s;
}

/* Memory pressure derived from seq too. */
static struct log_context context_of(uint64_t seq)
{
	/* Delay accounting on in odd samples only. */
	return (struct log_context){ .system = true, .psi = true,
				     .psi_some_avg10 = seq % 10 * 1.25,
				     .psi_full_avg10 = seq % 10 * 0.5, .stalls = seq % 2 };
}

static uint64_t wall_of(uint64_t seq)
{
	return 1700000000000000000ULL + seq * 50000000 + 789;
}

static struct logwriter *new_writer(const char *dir, uint64_t size, uint64_t age,
				    unsigned int keep)
{
	struct logrotate_policy policy = { size, age, keep };
	struct logwriter *w = logwriter_new(dir, LOGKIND_SAMPLES, &policy);

	expect(w, "logwriter_new: %s", strerror(errno));
	return w;
}

static void make_dir(const char *dir)
{
	expect(!mkdir(dir, 0755), "mkdir %s: %s", dir, strerror(errno));
}

static void add_samples(struct logwriter *w, uint64_t from, uint64_t to)
{
	for (uint64_t seq = from; seq < to; seq++) {
		struct mp3_ring_sample s = sample_of(seq);

		struct log_context context = context_of(seq);

		expect(logwriter_add_sample(w, &s, wall_of(seq), &context),
			   "add_sample %" PRIu64 " failed", seq);
	}
}

static void flush_ok(struct logwriter *w, uint64_t now)
{
	int err = logwriter_flush(w, now);

	expect(!err, "flush: %s", strerror(-err));
	expect(!logwriter_queued(w), "%zu lines still queued", logwriter_queued(w));
}

static bool exists(const char *path)
{
	return !access(path, F_OK);
}

static char *rotated(const char *dir, unsigned int n)
{
	static char path[256];
	int err = logformat_path(path, sizeof(path), dir, LOGKIND_SAMPLES, n);

	expect(!err, "logformat_path: %s", strerror(-err));
	return path;
}

/* A file split into lines; fails unless it ends with '\n' (no torn line). */
struct lines {
	char *text;
	char **line;
	size_t n;
};

static struct lines read_lines(const char *path)
{
	struct lines l = { unit_read_file(path), NULL, 0 };
	size_t len = strlen(l.text);
	char *p = l.text;

	expect(!len || l.text[len - 1] == '\n', "%s does not end with a newline", path);
	while (*p) {
		char *nl = strchr(p, '\n');

		l.line = realloc(l.line, (l.n + 1) * sizeof(*l.line));
		expect(l.line, "out of memory");
		l.line[l.n++] = p;
		*nl = '\0';
		p = nl + 1;
	}
	return l;
}

static void free_lines(struct lines *l)
{
	free(l->text);
	free(l->line);
}

static bool is_sample(const char *line)
{
	return line[0] >= '0' && line[0] <= '9';
}

static void format_stream(char *buf, size_t size, const struct log_stream *st)
{
	snprintf(buf, size, "# load_id %016" PRIx64 " hz %" PRIu32 " period_ns %" PRIu64,
		 st->load_id, st->hz, st->period_ns);
}

/* Checks the four header lines at l->line[0]; returns the created second. */
static uint64_t check_header(const struct lines *l, const char *path)
{
	static const char *const columns[] = {
		"seq", "wall_time_s", "monotonic_s", "jiffies", "minor_faults", "major_faults",
		"cpu_ms", "processes", "minor_total", "major_total", "cpu_total_ms",
		"sys_pgmajfault", "sys_pswpin", "sys_pswpout", "psi_some_avg10", "psi_full_avg10",
		"swapin_ms", "thrashing_ms", "reclaim_ms", "compact_ms", "blkio_ms",
	};
	unsigned long long created;
	int end = 0;

	expect(l->n >= 4, "%s: %zu lines, no header", path, l->n);
	expect(!strcmp(l->line[0], "# pfprof log format 3"), "%s line 1: %s", path,
		   l->line[0]);
	expect(sscanf(l->line[1], "# created %llu%n", &created, &end) == 1 &&
		   !l->line[1][end], "%s line 2: %s", path, l->line[1]);
	expect(!strcmp(l->line[2], COLUMNS_LINE), "%s line 3: %s", path, l->line[2]);
	expect(!strncmp(l->line[3], "# units: ", 9), "%s line 4: %s", path, l->line[3]);
	for (size_t i = 0; i < sizeof(columns) / sizeof(columns[0]); i++)
		expect(strstr(l->line[3], columns[i]), "the units line misses %s: %s",
			   columns[i], l->line[3]);
	return created;
}

static bool near(double a, double b, double tolerance)
{
	return a - b < tolerance && b - a < tolerance;
}

/* Parses a sample line and compares every field with sample_of(seq). */
static uint64_t check_sample_line(const char *line)
{
	unsigned long long seq, jiffies, minor, major, minor_total, major_total;
	unsigned long long pgmajfault, pswpin, pswpout;
	double wall, mono, cpu, cpu_total, some, full;
	struct log_context context;
	struct mp3_ring_sample s;
	unsigned int procs;
	char want[80];
	int end = 0;

	expect(sscanf(line, "%llu %lf %lf %llu %llu %llu %lf %u %llu %llu %lf %llu %llu %llu %lf %lf%n",
		      &seq, &wall, &mono, &jiffies, &minor, &major, &cpu, &procs, &minor_total,
		      &major_total, &cpu_total, &pgmajfault, &pswpin, &pswpout, &some, &full,
		      &end) == 16,
		   "not a sample line: '%s'", line);
	s = sample_of(seq);
	context = context_of(seq);
	if (context.stalls)
		snprintf(want, sizeof(want), " %u.%03u 0.000 0.000 0.000 %u.%03u",
			 s.stalls.swapin_us / 1000, s.stalls.swapin_us % 1000,
			 s.stalls.blkio_us / 1000, s.stalls.blkio_us % 1000);
	else
		snprintf(want, sizeof(want), " - - - - -");
	expect(!strcmp(line + end, want), "waits '%s', want '%s' in: %s", line + end, want, line);
	expect(pgmajfault == s.pgmajfault && pswpin == s.pswpin && pswpout == s.pswpout &&
	       near(some, context.psi_some_avg10, 0.006) && near(full, context.psi_full_avg10, 0.006),
	       "system columns do not match seq %llu: %s", seq, line);
	expect(near(wall, wall_of(seq) / 1e9, 1e-6) && near(mono, s.time_ns / 1e9, 1e-6) &&
		   jiffies == s.jiffies && minor == s.minor_faults && major == s.major_faults &&
		   near(cpu, s.cpu_ns / 1e6, 0.6e-3) && procs == s.nr_procs &&
		   minor_total == s.minor_total && major_total == s.major_total &&
		   near(cpu_total, s.cpu_ns_total / 1e6, 0.6e-3),
		   "sample line does not match seq %llu: %s", seq, line);
	return seq;
}

/* All samples of the files in dir, oldest first; every file starts with header + load_id. */
struct seqs {
	uint64_t seq[MAX_SEQS];
	size_t n;
	unsigned int files;
};

static void collect(const char *dir, unsigned int keep, struct seqs *out)
{
	out->n = 0;
	out->files = 0;
	for (unsigned int n = keep + 1; n-- > 0;) {
		const char *path = rotated(dir, n);
		struct lines l;

		if (!exists(path))
			continue;
		l = read_lines(path);
		check_header(&l, path);
		expect(l.n >= 5 && !strncmp(l.line[4], "# load_id ", 10),
			   "%s: no load_id line after the header", path);
		for (size_t i = 5; i < l.n; i++) {
			if (!is_sample(l.line[i]))
				continue;
			expect(out->n < MAX_SEQS, "too many samples");
			out->seq[out->n++] = check_sample_line(l.line[i]);
		}
		out->files++;
		free_lines(&l);
	}
}

/* Fails unless s holds exactly first..last in order. */
static void check_seqs(const struct seqs *s, uint64_t first, uint64_t last)
{
	expect(s->n == last - first + 1, "%zu samples, want %" PRIu64 "..%" PRIu64, s->n,
		   first, last);
	for (size_t i = 0; i < s->n; i++)
		expect(s->seq[i] == first + i, "sample %zu is seq %" PRIu64 ", want %" PRIu64,
			   i, s->seq[i], first + i);
}

static unsigned int count_log_files(const char *dir)
{
	DIR *d = opendir(dir);
	unsigned int n = 0;
	struct dirent *e;

	expect(d, "opendir %s: %s", dir, strerror(errno));
	while ((e = readdir(d)))
		n += !strncmp(e->d_name, LOGFORMAT_FILE, strlen(LOGFORMAT_FILE));
	closedir(d);
	return n;
}

static void write_file(const char *path, const char *text)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC);

	expect(fd >= 0, "open %s: %s", path, strerror(errno));
	expect(write(fd, text, strlen(text)) == (ssize_t)strlen(text), "writing %s: %s", path,
		   strerror(errno));
	close(fd);
}

/*
 * Without root (a package build), a user namespace where this user is root
 * allows mounting tmpfs; the files keep the user's real uid outside.
 */
static void become_root_in_user_namespace(void)
{
	char map[64];

	snprintf(map, sizeof(map), "0 %u 1", (unsigned int)getuid());
	expect(!unshare(CLONE_NEWUSER), "unshare(CLONE_NEWUSER): %s (the mount tests need "
		   "root or unprivileged user namespaces)", strerror(errno));
	write_file("/proc/self/uid_map", map);
	write_file("/proc/self/setgroups", "deny");
	snprintf(map, sizeof(map), "0 %u 1", (unsigned int)getgid());
	write_file("/proc/self/gid_map", map);
}

/* Mounts happen in a private mount namespace: they vanish with the test's process. */
static void private_mounts(void)
{
	if (geteuid())
		become_root_in_user_namespace();
	expect(!unshare(CLONE_NEWNS), "unshare(CLONE_NEWNS): %s", strerror(errno));
	expect(!mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL),
		   "making / private: %s", strerror(errno));
}

static void mount_tmpfs(const char *dir, const char *options)
{
	make_dir(dir);
	expect(!mount("tmpfs", dir, "tmpfs", 0, options),
		   "mount -t tmpfs -o %s tmpfs %s: %s", options, dir, strerror(errno));
}

static void remount(const char *dir, unsigned long flags)
{
	expect(!mount(NULL, dir, NULL, MS_REMOUNT | flags, NULL), "remounting %s: %s", dir,
		   strerror(errno));
}

static void unmount(const char *dir)
{
	expect(!umount(dir), "umount %s: %s", dir, strerror(errno));
}

/* ---- tests ---- */

static const struct {
	uint64_t wall_ns;
	struct mp3_ring_sample s;
	struct log_context context;
	const char *line;
} format_cases[] = {
	{ 1700000000123456789ULL,
	  { 0, 5000000000ULL, 4294967296ULL, 12, 3, 1234567, 100, 7, 999999999, 2, 0, 0, 0, 0,
	    123456, 7, 8, { 1, 999, 1000, 123456, 4294967295U, 0 } },
	  { true, true, 12.345, 0.5, true },
	  "0 1700000000.123457 5.000000 4294967296 12 3 1.235 2 100 7 1000.000 123456 7 8 12.35 0.50"
	  " 0.001 0.999 1.000 123.456 4294967.295" },
	{ 0, { 1, 999999, 0, 0, 0, 499, 0, 0, 500, 0, 0, 0, 0, 0, 5, 6, 7, { 0 } },
	  { false, false, 0, 0, false },
	  "1 0.000000 0.001000 0 0 0 0.000 0 0 0 0.001 - - - - - - - - - -" },
	{ 999, { 18446744073709551614ULL, 1, 1, 1, 1, 1000000, 1, 1, 1000000000000ULL,
		 4294967295U, 0, 0, 0, 0, 18446744073709551615ULL, 18446744073709551615ULL,
		 18446744073709551615ULL, { 0 } },
	  { true, false, 1, 1, true },
	  "18446744073709551614 0.000001 0.000000 1 1 1 1.000 4294967295 1 1 1000000.000 "
	  "18446744073709551615 18446744073709551615 18446744073709551615 - - 0.000 0.000 0.000"
	  " 0.000 0.000" },
	/* Waits unknown (delay accounting off): never 0. */
	{ 0, { 2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 5, 6, 7, { 1, 2, 3, 4, 5, 0 } },
	  { true, false, 0, 0, false },
	  "2 0.000000 0.000000 0 0 0 0.000 0 0 0 0.000 5 6 7 - - - - - - -" },
};

/* The names pfprofctl plot and people read; the writer and the rotation use them. */
static void test_file_names(void)
{
	char path[32];

	char procs[48];

	expect(!logformat_path(path, sizeof(path), "/var/log/pfprof", LOGKIND_SAMPLES, 0) &&
	       !strcmp(path, "/var/log/pfprof/pfprof.log"), "current file '%s'", path);
	expect(!logformat_path(path, sizeof(path), "/var/log/pfprof", LOGKIND_SAMPLES, 12) &&
	       !strcmp(path, "/var/log/pfprof/pfprof.log.12"), "rotated file '%s'", path);
	expect(logformat_path(path, sizeof(path), "/var/log/pfprof/longer", LOGKIND_SAMPLES, 1) ==
	       -ENAMETOOLONG, "a name that does not fit");
	expect(!logformat_path(procs, sizeof(procs), "/var/log/pfprof", LOGKIND_PROCS, 0) &&
	       !strcmp(procs, "/var/log/pfprof/pfprof-procs.log"), "per-process file '%s'", procs);
	expect(!logformat_path(procs, sizeof(procs), "/var/log/pfprof", LOGKIND_PROCS, 3) &&
	       !strcmp(procs, "/var/log/pfprof/pfprof-procs.log.3"), "rotated per-process file '%s'",
	       procs);
	expect(!logformat_path(procs, sizeof(procs), "/var/log/pfprof", LOGKIND_FAULTS, 2) &&
	       !strcmp(procs, "/var/log/pfprof/pfprof-faults.log.2"), "rotated faults file '%s'",
	       procs);
	expect(!logformat_path(procs, sizeof(procs), "/var/log/pfprof", LOGKIND_PAGES, 0) &&
	       !strcmp(procs, "/var/log/pfprof/pfprof-pages.log"), "pages file '%s'", procs);
}

static void test_format(void)
{
	size_t ncases = sizeof(format_cases) / sizeof(format_cases[0]);
	struct logwriter *w;
	char want[256];
	struct lines l;

	make_dir(DIR_NAME);
	w = new_writer(DIR_NAME, 0, 0, 3);
	expect(!strcmp(logwriter_path(w), PATH(LOGFORMAT_FILE)), "path %s",
		   logwriter_path(w));
	logwriter_set_stream(w, &stream_a);
	expect(!logwriter_open(w, 1234), "open failed");
	for (size_t i = 0; i < ncases; i++)
		expect(logwriter_add_sample(w, &format_cases[i].s, format_cases[i].wall_ns,
					    &format_cases[i].context),
			   "add failed");
	add_samples(w, 10, 20);
	expect(logwriter_queued(w) == ncases + 11, "%zu queued", logwriter_queued(w));
	flush_ok(w, 1234);
	logwriter_free(w);

	l = read_lines(PATH(LOGFORMAT_FILE));
	expect(check_header(&l, "log") == 1234, "created is not 1234: %s", l.line[1]);
	expect(l.n == 5 + ncases + 10, "%zu lines", l.n);
	format_stream(want, sizeof(want), &stream_a);
	expect(!strcmp(l.line[4], want), "line 5: '%s', want '%s'", l.line[4], want);
	expect(!strcmp(want, "# load_id 0123456789abcdef hz 250 period_ns 50000000"),
		   "load_id line '%s'", want);
	for (size_t i = 0; i < ncases; i++)
		expect(!strcmp(l.line[5 + i], format_cases[i].line),
			   "case %zu: '%s', want '%s'", i, l.line[5 + i], format_cases[i].line);
	for (uint64_t seq = 10; seq < 20; seq++)
		expect(check_sample_line(l.line[5 + ncases + seq - 10]) == seq, "seq order");
	free_lines(&l);
}

/* The per-process log: its header, a line per process, lost records, load_id lines. */
static void test_procs_log(void)
{
	struct logrotate_policy policy = { 0, 0, 2 };
	struct log_proc p = {
		.seq = 7, .wall_ns = 1700000000123456789ULL, .comm = "my\tapp", .stalls = true,
		.r = { .tgid = 4242, .type = MP3_RECORD_COUNTS, .counts = { 12, 3, 1234567 },
		       .target = 0x40000007U, .stalls = { 1500, 0, 2, 0, 30000, 0 } },
		/* Timed: a known 0 for the kind without faults. */
		.minor_ns = 2345678, .major_ns = 0,
	};
	struct logwriter *w;
	struct log_position pos;
	char want[256];
	struct lines l;

	make_dir(DIR_NAME);
	w = logwriter_new(DIR_NAME, LOGKIND_PROCS, &policy);
	expect(w, "logwriter_new: %s", strerror(errno));
	logwriter_set_stream(w, &stream_a);
	expect(logwriter_reserve(w, 3), "no room for 3 lines");
	expect(logwriter_add_proc(w, &p), "add_proc");
	expect(logwriter_add_lost(w, 7, 2), "add_lost");
	p.seq = 8;
	p.wall_ns = 1700000000173456789ULL;
	snprintf(p.comm, sizeof(p.comm), "sh");
	/* A process registered by PID alone has no target: 0. */
	p.r.tgid = 99;
	p.r.target = 0;
	/* Delay accounting off: its waits are unknown; without latency, its faults' time. */
	p.stalls = false;
	p.minor_ns = p.major_ns = LOGFORMAT_TIME_UNKNOWN;
	expect(logwriter_add_proc(w, &p), "add_proc");
	flush_ok(w, 55);
	logwriter_free(w);

	l = read_lines(PATH(LOGFORMAT_PROCS_FILE));
	expect(l.n == 8, "%zu lines", l.n);
	expect(!strcmp(l.line[0], "# pfprof per-process log format 4") &&
	       !strcmp(l.line[1], "# created 55") &&
	       !strcmp(l.line[2], "# columns: seq wall_time_s pid comm minor_faults major_faults "
		       "cpu_ms target swapin_ms thrashing_ms reclaim_ms compact_ms blkio_ms "
		       "minor_time_ms major_time_ms") &&
	       !strncmp(l.line[3], "# units: tab-separated;", 23), "header:\n%s\n%s\n%s\n%s",
	       l.line[0], l.line[1], l.line[2], l.line[3]);
	format_stream(want, sizeof(want), &stream_a);
	expect(!strcmp(l.line[4], want), "line 5: '%s', want '%s'", l.line[4], want);
	expect(!strcmp(l.line[5], "7\t1700000000.123457\t4242\tmy_app\t12\t3\t1.235\t1073741831"
		       "\t1.500\t0.000\t0.002\t0.000\t30.000\t2.345678\t0.000000"),
	       "line 6: '%s'", l.line[5]);
	expect(!strcmp(l.line[6], "# lost 2 records of sample 7"), "line 7: '%s'", l.line[6]);
	expect(!strcmp(l.line[7], "8\t1700000000.173457\t99\tsh\t12\t3\t1.235\t0\t-\t-\t-\t-\t-"
		       "\t-\t-"),
	       "line 8: '%s'", l.line[7]);
	free_lines(&l);

	/* A restarted pfprofd resumes this log after its own last line. */
	w = logwriter_new(DIR_NAME, LOGKIND_PROCS, &policy);
	expect(!logwriter_last_position(w, &pos) && pos.load_id == stream_a.load_id &&
	       pos.next_seq == 9, "resume at %llu of %llx", (unsigned long long)pos.next_seq,
	       (unsigned long long)pos.load_id);
	logwriter_free(w);
}

/* The faults log: its header, a line per mapping, names made one field and cut to fit. */
static void test_faults_log(void)
{
	struct logrotate_policy policy = { 0, 0, 2 };
	struct log_fault f = {
		.seq = 7, .wall_ns = 1700000000123456789ULL, .pid = 4242, .target = 0,
		.mapping = MP3_MAPPING_FILE, .start = 0x7f0012340000ULL, .size = 8192,
		.inode = 1835055, .minor = 3, .major = 2, .comm = "pg\tsql",
		.name = "/var/lib/data\tfile", .minor_ns = 4321, .major_ns = 12000000001ULL,
	};
	char long_name[LOGFORMAT_NAME_MAX + 100];
	struct log_position pos;
	struct logwriter *w;
	char want[256], *times;
	struct lines l;

	memset(long_name, 'x', sizeof(long_name) - 1);
	long_name[0] = '/';
	long_name[sizeof(long_name) - 1] = '\0';
	make_dir(DIR_NAME);
	w = logwriter_new(DIR_NAME, LOGKIND_FAULTS, &policy);
	expect(w, "logwriter_new: %s", strerror(errno));
	logwriter_set_stream(w, &stream_a);
	expect(logwriter_reserve(w, 4), "no room for 4 lines");
	expect(logwriter_add_fault(w, &f), "add_fault");
	f = (struct log_fault){ .seq = 8, .wall_ns = 1700000000173456789ULL, .pid = 4242,
				.mapping = MP3_MAPPING_ANON, .start = 0x5000, .minor = 16384,
				.comm = "psql", .name = "[anon]", .minor_ns = LOGFORMAT_TIME_UNKNOWN,
				.major_ns = LOGFORMAT_TIME_UNKNOWN };
	expect(logwriter_add_fault(w, &f), "add_fault");
	f.mapping = MP3_MAPPING_UNRESOLVED;
	f.start = 0;
	f.minor = 1;
	f.name = long_name;
	expect(logwriter_add_fault(w, &f), "add_fault");
	expect(logwriter_add_lost(w, 8, 2), "add_lost");
	/* The names are the queue's own: what the caller passed may go now. */
	memset(long_name, 'y', 10);
	flush_ok(w, 55);
	logwriter_free(w);

	l = read_lines(PATH(LOGFORMAT_FAULTS_FILE));
	expect(l.n == 9, "%zu lines", l.n);
	expect(!strcmp(l.line[0], "# pfprof faults log format 2") &&
	       !strcmp(l.line[1], "# created 55") &&
	       !strcmp(l.line[2], LOGFORMAT_FAULTS_COLUMNS) &&
	       !strncmp(l.line[3], "# units: tab-separated;", 23), "header:\n%s\n%s\n%s\n%s",
	       l.line[0], l.line[1], l.line[2], l.line[3]);
	format_stream(want, sizeof(want), &stream_a);
	expect(!strcmp(l.line[4], want), "line 5: '%s', want '%s'", l.line[4], want);
	expect(!strcmp(l.line[5], "7\t1700000000.123457\t4242\tpg_sql\t0\tfile\t7f0012340000"
		       "\t8192\t1835055\t3\t2\t/var/lib/data_file\t0.004321\t12000.000001"),
	       "line 6: '%s'", l.line[5]);
	expect(!strcmp(l.line[6], "8\t1700000000.173457\t4242\tpsql\t0\tanon\t5000\t-\t0"
		       "\t16384\t0\t[anon]\t-\t-"), "line 7: '%s'", l.line[6]);
	/* The name cut, the times after it. */
	times = strstr(l.line[7], "\t-\t-");
	expect(times && !times[4], "line 8 ends otherwise: '%s'", l.line[7]);
	if (times)
		*times = '\0';
	expect(!strncmp(l.line[7], "8\t1700000000.173457\t4242\tpsql\t0\tunresolved\t0\t-\t0"
			"\t1\t0\t/xxx", 46) && strlen(strrchr(l.line[7], '\t') + 1) ==
	       LOGFORMAT_NAME_MAX - 1, "line 8: '%s'", l.line[7]);
	expect(!strcmp(l.line[8], "# lost 2 records of sample 8"), "line 9: '%s'", l.line[8]);
	free_lines(&l);

	w = logwriter_new(DIR_NAME, LOGKIND_FAULTS, &policy);
	expect(!logwriter_last_position(w, &pos) && pos.load_id == stream_a.load_id &&
	       pos.next_seq == 9, "resume at %llu of %llx", (unsigned long long)pos.next_seq,
	       (unsigned long long)pos.load_id);
	logwriter_free(w);
}

/* The pages log: its header, a page's line in the queue's order, a lost marker; and resuming. */
static void test_pages_log(void)
{
	struct logrotate_policy policy = { 0, 0, 1 };
	struct log_page pg = {
		.seq = 9, .wall_ns = 1700000000000001000ULL, .pid = 77, .target = 5,
		.event = MP3_SWAP_OUT, .device = 0, .pages = 1, .offset = 12,
		.address = 0x1000, .stall_ns = LOGFORMAT_TIME_UNKNOWN, .mapping = MP3_MAPPING_ANON,
		.sys_pswpout = 5000, .comm = "worker",
	};
	struct log_position pos;
	struct logwriter *w;
	struct lines l;

	make_dir(DIR_NAME);
	w = logwriter_new(DIR_NAME, LOGKIND_PAGES, &policy);
	expect(w, "logwriter_new: %s", strerror(errno));
	logwriter_set_stream(w, &stream_a);
	expect(logwriter_reserve(w, 3), "no room for 3 lines");
	expect(logwriter_add_page(w, &pg), "add_page");
	pg.event = MP3_SWAP_IN | MP3_SWAP_READ;
	pg.stall_ns = 2000;
	pg.seq = 10;
	expect(logwriter_add_page(w, &pg), "add_page");
	expect(logwriter_add_lost(w, 10, 1), "add_lost");
	flush_ok(w, 56);
	logwriter_free(w);

	l = read_lines(PATH(LOGFORMAT_PAGES_FILE));
	expect(l.n == 8, "%zu lines", l.n);
	expect(!strcmp(l.line[0], "# pfprof pages log format 3") &&
	       !strcmp(l.line[1], "# created 56") && !strcmp(l.line[2], LOGFORMAT_PAGES_COLUMNS),
	       "header:\n%s\n%s\n%s", l.line[0], l.line[1], l.line[2]);
	expect(!strcmp(l.line[5], "9\t1700000000.000001\t77\tworker\t5\tout\t0\t12\t1000\t1\t-\tanon\t5000\t-"),
	       "line 6: '%s'", l.line[5]);
	expect(!strcmp(l.line[6], "10\t1700000000.000001\t77\tworker\t5\tread\t0\t12\t1000\t1"
		       "\t0.002000\tanon\t5000\t-"), "line 7: '%s'", l.line[6]);
	expect(!strcmp(l.line[7], "# lost 1 records of sample 10"), "line 8: '%s'", l.line[7]);
	free_lines(&l);

	w = logwriter_new(DIR_NAME, LOGKIND_PAGES, &policy);
	expect(!logwriter_last_position(w, &pos) && pos.load_id == stream_a.load_id &&
	       pos.next_seq == 11, "resume at %llu of %llx", (unsigned long long)pos.next_seq,
	       (unsigned long long)pos.load_id);
	logwriter_free(w);
}

/* A faults line read back: what was written, and nothing from a line that is not one. */
static void test_parse_fault(void)
{
	struct log_fault f = {
		.seq = 7, .wall_ns = 1700000000123457000ULL, .pid = 4242, .target = 0x40000007U,
		.mapping = MP3_MAPPING_FILE, .start = 0x7f0012340000ULL, .size = 8192,
		.inode = 1835055, .minor = 3, .major = 2, .comm = "pg sql",
		.name = "/var/lib/data file (deleted)", .minor_ns = 1, .major_ns = 2500000123ULL,
	}, back;
	static const char *const bad[] = {
		"# lost 2 records of sample 8",
		"7\t1700000000.100000\t4242\tpsql\t0\tfile\t7f00\t8192\t1\t3\t2",
		"7\t1700000000.100000\t4242\tpsql\t0\tbogus\t7f00\t8192\t1\t3\t2\tx",
		"7\t1700000000.100000\t0\tpsql\t0\tfile\t7f00\t8192\t1\t3\t2\tx",
		"7\t1700000000.100000\t42\tpsql\t0\tfile\t7g00\t8192\t1\t3\t2\tx",
		"7\t1700000000.100000\t42\tpsql\t0\tfile\t7f00\t8192\t1\t-3\t2\tx",
		"7\t1700000000.1\t42\tpsql\t0\tfile\t7f00\t8192\t1\t3\t2\tx",
		"7\tnow\t42\tpsql\t0\tfile\t7f00\t8192\t1\t3\t2\tx",
		/* Format 2's times: both or none, each "-" or ms to the ns. */
		"7\t1700000000.100000\t42\tpsql\t0\tfile\t7f00\t8192\t1\t3\t2\tx\t0.000001",
		"7\t1700000000.100000\t42\tpsql\t0\tfile\t7f00\t8192\t1\t3\t2\tx\t1.5\t-",
		"7\t1700000000.100000\t42\tpsql\t0\tfile\t7f00\t8192\t1\t3\t2\tx\t-1.000000\t-",
		"7\t1700000000.100000\t42\tpsql\t0\tfile\t7f00\t8192\t1\t3\t2\tx\t--\t-",
		"7\t1700000000.100000\t42\tpsql\t0\tfile\t7f00\t8192\t1\t3\t2\tx\t\t-",
		"7\t1700000000.100000\t42\tpsql\t0\tfile\t7f00\t8192\t1\t3\t2\tx\t-\t-\textra",
		"7\t1700000000.100000\t42\tpsql\t0\tfile\t7f00\t8192\t1\t3\t2\tx\t"
		"18446744073709.551615\t-",
	};
	char line[LOGFORMAT_LINE_MAX];
	int len = logformat_fault(line, sizeof(line), &f);

	expect(len > 0 && line[len - 1] == '\n', "formatting failed");
	line[len - 1] = '\0';
	expect(logformat_parse_fault(line, &back) && back.seq == f.seq &&
	       back.wall_ns == f.wall_ns && back.pid == f.pid && back.target == f.target &&
	       back.mapping == f.mapping && back.start == f.start && back.size == f.size &&
	       back.inode == f.inode && back.minor == f.minor && back.major == f.major &&
	       back.minor_ns == f.minor_ns && back.major_ns == f.major_ns &&
	       !strcmp(back.comm, f.comm) && !strcmp(back.name, f.name), "read back differs");
	f.size = 0;
	f.minor_ns = f.major_ns = LOGFORMAT_TIME_UNKNOWN;
	len = logformat_fault(line, sizeof(line), &f);
	line[len - 1] = '\0';
	expect(logformat_parse_fault(line, &back) && back.size == 0 &&
	       back.minor_ns == LOGFORMAT_TIME_UNKNOWN && back.major_ns == LOGFORMAT_TIME_UNKNOWN,
	       "size or times '-' not read as unknown");
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		snprintf(line, sizeof(line), "%s", bad[i]);
		expect(!logformat_parse_fault(line, &back), "bad line %zu read: %s", i, bad[i]);
	}
}

/* Lines of either format, and what their times read as. */
static void test_parse_fault_formats(void)
{
	static const struct {
		const char *line;
		uint64_t minor_ns, major_ns;
	} cases[] = {
		/* Format 1, before the times: unknown. */
		{ "7\t1700000000.100000\t42\tpsql\t0\theap\t5000\t-\t0\t3\t0\t[heap]",
		  LOGFORMAT_TIME_UNKNOWN, LOGFORMAT_TIME_UNKNOWN },
		{ "7\t1700000000.100000\t42\tpsql\t0\theap\t5000\t-\t0\t3\t0\t[heap]\t-\t-",
		  LOGFORMAT_TIME_UNKNOWN, LOGFORMAT_TIME_UNKNOWN },
		{ "7\t1700000000.100000\t42\tpsql\t0\theap\t5000\t-\t0\t3\t0\t[heap]\t0.001500"
		  "\t0.000000", 1500, 0 },
		{ "7\t1700000000.100000\t42\tpsql\t0\tfile\t7000\t-\t9\t3\t1\t/a b\t-"
		  "\t20.000007", LOGFORMAT_TIME_UNKNOWN, 20000007 },
		{ "7\t1700000000.100000\t42\tpsql\t0\tfile\t7000\t-\t9\t3\t1\t/a b\t"
		  "18446744073708.999999\t0.000000", 18446744073708999999ULL, 0 },
	};
	char line[LOGFORMAT_LINE_MAX];
	struct log_fault f;

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		snprintf(line, sizeof(line), "%s", cases[i].line);
		expect(logformat_parse_fault(line, &f) && f.minor_ns == cases[i].minor_ns &&
		       f.major_ns == cases[i].major_ns && f.minor == 3 && f.name[0] != '\0',
		       "line %zu: times %" PRIu64 " %" PRIu64, i, f.minor_ns, f.major_ns);
	}
}

/* Which of the module's times a line shows: never 0 for faults it did not time. */
static void test_set_fault_time(void)
{
	const uint64_t unknown = LOGFORMAT_TIME_UNKNOWN;
	static const struct {
		uint64_t minor, major, minor_ns, major_ns;	/* the faults, fault_time */
		uint64_t want_minor, want_major;		/* the line's times */
	} cases[] = {
		/* Not timed: no latency, or a module before version 8. */
		{ 5, 0, 0, 0, unknown, unknown },
		{ 5, 2, 0, 0, unknown, unknown },
		/* Timed: a kind without faults took no time. */
		{ 5, 0, 4000, 0, 4000, 0 },
		{ 0, 2, 0, 9000000, 0, 9000000 },
		{ 5, 2, 4000, 9000000, 4000, 9000000 },
		/* Timed, but the time of one kind's faults was not joined to the mapping. */
		{ 5, 2, 4000, 0, 4000, unknown },
		{ 5, 2, 0, 9000000, unknown, 9000000 },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct log_fault f = { .minor = cases[i].minor, .major = cases[i].major };

		logformat_set_fault_time(&f, cases[i].minor_ns, cases[i].major_ns);
		expect(f.minor_ns == cases[i].want_minor && f.major_ns == cases[i].want_major,
		       "case %zu: %" PRIu64 " %" PRIu64, i, f.minor_ns, f.major_ns);
	}
}

/* Fault lines still queued when the writer goes are freed with it (run under ASan/valgrind). */
static void test_faults_queued_at_free(void)
{
	struct logrotate_policy policy = { 0, 0, 2 };
	struct log_fault f = { .seq = 1, .pid = 1, .mapping = MP3_MAPPING_HEAP, .comm = "a",
			       .name = "[heap]" };
	struct logwriter *w = logwriter_new(DIR_NAME, LOGKIND_FAULTS, &policy);

	expect(w && logwriter_reserve(w, 200), "logwriter_new or reserve failed");
	for (int i = 0; i < 200; i++)
		expect(logwriter_add_fault(w, &f), "add_fault %d", i);
	expect(logwriter_queued(w) == 200, "%zu queued", logwriter_queued(w));
	logwriter_free(w);
}

static void test_missed(void)
{
	struct logwriter *w;
	struct lines l;

	make_dir(DIR_NAME);
	w = new_writer(DIR_NAME, 0, 0, 0);
	logwriter_set_stream(w, &stream_a);
	add_samples(w, 0, 1);
	expect(logwriter_add_missed(w, 1, 5), "add_missed failed");
	expect(logwriter_add_missed(w, 9, 0), "add_missed of nothing failed");
	add_samples(w, 6, 7);
	expect(logwriter_add_missed(w, 7, 1), "add_missed failed");
	flush_ok(w, 1);
	logwriter_free(w);

	l = read_lines(PATH(LOGFORMAT_FILE));
	expect(l.n == 9, "%zu lines", l.n);
	expect(!strcmp(l.line[6], "# missed 5 samples (seq 1..5)"), "line 7: %s", l.line[6]);
	expect(check_sample_line(l.line[7]) == 6, "line 8: %s", l.line[7]);
	expect(!strcmp(l.line[8], "# missed 1 samples (seq 7..7)"), "line 9: %s", l.line[8]);
	free_lines(&l);
}

static void test_stream_change(void)
{
	struct log_position pos;
	struct logwriter *w;
	char a[128], b[128];
	struct lines l;
	int err;

	make_dir(DIR_NAME);
	w = new_writer(DIR_NAME, 0, 0, 0);
	expect(!logwriter_open(w, 5), "open failed");
	logwriter_set_stream(w, &stream_a);
	add_samples(w, 0, 2);
	logwriter_set_stream(w, &stream_a);	/* the same: no new line */
	add_samples(w, 2, 3);
	flush_ok(w, 5);
	logwriter_set_stream(w, &stream_b);
	add_samples(w, 0, 1);
	flush_ok(w, 6);
	logwriter_free(w);

	format_stream(a, sizeof(a), &stream_a);
	format_stream(b, sizeof(b), &stream_b);
	l = read_lines(PATH(LOGFORMAT_FILE));
	check_header(&l, "log");
	expect(l.n == 10, "%zu lines", l.n);
	expect(!strcmp(l.line[4], a), "line 5: %s", l.line[4]);
	expect(check_sample_line(l.line[7]) == 2, "line 8: %s", l.line[7]);
	expect(!strcmp(l.line[8], b), "line 9: %s", l.line[8]);
	expect(check_sample_line(l.line[9]) == 0, "line 10: %s", l.line[9]);
	free_lines(&l);

	w = new_writer(DIR_NAME, 0, 0, 0);
	err = logwriter_last_position(w, &pos);
	expect(!err && pos.load_id == stream_b.load_id && pos.next_seq == 1,
		   "last_position: %d %" PRIx64 " %" PRIu64, err, pos.load_id, pos.next_seq);
	logwriter_free(w);
}

static const struct {
	uint64_t rotate_size;
	unsigned int keep;
	uint64_t samples;
	unsigned int min_files, max_files;	/* log files expected */
	bool all_kept;
} size_cases[] = {
	/* The header alone passes 300 bytes: one sample per file. */
	{ 300, 1000, 1000, 1000, 1000, true },
	{ 2000, 1000, 1000, 50, 200, true },
	{ 2000, 3, 1000, 4, 4, false },
	{ 2000, 0, 1000, 1, 1, false },
	{ 0, 3, 1000, 1, 1, true },
};

static void test_size_rotation(void)
{
	static struct seqs s;

	for (size_t c = 0; c < sizeof(size_cases) / sizeof(size_cases[0]); c++) {
		char dir[32];
		struct logwriter *w;
		unsigned int files;

		snprintf(dir, sizeof(dir), "case%zu", c);
		make_dir(dir);
		w = new_writer(dir, size_cases[c].rotate_size, 0, size_cases[c].keep);
		logwriter_set_stream(w, &stream_a);
		expect(!logwriter_open(w, 100), "open failed");
		/* Flushing in batches of 7 mixes rotation with queue refills. */
		for (uint64_t seq = 0; seq < size_cases[c].samples; seq += 7) {
			uint64_t end = seq + 7 < size_cases[c].samples ? seq + 7 :
				       size_cases[c].samples;

			add_samples(w, seq, end);
			flush_ok(w, 100);
		}
		logwriter_free(w);

		files = count_log_files(dir);
		expect(files >= size_cases[c].min_files && files <= size_cases[c].max_files,
			   "case %zu: %u files", c, files);
		collect(dir, size_cases[c].keep, &s);
		expect(s.files == files, "case %zu: %u files read, %u there", c, s.files,
			   files);
		if (size_cases[c].all_kept)
			check_seqs(&s, 0, size_cases[c].samples - 1);
		else
			check_seqs(&s, size_cases[c].samples - s.n, size_cases[c].samples - 1);
		if (size_cases[c].rotate_size == 300)
			expect(s.n == files, "case %zu: not one sample per file", c);
	}
}

/* Rotated files were rotated at the first line boundary at or past rotate_size. */
static void test_size_rotation_boundary(void)
{
	struct logwriter *w;

	make_dir(DIR_NAME);
	w = new_writer(DIR_NAME, 1500, 0, 100);
	logwriter_set_stream(w, &stream_a);
	add_samples(w, 0, 200);
	flush_ok(w, 1);
	logwriter_free(w);
	for (unsigned int n = 1; exists(rotated(DIR_NAME, n)); n++) {
		struct lines l = read_lines(rotated(DIR_NAME, n));
		struct stat st;
		size_t size;

		expect(!stat(rotated(DIR_NAME, n), &st), "stat: %s", strerror(errno));
		size = st.st_size;
		expect(size >= 1500, ".%u has %zu bytes", n, size);
		expect(size - strlen(l.line[l.n - 1]) - 1 < 1500,
			   ".%u was not rotated at the first line past 1500 bytes (%zu)", n, size);
		free_lines(&l);
	}
}

static void test_age_rotation(void)
{
	struct seqs s;
	struct logwriter *w;
	struct lines l;

	make_dir(DIR_NAME);
	w = new_writer(DIR_NAME, 0, 60, 10);
	expect(!logwriter_rotation_due(w), "rotation due before open");
	logwriter_set_stream(w, &stream_a);
	expect(!logwriter_open(w, 1000), "open failed");
	expect(logwriter_rotation_due(w) == 1060, "due %" PRIu64, logwriter_rotation_due(w));
	/* Without a sample the file is not rotated however old. */
	expect(logwriter_add_missed(w, 0, 3), "add_missed failed");
	flush_ok(w, 5000);
	expect(!exists(rotated(DIR_NAME, 1)), "a file without samples was rotated");
	add_samples(w, 3, 4);
	flush_ok(w, 1001);
	add_samples(w, 4, 5);
	flush_ok(w, 1059);
	expect(!exists(rotated(DIR_NAME, 1)), "rotated before its age");
	add_samples(w, 5, 6);
	flush_ok(w, 1060);
	expect(exists(rotated(DIR_NAME, 1)), "not rotated at its age");
	expect(logwriter_rotation_due(w) == 1120, "due %" PRIu64, logwriter_rotation_due(w));
	flush_ok(w, 3000);	/* nothing to write: nothing rotates */
	expect(!exists(rotated(DIR_NAME, 2)), "rotated without a line to write");
	logwriter_free(w);

	/* A restarted writer takes the age from "# created". */
	w = new_writer(DIR_NAME, 0, 60, 10);
	expect(!logwriter_open(w, 5000), "reopen failed");
	expect(logwriter_rotation_due(w) == 1120, "due %" PRIu64, logwriter_rotation_due(w));
	logwriter_set_stream(w, &stream_a);
	add_samples(w, 6, 7);
	flush_ok(w, 5000);
	expect(logwriter_rotation_due(w) == 5060, "due %" PRIu64, logwriter_rotation_due(w));
	logwriter_free(w);

	collect(DIR_NAME, 10, &s);
	expect(s.files == 3, "%u files", s.files);
	check_seqs(&s, 3, 6);
	l = read_lines(rotated(DIR_NAME, 1));
	expect(check_header(&l, ".1") == 1060, ".1 created %s", l.line[1]);
	expect(l.n == 6 && check_sample_line(l.line[5]) == 5, ".1 holds %zu lines", l.n);
	free_lines(&l);
}

/* Without "# created" the age starts at the file's mtime. */
static void test_age_from_mtime(void)
{
	struct timespec times[2] = { { 777, 0 }, { 777, 0 } };
	struct logwriter *w;

	make_dir(DIR_NAME);
	unit_write_file(PATH(LOGFORMAT_FILE), "# load_id 0000000000000001 hz 100 period_ns 1\n"
			"0 1.0 1.0 1 1 1 1.0 1 1 1 1.0\n");
	expect(!utimensat(AT_FDCWD, PATH(LOGFORMAT_FILE), times, 0), "utimensat: %s",
		   strerror(errno));
	w = new_writer(DIR_NAME, 0, 60, 1);
	expect(!logwriter_open(w, 800), "open failed");
	expect(logwriter_rotation_due(w) == 837, "due %" PRIu64, logwriter_rotation_due(w));
	logwriter_free(w);
}

static const struct {
	const char *text;	/* the file before */
	const char *torn;	/* appended without newline */
	bool header_after;	/* the file held nothing whole: a header is written */
} torn_cases[] = {
	{ NULL, "123 4.5", false },
	{ NULL, "1", false },
	{ "", "1 2 3", true },
	{ "", "# load_id 00", true },
};

static void test_torn_tail(void)
{
	for (size_t c = 0; c < sizeof(torn_cases) / sizeof(torn_cases[0]); c++) {
		char dir[32], path[64];
		struct log_position pos = { 0 };
		struct logwriter *w;
		char *before, *after;
		FILE *f;
		int err;

		snprintf(dir, sizeof(dir), "case%zu", c);
		snprintf(path, sizeof(path), "%s/%s", dir, LOGFORMAT_FILE);
		make_dir(dir);
		if (torn_cases[c].text) {
			unit_write_file(path, torn_cases[c].text);
		} else {
			w = new_writer(dir, 0, 0, 1);
			logwriter_set_stream(w, &stream_a);
			add_samples(w, 0, 5);
			flush_ok(w, 7);
			logwriter_free(w);
		}
		before = unit_read_file(path);
		f = fopen(path, "a");
		expect(f && fputs(torn_cases[c].torn, f) >= 0 && !fclose(f),
			   "appending failed");

		w = new_writer(dir, 0, 0, 1);
		err = logwriter_last_position(w, &pos);
		if (torn_cases[c].text)
			expect(err == -ENOENT, "case %zu: last_position %d", c, err);
		else
			expect(!err && pos.next_seq == 5 && pos.load_id == stream_a.load_id,
				   "case %zu: last_position %d, next %" PRIu64, c, err,
				   pos.next_seq);
		expect(!logwriter_open(w, 8), "case %zu: open failed", c);
		logwriter_free(w);
		after = unit_read_file(path);
		if (torn_cases[c].header_after)
			expect(!strncmp(after, "# pfprof log format 3\n# created 8\n", 34),
				   "case %zu: no new header:\n%s", c, after);
		else
			expect(!strcmp(before, after), "case %zu: torn line not cut:\n%s", c,
				   after);
		free(before);
		free(after);
	}
}

static const struct {
	const char *name;
	const char *files[4];	/* pfprof.log, .1, .2, .3; NULL: missing */
	int err;
	uint64_t load_id, next_seq;
} position_cases[] = {
	{ "no files", { NULL }, -ENOENT, 0, 0 },
	{ "header only", { "# pfprof log format 1\n# created 1\n" }, -ENOENT, 0, 0 },
	{ "current",
	  { "# load_id 00000000000000aa hz 1 period_ns 1\n4 x\n5 x\n# missed 2 samples\n" },
	  0, 0xaa, 6 },
	{ "current header only: .1",
	  { "# pfprof log format 1\n# load_id 00000000000000cc hz 1 period_ns 1\n",
	    "# load_id 00000000000000aa hz 1 period_ns 1\n7 x\n"
	    "# load_id 00000000000000bb hz 1 period_ns 1\n0 x\n1 x\n" },
	  0, 0xbb, 2 },
	{ "load_id after the last sample belongs to the next one",
	  { "# load_id 00000000000000aa hz 1 period_ns 1\n9 x\n"
	    "# load_id 00000000000000bb hz 1 period_ns 1\n" },
	  0, 0xaa, 10 },
	{ "gap after a crash: .2",
	  { NULL, NULL, "# load_id 00000000000000dd hz 1 period_ns 1\n41 x\n",
	    "# load_id 00000000000000ee hz 1 period_ns 1\n1 x\n" },
	  0, 0xdd, 42 },
	{ "no load_id line", { "3 x\n" }, 0, 0, 4 },
	{ "torn sample ignored", { "# load_id 00000000000000aa hz 1 period_ns 1\n1 x\n2 x" },
	  0, 0xaa, 2 },
	{ "no sample anywhere", { "# a\n", "# b\n", "# c\n", "# d\n" }, -ENOENT, 0, 0 },
};

static void test_last_position(void)
{
	for (size_t c = 0; c < sizeof(position_cases) / sizeof(position_cases[0]); c++) {
		struct log_position pos = { 0 };
		struct logwriter *w;
		char dir[32];
		int err;

		snprintf(dir, sizeof(dir), "case%zu", c);
		make_dir(dir);
		for (unsigned int n = 0; n < 4; n++)
			if (position_cases[c].files[n])
				unit_write_file(rotated(dir, n), position_cases[c].files[n]);
		w = new_writer(dir, 0, 0, 3);
		err = logwriter_last_position(w, &pos);
		logwriter_free(w);
		expect(err == position_cases[c].err, "%s: error %d", position_cases[c].name,
			   err);
		expect(err || (pos.load_id == position_cases[c].load_id &&
				   pos.next_seq == position_cases[c].next_seq),
			   "%s: load_id %" PRIx64 " next %" PRIu64, position_cases[c].name,
			   pos.load_id, pos.next_seq);
	}
}

/* Big files are read backwards in chunks; lines cross chunk borders, long lines are skipped. */
static void test_last_position_large_file(void)
{
	struct log_position pos;
	struct logwriter *w;
	FILE *f;
	int err;

	make_dir(DIR_NAME);
	f = fopen(PATH(LOGFORMAT_FILE), "w");
	expect(f, "fopen: %s", strerror(errno));
	fprintf(f, "# %0100000d\n", 0);
	fprintf(f, "# load_id 0000000000001234 hz 100 period_ns 10\n# %070000d\n", 0);
	for (int i = 0; i < 30000; i++)
		fprintf(f, "%d 1.000000 2.000000 3 4 5 6.000 7 8 9 10.000\n", i);
	fprintf(f, "# %0200000d\n", 0);
	expect(!fclose(f), "fclose: %s", strerror(errno));
	w = new_writer(DIR_NAME, 0, 0, 0);
	err = logwriter_last_position(w, &pos);
	expect(!err && pos.load_id == 0x1234 && pos.next_seq == 30000,
		   "last_position %d: %" PRIx64 " %" PRIu64, err, pos.load_id, pos.next_seq);
	logwriter_free(w);
}

static void test_resume(void)
{
	struct log_position pos;
	struct logwriter *w;
	struct lines l;
	struct seqs s;
	size_t headers = 0;

	make_dir(DIR_NAME);
	w = new_writer(DIR_NAME, 0, 0, 2);
	logwriter_set_stream(w, &stream_a);
	expect(!logwriter_open(w, 10), "open failed");
	add_samples(w, 0, 10);
	flush_ok(w, 10);
	logwriter_free(w);

	w = new_writer(DIR_NAME, 0, 0, 2);
	expect(!logwriter_last_position(w, &pos) && pos.next_seq == 10 &&
		   pos.load_id == stream_a.load_id, "last_position wrong");
	expect(!logwriter_open(w, 20), "reopen failed");
	logwriter_set_stream(w, &stream_a);
	add_samples(w, pos.next_seq, 20);
	flush_ok(w, 20);
	logwriter_free(w);

	collect(DIR_NAME, 2, &s);
	expect(s.files == 1, "%u files", s.files);
	check_seqs(&s, 0, 19);
	l = read_lines(PATH(LOGFORMAT_FILE));
	expect(check_header(&l, "log") == 10, "created changed: %s", l.line[1]);
	for (size_t i = 0; i < l.n; i++)
		headers += !strcmp(l.line[i], "# pfprof log format 3");
	expect(headers == 1, "%zu headers", headers);
	free_lines(&l);
}

/* The writer never creates the directory; lines wait until it is there. */
static void test_missing_dir(void)
{
	struct logwriter *w = new_writer(DIR_NAME, 0, 0, 1);
	struct seqs s;
	int err;

	logwriter_set_stream(w, &stream_a);
	err = logwriter_open(w, 1);
	expect(err == -ENOENT, "open: %d", err);
	add_samples(w, 0, 50);
	for (int i = 0; i < 2; i++) {
		err = logwriter_flush(w, 2);
		expect(err == -ENOENT, "flush: %d", err);
		expect(logwriter_queued(w) == 51, "%zu queued", logwriter_queued(w));
	}
	expect(!exists(DIR_NAME), "the writer created the directory");
	make_dir(DIR_NAME);
	add_samples(w, 50, 60);
	flush_ok(w, 3);
	logwriter_free(w);
	collect(DIR_NAME, 1, &s);
	check_seqs(&s, 0, 59);
}

static void test_unwritable_dir(void)
{
	struct logwriter *w = new_writer(DIR_NAME, 0, 0, 1);
	struct seqs s;
	int err;

	private_mounts();
	mount_tmpfs(DIR_NAME, "size=1m");
	remount(DIR_NAME, MS_RDONLY);
	logwriter_set_stream(w, &stream_a);
	err = logwriter_open(w, 1);
	expect(err == -EROFS, "open: %d", err);
	add_samples(w, 0, 30);
	err = logwriter_flush(w, 2);
	expect(err == -EROFS, "flush: %d", err);
	expect(logwriter_queued(w) == 31, "%zu queued", logwriter_queued(w));
	remount(DIR_NAME, 0);
	flush_ok(w, 3);
	logwriter_free(w);
	collect(DIR_NAME, 1, &s);
	check_seqs(&s, 0, 29);
	unmount(DIR_NAME);
}

/*
 * The logs show every profiled process: 0640 and pfprof's group, whatever
 * the umask, the current file and the one rotation creates alike.
 */
static void test_private_mode(void)
{
	struct logwriter *w = new_writer(DIR_NAME, 1, 0, 2);

	umask(0);
	make_dir(DIR_NAME);
	logwriter_set_stream(w, &stream_a);
	add_samples(w, 0, 3);
	flush_ok(w, 1);
	unit_expect_mode(rotated(DIR_NAME, 0), 0640, true);
	unit_expect_mode(rotated(DIR_NAME, 1), 0640, true);
	logwriter_free(w);
}

/* A symbolic link planted at the log's path is refused, not written through. */
static void test_symlink_refused(void)
{
	struct logwriter *w = new_writer(DIR_NAME, 0, 0, 1);
	char *text;
	int err;

	make_dir(DIR_NAME);
	unit_write_file("victim", "kept\n");
	expect(!symlink("../victim", rotated(DIR_NAME, 0)), "symlink: %s", strerror(errno));
	expect(!symlink("../nothing", PATH("pfprof-procs.log")), "symlink: %s", strerror(errno));
	err = logwriter_open(w, 1);
	expect(err == -ELOOP, "open through a link: %s", strerror(-err));
	text = unit_read_file("victim");
	expect(!strcmp(text, "kept\n"), "the link's target was written: %s", text);
	free(text);
	logwriter_free(w);
	w = logwriter_new(DIR_NAME, LOGKIND_PROCS, &(struct logrotate_policy){ 0, 0, 1 });
	expect(w, "logwriter_new: %s", strerror(errno));
	err = logwriter_open(w, 1);
	expect(err == -ELOOP, "open through a dangling link: %s", strerror(-err));
	expect(!exists("nothing"), "a dangling link's target was created");
	logwriter_free(w);
}

/* An older version's 0644 log, or one of another group, is set right when reopened. */
static void test_old_file_tightened(void)
{
	struct logwriter *w = new_writer(DIR_NAME, 0, 0, 1);
	int fd;

	make_dir(DIR_NAME);
	fd = open(rotated(DIR_NAME, 0), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
	expect(fd >= 0, "creating the old log: %s", strerror(errno));
	expect(!fchmod(fd, 0644), "fchmod: %s", strerror(errno));
	/* Root (the tests' guest and CI) can give it another group, as a root pfprofd did. */
	if (!geteuid())
		expect(!fchown(fd, -1, getegid() + 4242), "fchown: %s", strerror(errno));
	close(fd);
	logwriter_set_stream(w, &stream_a);
	add_samples(w, 0, 3);
	flush_ok(w, 1);
	unit_expect_mode(rotated(DIR_NAME, 0), 0640, true);
	logwriter_free(w);
}

/* Fills the file system with a file; returns its size. */
static size_t fill(const char *path)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	char block[4096] = { 0 };
	size_t total = 0, len = sizeof(block);

	expect(fd >= 0, "open %s: %s", path, strerror(errno));
	while (len) {
		ssize_t n = write(fd, block, len);

		if (n < 0) {
			expect(errno == ENOSPC, "filling: %s", strerror(errno));
			len /= 2;	/* down to single bytes for the last page */
			continue;
		}
		total += n;
	}
	close(fd);
	return total;
}

static void test_enospc(void)
{
	struct logwriter *w = new_writer(DIR_NAME, 0, 0, 1);
	char *text;
	struct seqs s;
	size_t written, len;
	int err;

	private_mounts();
	mount_tmpfs(DIR_NAME, "size=64k");
	logwriter_set_stream(w, &stream_a);
	expect(!logwriter_open(w, 1), "open failed");
	expect(fill(PATH("filler")) > 0, "could not fill the file system");
	add_samples(w, 0, 200);
	for (int i = 0; i < 2; i++) {
		err = logwriter_flush(w, 2);
		expect(err == -ENOSPC, "flush on a full disk: %d", err);
	}
	text = unit_read_file(PATH(LOGFORMAT_FILE));
	len = strlen(text);
	expect(len && text[len - 1] == '\n', "the log ends in a torn line");
	free(text);
	collect(DIR_NAME, 1, &s);
	written = s.n;
	expect(written > 0 && written < 200, "%zu samples written to a full disk", written);
	check_seqs(&s, 0, written - 1);
	expect(logwriter_queued(w) == 200 - written, "%zu queued, %zu written",
		   logwriter_queued(w), written);

	expect(!unlink(PATH("filler")), "unlink: %s", strerror(errno));
	flush_ok(w, 3);
	logwriter_free(w);
	collect(DIR_NAME, 1, &s);
	check_seqs(&s, 0, 199);
	unmount(DIR_NAME);
}

static void test_queue_full(void)
{
	struct mp3_ring_sample smp = sample_of(0);
	struct log_context context = context_of(0);
	struct logwriter *w = new_writer(DIR_NAME, 0, 0, 0);
	struct lines l;
	char b[128];

	logwriter_set_stream(w, &stream_a);
	expect(logwriter_queued(w) == 1, "%zu queued", logwriter_queued(w));
	for (size_t i = 1; i < LOGQUEUE_MAX; i++)
		expect(logwriter_add_sample(w, &smp, 0, &context), "add %zu failed", i);
	expect(!logwriter_add_sample(w, &smp, 0, &context), "add past the limit succeeded");
	expect(!logwriter_add_missed(w, 1, 1), "add_missed past the limit succeeded");
	expect(logwriter_queued(w) == LOGQUEUE_MAX, "%zu queued", logwriter_queued(w));
	/* A stream set now waits for room, and counts as queued. */
	logwriter_set_stream(w, &stream_b);
	expect(logwriter_queued(w) == LOGQUEUE_MAX + 1, "%zu queued",
		   logwriter_queued(w));
	make_dir(DIR_NAME);
	flush_ok(w, 1);
	expect(logwriter_add_sample(w, &smp, 0, &context), "add after flush failed");
	flush_ok(w, 1);
	logwriter_free(w);

	l = read_lines(PATH(LOGFORMAT_FILE));
	format_stream(b, sizeof(b), &stream_b);
	expect(l.n == 4 + LOGQUEUE_MAX + 2, "%zu lines", l.n);
	expect(!strcmp(l.line[l.n - 2], b), "line before the last: %s", l.line[l.n - 2]);
	free_lines(&l);
}

/*
 * With the current file and .1 to .3 as in before (NULL: missing), writes
 * sample 40 through a writer with keep = 3 and a 10-byte rotate_size, so
 * that it rotates once, and checks .1 to .3 against after.
 */
static void rotate_once(const char *const before[4], const char *const after[4])
{
	struct logwriter *w;

	make_dir(DIR_NAME);
	for (unsigned int n = 0; n < 4; n++)
		if (before[n])
			unit_write_file(rotated(DIR_NAME, n), before[n]);
	w = new_writer(DIR_NAME, 10, 0, 3);
	logwriter_set_stream(w, &stream_a);
	add_samples(w, 40, 41);
	flush_ok(w, 50);
	logwriter_free(w);
	for (unsigned int n = 1; n < 4; n++) {
		char *text;

		if (!after[n]) {
			expect(!exists(rotated(DIR_NAME, n)), ".%u exists", n);
			continue;
		}
		text = unit_read_file(rotated(DIR_NAME, n));
		expect(!strcmp(text, after[n]), ".%u holds %s", n, text);
		free(text);
	}
}

/* The crash came after the shifts, before the current file became .1. */
static void test_rotation_gap_at_first(void)
{
	static const char *const before[4] = {
		"# load_id 00000000000000aa hz 1 period_ns 1\n30 x\n",
		NULL,
		"# load_id 00000000000000aa hz 1 period_ns 1\n20 x\n",
		"# load_id 00000000000000aa hz 1 period_ns 1\n10 x\n",
	};
	static const char *const after[4] = { NULL, before[0], before[2], before[3] };

	rotate_once(before, after);
}

/*
 * A crash between the renames of a rotation left a gap; the next rotation
 * fills it and leaves the older file above it where it is.
 */
static void test_rotation_after_crash(void)
{
	static const char *const before[4] = {
		"# load_id 00000000000000aa hz 1 period_ns 1\n30 x\n",
		"# load_id 00000000000000aa hz 1 period_ns 1\n20 x\n",
		NULL,
		"# load_id 00000000000000aa hz 1 period_ns 1\n0 x\n",
	};
	static const char *const after[4] = { NULL, before[0], before[1], before[3] };
	struct logwriter *w;
	struct lines l;

	rotate_once(before, after);
	l = read_lines(PATH(LOGFORMAT_FILE));
	check_header(&l, "log");
	expect(l.n == 6 && check_sample_line(l.line[5]) == 40, "%zu lines", l.n);
	free_lines(&l);

	/* The crash came right after the current file became .1: a new one is started. */
	for (unsigned int n = 3; n > 0; n--) {
		char from[256];

		snprintf(from, sizeof(from), "%s", rotated(DIR_NAME, n - 1));
		expect(!rename(from, rotated(DIR_NAME, n)), "rename %s: %s", from,
			   strerror(errno));
	}
	w = new_writer(DIR_NAME, 10, 0, 3);
	logwriter_set_stream(w, &stream_a);
	add_samples(w, 41, 42);
	flush_ok(w, 50);
	logwriter_free(w);
	l = read_lines(PATH(LOGFORMAT_FILE));
	check_header(&l, "log");
	expect(l.n == 6 && check_sample_line(l.line[5]) == 41, "%zu lines", l.n);
	free_lines(&l);
	l = read_lines(rotated(DIR_NAME, 1));
	expect(l.n == 6 && check_sample_line(l.line[5]) == 40, ".1: %zu lines", l.n);
	free_lines(&l);
}

/* Adds samples [from, to) with a missed marker after each 50th, flushing after each if asked. */
static void add_with_gaps(struct logwriter *w, uint64_t from, uint64_t to, bool flush_each)
{
	for (uint64_t seq = from; seq < to; seq++) {
		add_samples(w, seq, seq + 1);
		if (seq % 50 == 49)
			expect(logwriter_add_missed(w, seq + 1000, 3), "add_missed failed");
		if (flush_each)
			flush_ok(w, 5);
	}
}

/* Lines written many per write() land exactly where one per write() would. */
static void test_batched_equals_single(void)
{
	struct logwriter *single = new_writer("single", 1024, 0, 100);
	struct logwriter *batched = new_writer("batched", 1024, 0, 100);
	unsigned int files = 0;

	make_dir("single");
	make_dir("batched");
	logwriter_set_stream(single, &stream_a);
	logwriter_set_stream(batched, &stream_a);
	add_with_gaps(single, 0, 300, true);
	add_with_gaps(batched, 0, 300, false);
	flush_ok(batched, 5);
	logwriter_free(single);
	logwriter_free(batched);
	for (unsigned int i = 0; access(rotated("single", i), F_OK) == 0; i++, files++) {
		char *a = unit_read_file(rotated("single", i));
		char *b = access(rotated("batched", i), F_OK) ? NULL : unit_read_file(rotated("batched", i));

		expect(b && !strcmp(a, b), "file %u differs", i);
		free(a);
		free(b);
	}
	expect(files > 5, "only %u files: rotation was not exercised", files);
	expect(access(rotated("batched", files), F_OK), "batched has more files than %u", files);
}

UNIT_TESTS(
	UNIT_TEST(file_names),
	UNIT_TEST(format),
	UNIT_TEST(procs_log),
	UNIT_TEST(faults_log),
	UNIT_TEST(faults_queued_at_free),
	UNIT_TEST(pages_log),
	UNIT_TEST(parse_fault),
	UNIT_TEST(parse_fault_formats),
	UNIT_TEST(set_fault_time),
	UNIT_TEST(missed),
	UNIT_TEST(stream_change),
	UNIT_TEST(size_rotation),
	UNIT_TEST(size_rotation_boundary),
	UNIT_TEST(age_rotation),
	UNIT_TEST(age_from_mtime),
	UNIT_TEST(torn_tail),
	UNIT_TEST(last_position),
	UNIT_TEST(last_position_large_file),
	UNIT_TEST(resume),
	UNIT_TEST(missing_dir),
	UNIT_TEST(unwritable_dir),
	UNIT_TEST(enospc),
	UNIT_TEST(queue_full),
	UNIT_TEST(rotation_after_crash),
	UNIT_TEST(rotation_gap_at_first),
	UNIT_TEST(batched_equals_single),
	UNIT_TEST(private_mode),
	UNIT_TEST(symlink_refused),
	UNIT_TEST(old_file_tightened),
);
