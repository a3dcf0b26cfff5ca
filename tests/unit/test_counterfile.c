// SPDX-License-Identifier: GPL-2.0
/* daemon/counterfile: pfprofd's counters saved in its state directory and read back at start. */
#include <errno.h>
#include <inttypes.h>
#include <string.h>
#include <sys/stat.h>

#include "counterfile.h"
#include "expect_counters.h"

static struct proc_entry *entry(struct counters *c, pid_t tgid)
{
	return proctable_find_or_add(&c->procs, tgid);
}

static void expect_same_process(struct counters *a, struct counters *b, pid_t tgid)
{
	struct proc_entry *x = entry(a, tgid), *y = entry(b, tgid);

	expect(x->minor == y->minor && x->major == y->major && x->cpu_ns == y->cpu_ns &&
	       !strcmp(x->comm, y->comm) && x->placed == y->placed &&
	       !memcmp(x->major_in, y->major_in, sizeof(x->major_in)) &&
	       !memcmp(x->stall_us, y->stall_us, sizeof(x->stall_us)) &&
	       (x->marks & SERIES_STALLS) == (y->marks & SERIES_STALLS), "process %d: %llu %llu %llu %s, read back %llu %llu %llu %s",
	       (int)tgid, (unsigned long long)x->minor, (unsigned long long)x->major,
	       (unsigned long long)x->cpu_ns, x->comm, (unsigned long long)y->minor,
	       (unsigned long long)y->major, (unsigned long long)y->cpu_ns, y->comm);
}

/* A restart: the next pfprofd counts on from exactly what the last one saved. */
static void test_round_trip(void)
{
	struct mp3_ring_sample s = { .minor_faults = 70, .major_faults = 3, .cpu_ns = 2500000001ULL };
	static const uint32_t us[STALL_KINDS] = { 4000000000U, 2, 3, 4, 5 };
	struct counters before = { 0 }, after = { 0 };
	const struct target_total *t;
	int err;

	add_process(&before, 42, "with space", 7, 1, 1500000000ULL);
	add_target_process(&before, 43, "line\nbreak", 0x40000002U, 63, 2, 1000000001ULL);
	/* Registered with maps: its major faults by mapping too. */
	add_faults(&before, 43, MP3_MAPPING_HEAP, 5, 1);
	add_faults(&before, 43, MP3_MAPPING_FILE, 0, 2);
	add_faults(&before, 43, MP3_MAPPING_SHMEM, 0, 3);
	/* Its waits measured; 42's never were. */
	before.stalls_known = true;
	add_stalls(&before, 43, us);
	counters_add_sample(&before, &s, false);
	counters_add_lost(&before, 4);
	counters_set_sampler(&before, 0xab, 3000000, 60);
	counters_set_unfollowed(&before, 0xab, 3, 1);
	before.samples_written = 12;
	before.omitted = 9;
	/* The group pfprof's, as the logs (privfile.h), whatever the umask. */
	umask(0);
	err = counterfile_save(".", &before, true);
	expect(!err, "counterfile_save: %s", strerror(-err));
	unit_expect_mode(COUNTERFILE_NAME, 0640, true);
	err = counterfile_load(".", &after);
	expect(!err, "counterfile_load: %s", strerror(-err));
	expect(after.minor == before.minor && after.major == before.major &&
	       after.cpu_ns == before.cpu_ns && after.samples_written == 12 &&
	       after.samples_lost == 4 && after.omitted == 9, "totals differ after reading back");
	/* A line break in a name would end its line: it was saved as '_'. */
	strcpy(entry(&before, 43)->comm, "line_break");
	expect_same_process(&before, &after, 42);
	expect_same_process(&before, &after, 43);
	expect(after.procs.used == 2, "%zu processes read back", after.procs.used);
	expect_sampler(&after, 3000000, 60, "read back");
	expect(load_counter_total(&after.follow_skipped) == 3 &&
	       load_counter_total(&after.follow_missed) == 1 &&
	       after.follow_skipped.load_id == 0xab, "unfollowed read back: %" PRIu64 " %" PRIu64,
	       load_counter_total(&after.follow_skipped), load_counter_total(&after.follow_missed));
	/* Its target's totals too: they stay after its processes are gone. */
	expect(after.nr_targets == 1, "%zu targets read back", after.nr_targets);
	expect_target(&after, 0x40000002U, 63, 2, 1000000001ULL, "read back");
	t = counters_target(&after, 0x40000002U);
	expect(t->stalls, "the target's waits were not read back as measured");
	expect_stalls(t->stall_us, counters_target(&before, 0x40000002U)->stall_us,
		      "target read back");
	counters_free(&before);
	counters_free(&after);
}

/* After a restart and then a module reload, the sampler's counters only grow. */
static void test_then_reload(void)
{
	struct counters before = { 0 }, after = { 0 };

	counters_set_sampler(&before, 0x1, 500, 5);
	counters_set_sampler(&before, 0x2, 700, 7);
	expect(!counterfile_save(".", &before, false), "counterfile_save failed");
	expect(!counterfile_load(".", &after), "counterfile_load failed");
	/* The same load goes on: only what it added since counts. */
	counters_set_sampler(&after, 0x2, 1000, 10);
	expect_sampler(&after, 1500, 15, "the same load after a restart");
	/* A new load: all of its counts come on top. */
	counters_set_sampler(&after, 0x3, 40, 1);
	expect_sampler(&after, 1540, 16, "a new load after a restart");
}

static void test_skips_what_it_does_not_know(void)
{
	struct counters c = { 0 };

	unit_write_file(COUNTERFILE_NAME,
			"# a comment\n"
			"minor_faults\n"
			"major_faults x\n"
			"cpu_ns 1250000000\n"
			"process 0 5 0 0 zero\n"
			"process 7 5\n"
			"process 8 1 6 0 y\n"
			"target 0 1 2 3\n"
			"target 9 1\n"
			"target 10 4 5 6\n"
			"sampler_ns zz\n"
			"other_key 99\n");
	expect(!counterfile_load(".", &c), "counterfile_load failed");
	expect(c.minor == 0 && c.major == 0 && c.cpu_ns == 1250000000ULL, "read %llu %llu %llu",
	       (unsigned long long)c.minor, (unsigned long long)c.major,
	       (unsigned long long)c.cpu_ns);
	expect(c.procs.used == 1 && entry(&c, 8)->major == 6 && !strcmp(entry(&c, 8)->comm, "y"),
	       "%zu processes read, want only 8", c.procs.used);
	expect_sampler(&c, 0, 0, "a bad sampler line");
	expect(c.nr_targets == 1, "%zu targets read, want only 10", c.nr_targets);
	expect_target(&c, 10, 4, 5, 6, "the good target line");
	counters_free(&c);
}

/* A file saved before the waits: read as none measured yet, not as 0 measured. */
static void test_old_format(void)
{
	static const uint64_t none[STALL_KINDS] = { 0 };
	struct counters c = { 0 };

	unit_write_file(COUNTERFILE_NAME,
			"minor_faults 10\n"
			"process 8 1 6 0 y\n"
			"process_major_by_mapping 8 1 2 3\n"
			"target 10 4 5 6\n");
	expect(!counterfile_load(".", &c), "counterfile_load failed");
	expect(!(entry(&c, 8)->marks & SERIES_STALLS), "an old process marked measured");
	expect_stalls(entry(&c, 8)->stall_us, none, "an old process");
	expect(!counters_target(&c, 10)->stalls, "an old target marked measured");
	expect_stalls(counters_target(&c, 10)->stall_us, none, "an old target");
	counters_free(&c);
}

/* Waits lines that are not whole are skipped like other bad lines. */
static void test_bad_stalls_skipped(void)
{
	static const uint64_t want[STALL_KINDS] = { 1, 2, 3, 4, 5 };
	struct counters c = { 0 };

	unit_write_file(COUNTERFILE_NAME,
			"process_stalls 8 1 2 3 4\n"
			"process_stalls 0 1 2 3 4 5\n"
			"process_stalls -1 1 2 3 4 5\n"
			"process_stalls 9 1 2 3 4 5\n"
			"target_stalls 0 1 2 3 4 5\n"
			"target_stalls 10 1 2 x 4 5\n"
			"target_stalls 11 1 2 3 4 5\n");
	expect(!counterfile_load(".", &c), "counterfile_load failed");
	expect(c.procs.used == 1 && (entry(&c, 9)->marks & SERIES_STALLS),
	       "%zu processes read, want only 9", c.procs.used);
	expect_stalls(entry(&c, 9)->stall_us, want, "process 9");
	expect(c.nr_targets == 1 && counters_target(&c, 11)->stalls,
	       "%zu targets read, want only 11", c.nr_targets);
	expect_stalls(counters_target(&c, 11)->stall_us, want, "target 11");
	counters_free(&c);
}

/* An older version's 0644 file is replaced by a 0640 one. */
static void test_old_file_replaced(void)
{
	struct counters c = { 0 };

	unit_write_file(COUNTERFILE_NAME, "");
	expect(!chmod(COUNTERFILE_NAME, 0644), "chmod: %s", strerror(errno));
	expect(!counterfile_save(".", &c, false), "counterfile_save failed");
	unit_expect_mode(COUNTERFILE_NAME, 0640, true);
}

static void test_missing(void)
{
	struct counters c = { 0 };

	expect(counterfile_load("missing", &c) == -ENOENT, "a missing directory is not -ENOENT");
	expect(counterfile_load(".", &c) == -ENOENT, "a missing file is not -ENOENT");
	expect(counterfile_save("missing", &c, false) == -ENOENT,
	       "saving into a missing directory is not -ENOENT");
}

/* A target's durations, both kinds, and the faults not timed, as they were saved. */
static void test_latency_round_trip(void)
{
	struct counters before = { 0 }, after = { 0 };
	const struct target_total *t;

	add_target_process(&before, 43, "db", 0x40000002U, 63, 2, 1);
	add_target_process(&before, 44, "untimed", 7, 1, 0, 0);
	add_latency(&before, 43, LATENCY_MINOR, 0, 5, 2000);
	add_latency(&before, 43, LATENCY_MAJOR, MP3_LATENCY_BUCKETS - 1, 1, 9000000000ULL);
	counters_set_latency_missed(&before, 0xab, 12);
	expect(!counterfile_save(".", &before, false), "counterfile_save failed");
	expect(!counterfile_load(".", &after), "counterfile_load failed");
	t = counters_target(&after, 0x40000002U);
	expect(t->timed && !memcmp(t->latency, counters_target(&before, 0x40000002U)->latency,
				   sizeof(t->latency)), "the durations not read back as saved");
	expect(!counters_target(&after, 7)->timed, "a target without durations read back timed");
	expect(load_counter_total(&after.latency_missed) == 12 &&
	       after.latency_missed.load_id == 0xab, "faults not timed: %" PRIu64,
	       load_counter_total(&after.latency_missed));
	counters_free(&before);
	counters_free(&after);
}

/* Durations lines not whole, or of a kind not known, are skipped: their target has none. */
static void test_bad_latency_skipped(void)
{
	static const char buckets[] = " 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23";
	char text[1024];
	struct counters c = { 0 };

	snprintf(text, sizeof(text),
		 "target 12 1 1 1\n"
		 "target_latency 10 minor 5%s\n"
		 "target_latency 0 minor 5%s 24\n"
		 "target_latency 10 huge 5%s 24\n"
		 "target_latency 11 major 5%s 24\n", buckets, buckets, buckets, buckets);
	unit_write_file(COUNTERFILE_NAME, text);
	expect(!counterfile_load(".", &c), "counterfile_load failed");
	expect(c.nr_targets == 2 && !counters_target(&c, 12)->timed &&
	       counters_target(&c, 11)->timed, "%zu targets read, want 12 untimed and 11 timed",
	       c.nr_targets);
	expect(counters_target(&c, 11)->latency[LATENCY_MAJOR].faults[23] == 24 &&
	       counters_target(&c, 11)->latency[LATENCY_MAJOR].time_ns == 5 &&
	       latency_count(&counters_target(&c, 11)->latency[LATENCY_MAJOR]) == 300,
	       "target 11's major faults not read whole");
	counters_free(&c);
}

UNIT_TESTS(UNIT_TEST(round_trip), UNIT_TEST(then_reload),
	   UNIT_TEST(skips_what_it_does_not_know), UNIT_TEST(old_format),
	   UNIT_TEST(bad_stalls_skipped), UNIT_TEST(old_file_replaced),
	   UNIT_TEST(missing), UNIT_TEST(latency_round_trip), UNIT_TEST(bad_latency_skipped));
