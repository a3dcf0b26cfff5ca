// SPDX-License-Identifier: GPL-2.0
/* pfprofctl/where/data: the faults logs added up per mapping for pfprofctl where. */
#include <string.h>
#include <sys/stat.h>

#include <linux/mp3.h>

#include "unit.h"
#include "where/data.h"

#define HEADER "# pfprof faults log format 1\n# created 1\n# columns: ...\n# units: ...\n" \
	"# load_id 0123456789abcdef hz 250 period_ns 50000000\n"

/* The rotated file and the current one, newest first, down to since; rows added up. */
static void test_read_logs(void)
{
	struct where_table t = { .pid = 42 };
	int err;

	mkdir("logs", 0755);
	unit_write_file("logs/pfprof-faults.log.1", HEADER
		"1\t100.000000\t42\told\t0\tanon\t5000\t4096\t0\t10\t0\t[anon]\n"
		"2\t200.000000\t42\told\t0\theap\t9000\t-\t0\t5\t1\t[heap]\n");
	unit_write_file("logs/pfprof-faults.log", HEADER
		"3\t300.000000\t42\tnew\t0\tanon\t5000\t8192\t0\t1\t2\t[anon:x]\n"
		"3\t300.000000\t43\tother\t0\tanon\t5000\t8192\t0\t99\t99\t[anon]\n"
		"# lost 1 records of sample 3\n"
		"4\t400.000000\t42\tnew\t0\tfile\t7000\t4096\t12\t0\t7\t/lib/x.so\n");
	err = where_read_logs(&t, "logs", 3, 0);
	expect(!err, "where_read_logs: %d", err);
	where_sort(&t);
	expect(t.lines == 4 && t.count == 3 && t.minor == 16 && t.major == 10 &&
	       !strcmp(t.comm, "new") && t.first_s == 100.0 && t.last_s == 400.0,
	       "%llu lines, %zu rows, %llu minor, %llu major, comm %s, %g..%g",
	       (unsigned long long)t.lines, t.count, (unsigned long long)t.minor,
	       (unsigned long long)t.major, t.comm, t.first_s, t.last_s);
	expect(t.count == 3 && !strcmp(t.rows[0].name, "/lib/x.so") && t.rows[0].major == 7 &&
	       t.rows[1].mapping == MP3_MAPPING_ANON && t.rows[1].major == 2 &&
	       t.rows[1].minor == 11 && t.rows[1].size == 8192 &&
	       !strcmp(t.rows[1].name, "[anon:x]") && t.rows[2].mapping == MP3_MAPPING_HEAP,
	       "rows wrong or out of order");
	where_table_free(&t);

	/* Since 250 s: the rotated file is not needed, its lines not counted. */
	t = (struct where_table){ .pid = 42 };
	expect(!where_read_logs(&t, "logs", 3, 250.0) && t.lines == 2 && t.minor == 1 &&
	       t.major == 9 && t.first_s == 300.0, "since 250: %llu lines",
	       (unsigned long long)t.lines);
	where_table_free(&t);

	/* No logs at all: nothing, no error. */
	t = (struct where_table){ .pid = 42 };
	expect(!where_read_logs(&t, "none", 3, 0) && !t.lines, "a missing directory");
	where_table_free(&t);
}

/* A target's lines: a mapping of one kind and name in one row over its processes. */
static void test_target_rows(void)
{
	struct where_table t = { .target = 1234 };

	mkdir("tlogs", 0755);
	unit_write_file("tlogs/pfprof-faults.log", HEADER
		"1\t100.000000\t42\tw\t1234\tfile\t7000\t4096\t12\t3\t1\t/lib/x.so\n"
		"1\t100.000000\t43\tw\t1234\tfile\t9000\t8192\t12\t4\t2\t/lib/x.so\n"
		"1\t100.000000\t43\tw\t1234\tanon\t5000\t8192\t0\t9\t0\t[anon]\n"
		"2\t150.000000\t44\tw\t1234\tanon\t6000\t4096\t0\t1\t0\t[anon]\n"
		"2\t150.000000\t45\tx\t99\tfile\t7000\t4096\t12\t50\t50\t/lib/x.so\n"
		"2\t150.000000\t43\tw\t1234\tfile\t9000\t8192\t13\t0\t5\t/data\n");
	expect(!where_read_logs(&t, "tlogs", 3, 0), "where_read_logs failed");
	where_sort(&t);
	expect(t.lines == 5 && t.count == 3 && t.nr_pids == 3 && t.minor == 17 && t.major == 8,
	       "%llu lines, %zu rows, %zu processes, %llu minor, %llu major",
	       (unsigned long long)t.lines, t.count, t.nr_pids, (unsigned long long)t.minor,
	       (unsigned long long)t.major);
	expect(t.count == 3 && !strcmp(t.rows[0].name, "/data") && t.rows[0].major == 5 &&
	       !strcmp(t.rows[1].name, "/lib/x.so") && t.rows[1].minor == 7 &&
	       t.rows[1].major == 3 && !t.rows[1].start && !t.rows[1].size &&
	       t.rows[2].mapping == MP3_MAPPING_ANON && t.rows[2].minor == 10,
	       "a target's rows wrong or out of order");
	where_table_free(&t);
}

/* A gap a crash during rotation left (no .1): the older file is read all the same. */
static void test_read_past_gap(void)
{
	struct where_table t = { .pid = 42 };

	mkdir("glogs", 0755);
	unit_write_file("glogs/pfprof-faults.log.2", HEADER
		"1\t100.000000\t42\tw\t0\tanon\t5000\t4096\t0\t10\t0\t[anon]\n");
	unit_write_file("glogs/pfprof-faults.log", HEADER
		"3\t300.000000\t42\tw\t0\tanon\t5000\t4096\t0\t1\t0\t[anon]\n");
	expect(!where_read_logs(&t, "glogs", 3, 0), "where_read_logs failed");
	expect(t.lines == 2 && t.minor == 11 && t.first_s == 100.0,
	       "%llu lines, %llu minor, from %g: the file past the gap unread",
	       (unsigned long long)t.lines, (unsigned long long)t.minor, t.first_s);
	where_table_free(&t);
}

#define HEADER_2 "# pfprof faults log format 2\n# created 1\n# columns: ...\n# units: ...\n" \
	"# load_id 0123456789abcdef hz 250 period_ns 50000000\n"

/* Whether a row's (or the table's) time of one kind is what is wanted: null is unknown. */
static bool time_is(const struct where_time *w, bool known, uint64_t ns, uint64_t faults)
{
	return w->known == known && w->ns == ns && w->faults == faults;
}

/*
 * The time per mapping: of the lines that know it, a format 1 file's
 * (rotated, from before an upgrade) knowing none; a kind unknown in a line
 * leaves that line's faults of it out of the time and of the mean's divisor.
 */
static void test_times(void)
{
	static const struct {
		const char *name;
		bool minor_known, major_known;
		uint64_t minor_ns, minor_faults, major_ns, major_faults;	/* timed */
		bool total_known;
		uint64_t total_ns, total_faults;
	} want[] = {
		/* Old lines, new lines of a process not timed: unknown. */
		{ "[stack]", false, false, 0, 0, 0, 0, false, 0, 0 },
		/* Old and new lines: the new ones' time. */
		{ "[anon]", true, true, 12345, 10, 0, 0, true, 12345, 10 },
		/* A major fault whose time was not joined: left out. */
		{ "[heap]", true, false, 3000, 3, 0, 0, true, 3000, 3 },
		{ "/lib/x.so", true, true, 41000, 30, 18250000, 4, true, 18291000, 34 },
	};
	struct where_table t = { .pid = 42 };

	mkdir("times", 0755);
	unit_write_file("times/pfprof-faults.log.1", HEADER
		"1\t100.000000\t42\tw\t0\tanon\t5000\t4096\t0\t10\t0\t[anon]\n"
		"1\t100.000000\t42\tw\t0\tstack\t8000\t4096\t0\t1\t0\t[stack]\n");
	unit_write_file("times/pfprof-faults.log", HEADER_2
		"2\t200.000000\t42\tw\t0\tanon\t5000\t4096\t0\t10\t0\t[anon]\t0.012345\t0.000000\n"
		"2\t200.000000\t42\tw\t0\tstack\t8000\t4096\t0\t2\t0\t[stack]\t-\t-\n"
		"2\t200.000000\t42\tw\t0\tfile\t7000\t8192\t12\t30\t4\t/lib/x.so\t0.041000"
		"\t18.250000\n"
		"2\t200.000000\t42\tw\t0\theap\t9000\t8192\t0\t3\t1\t[heap]\t0.003000\t-\n");
	expect(!where_read_logs(&t, "times", 3, 0) && t.lines == 6 && t.count == 4,
	       "%llu lines, %zu rows", (unsigned long long)t.lines, t.count);
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		const struct where_row *r = NULL;
		uint64_t ns, faults;
		bool known;

		for (size_t j = 0; j < t.count; j++)
			if (!strcmp(t.rows[j].name, want[i].name))
				r = &t.rows[j];
		expect(r, "no row %s", want[i].name);
		if (!r)
			continue;
		known = where_time_total(r->time, &ns, &faults);
		expect(time_is(&r->time[LATENCY_MINOR], want[i].minor_known, want[i].minor_ns,
			       want[i].minor_faults) &&
		       time_is(&r->time[LATENCY_MAJOR], want[i].major_known, want[i].major_ns,
			       want[i].major_faults) &&
		       known == want[i].total_known && ns == want[i].total_ns &&
		       faults == want[i].total_faults,
		       "%s: minor %d %llu ns of %llu, major %d %llu ns of %llu", want[i].name,
		       r->time[LATENCY_MINOR].known, (unsigned long long)r->time[LATENCY_MINOR].ns,
		       (unsigned long long)r->time[LATENCY_MINOR].faults,
		       r->time[LATENCY_MAJOR].known, (unsigned long long)r->time[LATENCY_MAJOR].ns,
		       (unsigned long long)r->time[LATENCY_MAJOR].faults);
	}
	expect(time_is(&t.time[LATENCY_MINOR], true, 56345, 43) &&
	       time_is(&t.time[LATENCY_MAJOR], true, 18250000, 4), "the table's time");
	where_table_free(&t);

	/* Only a format 1 log: no time known anywhere. */
	mkdir("old", 0755);
	unit_write_file("old/pfprof-faults.log", HEADER
		"1\t100.000000\t42\tw\t0\tanon\t5000\t4096\t0\t10\t0\t[anon]\n"
		"2\t200.000000\t42\tw\t0\tfile\t7000\t8192\t12\t30\t4\t/lib/x.so\n");
	t = (struct where_table){ .pid = 42 };
	expect(!where_read_logs(&t, "old", 3, 0) && t.lines == 2 && t.count == 2 &&
	       !t.time[LATENCY_MINOR].known && !t.time[LATENCY_MAJOR].known,
	       "format 1 logs: a time known");
	for (size_t j = 0; j < t.count; j++)
		expect(!t.rows[j].time[LATENCY_MINOR].known &&
		       !t.rows[j].time[LATENCY_MAJOR].known, "row %s: a time known",
		       t.rows[j].name);
	where_table_free(&t);
}

UNIT_TESTS(UNIT_TEST(read_logs), UNIT_TEST(target_rows), UNIT_TEST(read_past_gap),
	   UNIT_TEST(times));
