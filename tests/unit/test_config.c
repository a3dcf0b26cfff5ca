// SPDX-License-Identifier: GPL-2.0
#include "unit.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "config.h"

#define CONF "pfprofd.conf"

/* Writes text to CONF and loads it; the load itself must succeed. */
static void load_text(const char *text, struct pfprof_config *config, struct unit_reports *reports)
{
	int err;

	unit_write_file(CONF, text);
	memset(reports, 0, sizeof(*reports));
	err = config_load(config, CONF, unit_record_report, reports);
	expect(err == 0, "config_load returned %d for:\n%s", err, text);
}

static void check_no_reports(const struct unit_reports *reports)
{
	expect(reports->count == 0, "unexpected report, line %u: %s", reports->r[0].line,
		   reports->r[0].message);
}

static void check_report(const struct unit_reports *reports, size_t i, unsigned int line,
			 const char *message)
{
	const struct unit_report *r = &reports->r[i];

	expect(i < reports->count, "report %zu missing (want line %u: %s)", i, line, message);
	expect(!strcmp(r->file, CONF), "report %zu names file '%s'", i, r->file);
	expect(r->line == line, "report %zu on line %u, want %u (%s)", i, r->line, line,
		   r->message);
	expect(!strcmp(r->message, message), "report %zu is '%s', want '%s'", i, r->message,
		   message);
}

static void check_same_config(const struct pfprof_config *got, const struct pfprof_config *want)
{
	expect(!strcmp(got->log_dir, want->log_dir), "log_dir '%s', want '%s'", got->log_dir,
		   want->log_dir);
	expect(got->rotate_size == want->rotate_size, "rotate_size %" PRIu64 ", want %" PRIu64,
		   got->rotate_size, want->rotate_size);
	expect(got->rotate_age_s == want->rotate_age_s, "rotate_age %" PRIu64 ", want %" PRIu64,
		   got->rotate_age_s, want->rotate_age_s);
	expect(got->keep == want->keep, "keep %u, want %u", got->keep, want->keep);
	expect(got->write_interval_s == want->write_interval_s,
		   "write_interval %" PRIu64 ", want %" PRIu64, got->write_interval_s,
		   want->write_interval_s);
	expect(!strcmp(got->targets_file, want->targets_file), "targets_file '%s', want '%s'",
		   got->targets_file, want->targets_file);
	expect(!strcmp(got->device, want->device), "device '%s', want '%s'", got->device,
		   want->device);
	expect(!strcmp(got->status_file, want->status_file), "status_file '%s', want '%s'",
		   got->status_file, want->status_file);
	expect(!strcmp(got->runtime_dir, want->runtime_dir), "runtime_dir '%s', want '%s'",
		   got->runtime_dir, want->runtime_dir);
	expect(!strcmp(got->state_dir, want->state_dir), "state_dir '%s', want '%s'",
		   got->state_dir, want->state_dir);
	expect(!strcmp(got->prometheus_dir, want->prometheus_dir),
		   "prometheus_dir '%s', want '%s'", got->prometheus_dir, want->prometheus_dir);
	expect(got->prometheus_interval_s == want->prometheus_interval_s,
		   "prometheus_interval %" PRIu64 ", want %" PRIu64, got->prometheus_interval_s,
		   want->prometheus_interval_s);
	expect(got->prometheus_max_processes == want->prometheus_max_processes,
		   "prometheus_max_processes %u, want %u", got->prometheus_max_processes,
		   want->prometheus_max_processes);
	expect(got->delay_accounting == want->delay_accounting, "delay_accounting %d, want %d",
	       got->delay_accounting, want->delay_accounting);
}

/* The documented defaults, spelled out rather than taken from config_defaults(). */
static void expected_defaults(struct pfprof_config *config)
{
	memset(config, 0, sizeof(*config));
	strcpy(config->log_dir, "/var/log/pfprof");
	config->rotate_size = 16 * 1024 * 1024;
	config->rotate_age_s = 86400;
	config->keep = 10;
	config->write_interval_s = 1;
	strcpy(config->targets_file, "/var/lib/pfprof/pids");
	strcpy(config->device, "/dev/mp3");
	strcpy(config->status_file, "/proc/mp3/status");
	strcpy(config->runtime_dir, "/run/pfprofd");
	strcpy(config->state_dir, "/var/lib/pfprof");
	strcpy(config->prometheus_dir, "/var/lib/prometheus/node-exporter");
	config->prometheus_interval_s = 5;
	config->prometheus_max_processes = 100;
	config->delay_accounting = true;
}

/* Fills config with values no file or default would give. */
static void scribble(struct pfprof_config *config)
{
	memset(config, 'x', sizeof(*config));
	config->log_dir[PATH_MAX - 1] = '\0';
	config->targets_file[PATH_MAX - 1] = '\0';
	config->device[PATH_MAX - 1] = '\0';
	config->status_file[PATH_MAX - 1] = '\0';
	config->runtime_dir[PATH_MAX - 1] = '\0';
	config->state_dir[PATH_MAX - 1] = '\0';
	config->prometheus_dir[PATH_MAX - 1] = '\0';
}

static void test_defaults(void)
{
	struct pfprof_config got, want;

	scribble(&got);
	config_defaults(&got);
	expected_defaults(&want);
	check_same_config(&got, &want);
}

static void test_missing_file(void)
{
	struct pfprof_config got, want;
	struct unit_reports reports = { 0 };
	int err;

	scribble(&got);
	err = config_load(&got, "no-such.conf", unit_record_report, &reports);
	expect(err == -ENOENT, "config_load returned %d, want %d", err, -ENOENT);
	expected_defaults(&want);
	check_same_config(&got, &want);
	check_no_reports(&reports);
}

static void test_unreadable_file(void)
{
	struct pfprof_config got, want;
	int err;

	/* A directory opens but cannot be read: the read error must come back. */
	expect(mkdir("dir.conf", 0755) == 0, "mkdir failed");
	scribble(&got);
	err = config_load(&got, "dir.conf", unit_record_report, NULL);
	expect(err == -EISDIR, "config_load returned %d, want %d", err, -EISDIR);
	expected_defaults(&want);
	check_same_config(&got, &want);
}

static void test_empty_file(void)
{
	struct pfprof_config got, want;
	struct unit_reports reports;

	scribble(&got);
	load_text("", &got, &reports);
	expected_defaults(&want);
	check_same_config(&got, &want);
	check_no_reports(&reports);
}

static void test_comments_and_blank_lines(void)
{
	struct pfprof_config got, want;
	struct unit_reports reports;

	load_text("# keep = 3\n\n   \t\n\t# rotate_size = 1K\n#\nkeep = 4\n", &got, &reports);
	expected_defaults(&want);
	want.keep = 4;
	check_same_config(&got, &want);
	check_no_reports(&reports);
}

enum field {
	LOG_DIR, ROTATE_SIZE, ROTATE_AGE, KEEP, WRITE_INTERVAL, TARGETS_FILE, DEVICE, STATUS_FILE,
	RUNTIME_DIR, STATE_DIR, PROMETHEUS_DIR, PROMETHEUS_INTERVAL, PROMETHEUS_MAX_PROCESSES,
	DELAY_ACCOUNTING
};

static void set_field(struct pfprof_config *config, enum field field, uint64_t number,
		      const char *path)
{
	switch (field) {
	case LOG_DIR:
		strcpy(config->log_dir, path);
		break;
	case ROTATE_SIZE:
		config->rotate_size = number;
		break;
	case ROTATE_AGE:
		config->rotate_age_s = number;
		break;
	case KEEP:
		config->keep = number;
		break;
	case WRITE_INTERVAL:
		config->write_interval_s = number;
		break;
	case TARGETS_FILE:
		strcpy(config->targets_file, path);
		break;
	case DEVICE:
		strcpy(config->device, path);
		break;
	case STATUS_FILE:
		strcpy(config->status_file, path);
		break;
	case RUNTIME_DIR:
		strcpy(config->runtime_dir, path);
		break;
	case STATE_DIR:
		strcpy(config->state_dir, path);
		break;
	case PROMETHEUS_DIR:
		strcpy(config->prometheus_dir, path);
		break;
	case PROMETHEUS_INTERVAL:
		config->prometheus_interval_s = number;
		break;
	case PROMETHEUS_MAX_PROCESSES:
		config->prometheus_max_processes = number;
		break;
	case DELAY_ACCOUNTING:
		config->delay_accounting = number;
		break;
	}
}

static const struct good_case {
	const char *text;
	enum field field;
	uint64_t number;
	const char *path;
} good_cases[] = {
	{ "log_dir = /srv/logs\n", LOG_DIR, 0, "/srv/logs" },
	{ "log_dir = /\n", LOG_DIR, 0, "/" },
	{ "log_dir = /a#b\n", LOG_DIR, 0, "/a#b" },
	{ "log_dir = /with space/x\n", LOG_DIR, 0, "/with space/x" },
	{ "rotate_size = 0\n", ROTATE_SIZE, 0, NULL },
	{ "rotate_size = 1234\n", ROTATE_SIZE, 1234, NULL },
	{ "rotate_size = 5K\n", ROTATE_SIZE, 5 * 1024, NULL },
	{ "rotate_size = 7M\n", ROTATE_SIZE, 7 * 1024 * 1024, NULL },
	{ "rotate_size = 3G\n", ROTATE_SIZE, 3ULL << 30, NULL },
	{ "rotate_size = 0G\n", ROTATE_SIZE, 0, NULL },
	{ "rotate_size = 007K\n", ROTATE_SIZE, 7 * 1024, NULL },
	{ "rotate_size = 18446744073709551615\n", ROTATE_SIZE, UINT64_MAX, NULL },
	{ "rotate_size = 17179869183G\n", ROTATE_SIZE, 17179869183ULL << 30, NULL },
	{ "rotate_age = 0\n", ROTATE_AGE, 0, NULL },
	{ "rotate_age = 45\n", ROTATE_AGE, 45, NULL },
	{ "rotate_age = 45s\n", ROTATE_AGE, 45, NULL },
	{ "rotate_age = 10m\n", ROTATE_AGE, 600, NULL },
	{ "rotate_age = 2h\n", ROTATE_AGE, 7200, NULL },
	{ "rotate_age = 3d\n", ROTATE_AGE, 3 * 86400, NULL },
	{ "rotate_age = 213503982334601d\n", ROTATE_AGE, 213503982334601ULL * 86400, NULL },
	{ "keep = 0\n", KEEP, 0, NULL },
	{ "keep = 7\n", KEEP, 7, NULL },
	{ "keep = 1000\n", KEEP, 1000, NULL },
	{ "write_interval = 0\n", WRITE_INTERVAL, 0, NULL },
	{ "write_interval = 5s\n", WRITE_INTERVAL, 5, NULL },
	{ "write_interval = 2m\n", WRITE_INTERVAL, 120, NULL },
	{ "targets_file = /tmp/targets\n", TARGETS_FILE, 0, "/tmp/targets" },
	/* The older spelling of targets_file is still read; of the two, the last line wins. */
	{ "pid_file = /tmp/pids\n", TARGETS_FILE, 0, "/tmp/pids" },
	{ "pid_file = /tmp/pids\ntargets_file = /tmp/targets\n", TARGETS_FILE, 0, "/tmp/targets" },
	{ "targets_file = /tmp/targets\npid_file = /tmp/pids\n", TARGETS_FILE, 0, "/tmp/pids" },
	{ "device = /dev/mp3-test\n", DEVICE, 0, "/dev/mp3-test" },
	{ "status_file = /proc/other/status\n", STATUS_FILE, 0, "/proc/other/status" },
	{ "runtime_dir = /run/other\n", RUNTIME_DIR, 0, "/run/other" },
	{ "state_dir = /srv/pfprof\n", STATE_DIR, 0, "/srv/pfprof" },
	{ "prometheus_dir = /srv/textfiles\n", PROMETHEUS_DIR, 0, "/srv/textfiles" },
	/* Nothing turns the export off. */
	{ "prometheus_dir =\n", PROMETHEUS_DIR, 0, "" },
	{ "prometheus_dir = # off\n", PROMETHEUS_DIR, 0, "" },
	{ "prometheus_interval = 1\n", PROMETHEUS_INTERVAL, 1, NULL },
	{ "prometheus_interval = 15s\n", PROMETHEUS_INTERVAL, 15, NULL },
	{ "prometheus_interval = 1m\n", PROMETHEUS_INTERVAL, 60, NULL },
	{ "prometheus_max_processes = 0\n", PROMETHEUS_MAX_PROCESSES, 0, NULL },
	{ "prometheus_max_processes = 100000\n", PROMETHEUS_MAX_PROCESSES, 100000, NULL },
	{ "delay_accounting = on\n", DELAY_ACCOUNTING, 1, NULL },
	{ "delay_accounting = leave\n", DELAY_ACCOUNTING, 0, NULL },
	{ "delay_accounting = leave\ndelay_accounting = on\n", DELAY_ACCOUNTING, 1, NULL },
	/* Layout: white space, trailing comments, CRLF, no final newline. */
	{ "  \t keep\t=\t 3 \t\n", KEEP, 3, NULL },
	{ "keep=3\n", KEEP, 3, NULL },
	{ "keep = 4 # four\n", KEEP, 4, NULL },
	{ "keep = 4\t# four\n", KEEP, 4, NULL },
	{ "log_dir = /l # logs\n", LOG_DIR, 0, "/l" },
	{ "keep = 5\r\n", KEEP, 5, NULL },
	{ "keep = 6", KEEP, 6, NULL },
	/* Later lines win; a bad later line keeps the earlier value. */
	{ "keep = 1\nkeep = 2\n", KEEP, 2, NULL },
};

static void test_good_values(void)
{
	for (size_t i = 0; i < sizeof(good_cases) / sizeof(good_cases[0]); i++) {
		const struct good_case *c = &good_cases[i];
		struct pfprof_config got, want;
		struct unit_reports reports;

		load_text(c->text, &got, &reports);
		check_no_reports(&reports);
		expected_defaults(&want);
		set_field(&want, c->field, c->number, c->path);
		check_same_config(&got, &want);
	}
}

static void test_bad_line_keeps_earlier_value(void)
{
	struct pfprof_config got, want;
	struct unit_reports reports;

	load_text("keep = 3\nkeep = many\n", &got, &reports);
	expected_defaults(&want);
	want.keep = 3;
	check_same_config(&got, &want);
	check_report(&reports, 0, 2, "bad value 'many' for keep: expected a number from 0 to 1000");
}

#define SIZE_EXPECTED "expected a size like 16M (K, M or G)"
#define AGE_EXPECTED "expected an age like 1d (s, m, h or d)"
#define KEEP_EXPECTED "expected a number from 0 to 1000"
#define PATH_EXPECTED "expected an absolute path"
#define OPTIONAL_PATH_EXPECTED "expected an absolute path, or nothing to turn it off"
#define INTERVAL_EXPECTED "expected an interval of at least 1s (s, m, h or d)"
#define SERIES_EXPECTED "expected a number from 0 to 100000"
#define ON_OR_LEAVE_EXPECTED "expected on or leave"

static const struct bad_case {
	const char *line;
	const char *message;
} bad_cases[] = {
	{ "rotate_size = junk", "bad value 'junk' for rotate_size: " SIZE_EXPECTED },
	{ "rotate_size = -1", "bad value '-1' for rotate_size: " SIZE_EXPECTED },
	{ "rotate_size = +1", "bad value '+1' for rotate_size: " SIZE_EXPECTED },
	{ "rotate_size =", "bad value '' for rotate_size: " SIZE_EXPECTED },
	{ "rotate_size = M", "bad value 'M' for rotate_size: " SIZE_EXPECTED },
	{ "rotate_size = 16k", "bad value '16k' for rotate_size: " SIZE_EXPECTED },
	{ "rotate_size = 16MB", "bad value '16MB' for rotate_size: " SIZE_EXPECTED },
	{ "rotate_size = 16 M", "bad value '16 M' for rotate_size: " SIZE_EXPECTED },
	{ "rotate_size = 1.5G", "bad value '1.5G' for rotate_size: " SIZE_EXPECTED },
	{ "rotate_size = 0x10", "bad value '0x10' for rotate_size: " SIZE_EXPECTED },
	{ "rotate_size = 99999999999999999999G",
	  "bad value '99999999999999999999G' for rotate_size: " SIZE_EXPECTED },
	{ "rotate_size = 18446744073709551616",
	  "bad value '18446744073709551616' for rotate_size: " SIZE_EXPECTED },
	{ "rotate_size = 17179869184G",
	  "bad value '17179869184G' for rotate_size: " SIZE_EXPECTED },
	{ "rotate_age = soon", "bad value 'soon' for rotate_age: " AGE_EXPECTED },
	{ "write_interval = 500ms", "bad value '500ms' for write_interval: " AGE_EXPECTED },
	{ "rotate_age = -5", "bad value '-5' for rotate_age: " AGE_EXPECTED },
	{ "rotate_age = ", "bad value '' for rotate_age: " AGE_EXPECTED },
	{ "rotate_age = 1w", "bad value '1w' for rotate_age: " AGE_EXPECTED },
	{ "rotate_age = 1H", "bad value '1H' for rotate_age: " AGE_EXPECTED },
	{ "rotate_age = 1dd", "bad value '1dd' for rotate_age: " AGE_EXPECTED },
	{ "rotate_age = 213503982334602d",
	  "bad value '213503982334602d' for rotate_age: " AGE_EXPECTED },
	{ "rotate_age = 99999999999999999999",
	  "bad value '99999999999999999999' for rotate_age: " AGE_EXPECTED },
	{ "keep = many", "bad value 'many' for keep: " KEEP_EXPECTED },
	{ "keep = -1", "bad value '-1' for keep: " KEEP_EXPECTED },
	{ "keep = 1001", "bad value '1001' for keep: " KEEP_EXPECTED },
	{ "keep = 4294967306", "bad value '4294967306' for keep: " KEEP_EXPECTED },
	{ "keep = 5K", "bad value '5K' for keep: " KEEP_EXPECTED },
	{ "keep =", "bad value '' for keep: " KEEP_EXPECTED },
	{ "keep = 4# four", "bad value '4# four' for keep: " KEEP_EXPECTED },
	{ "log_dir = var/log", "bad value 'var/log' for log_dir: " PATH_EXPECTED },
	{ "log_dir =", "bad value '' for log_dir: " PATH_EXPECTED },
	{ "targets_file = pids", "bad value 'pids' for targets_file: " PATH_EXPECTED },
	{ "pid_file = pids", "bad value 'pids' for pid_file: " PATH_EXPECTED },
	{ "device = ./mp3", "bad value './mp3' for device: " PATH_EXPECTED },
	{ "status_file = ~/status", "bad value '~/status' for status_file: " PATH_EXPECTED },
	{ "runtime_dir = # none", "bad value '' for runtime_dir: " PATH_EXPECTED },
	{ "state_dir = relative", "bad value 'relative' for state_dir: " PATH_EXPECTED },
	{ "prometheus_dir = node-exporter",
	  "bad value 'node-exporter' for prometheus_dir: " OPTIONAL_PATH_EXPECTED },
	{ "prometheus_interval = 0", "bad value '0' for prometheus_interval: " INTERVAL_EXPECTED },
	{ "prometheus_interval = 0m", "bad value '0m' for prometheus_interval: " INTERVAL_EXPECTED },
	{ "prometheus_interval =", "bad value '' for prometheus_interval: " INTERVAL_EXPECTED },
	{ "prometheus_interval = 500ms",
	  "bad value '500ms' for prometheus_interval: " INTERVAL_EXPECTED },
	{ "prometheus_max_processes = 100001",
	  "bad value '100001' for prometheus_max_processes: " SERIES_EXPECTED },
	{ "prometheus_max_processes = -1",
	  "bad value '-1' for prometheus_max_processes: " SERIES_EXPECTED },
	/* One spelling each: "off" would read as "pfprofd turns it off", which it never does. */
	{ "delay_accounting = off", "bad value 'off' for delay_accounting: " ON_OR_LEAVE_EXPECTED },
	{ "delay_accounting = yes", "bad value 'yes' for delay_accounting: " ON_OR_LEAVE_EXPECTED },
	{ "delay_accounting = On", "bad value 'On' for delay_accounting: " ON_OR_LEAVE_EXPECTED },
	{ "delay_accounting =", "bad value '' for delay_accounting: " ON_OR_LEAVE_EXPECTED },
	{ "foo = bar", "unknown key 'foo'" },
	{ "Keep = 3", "unknown key 'Keep'" },
	{ "rotate_age_s = 3", "unknown key 'rotate_age_s'" },
	{ "keep 5", "expected key = value" },
	{ "log_dir", "expected key = value" },
	{ "= 5", "expected key = value" },
};

/* Each bad line comes third, after a comment and a blank line, and must change nothing. */
static void test_bad_values(void)
{
	for (size_t i = 0; i < sizeof(bad_cases) / sizeof(bad_cases[0]); i++) {
		const struct bad_case *c = &bad_cases[i];
		struct pfprof_config got, want;
		struct unit_reports reports;
		char text[256];

		snprintf(text, sizeof(text), "# test\n\n%s\n", c->line);
		load_text(text, &got, &reports);
		expect(reports.count == 1, "%zu reports for '%s'", reports.count, c->line);
		check_report(&reports, 0, 3, c->message);
		expected_defaults(&want);
		check_same_config(&got, &want);
	}
}

static void test_long_value_is_cut_in_report(void)
{
	char value[101], text[256], want[256];
	struct pfprof_config config;
	struct unit_reports reports;

	memset(value, 'x', 100);
	value[100] = '\0';
	snprintf(text, sizeof(text), "keep = %s\n", value);
	load_text(text, &config, &reports);
	snprintf(want, sizeof(want), "bad value '%.80s...' for keep: " KEEP_EXPECTED, value);
	check_report(&reports, 0, 1, want);
}

/* "log_dir=" followed by a path, making a line of exactly len bytes before the newline. */
static char *line_of_length(size_t len)
{
	const char *key = "log_dir=";
	char *text = malloc(len + 2);

	expect(text != NULL, "out of memory");
	strcpy(text, key);
	memset(text + strlen(key), 'a', len - strlen(key));
	text[strlen(key)] = '/';
	text[len] = '\n';
	text[len + 1] = '\0';
	return text;
}

static void test_line_length_limit(void)
{
	struct pfprof_config got, want;
	struct unit_reports reports;
	char *longest = line_of_length(4096), *too_long = line_of_length(4097);
	char *text;

	expect(asprintf(&text, "%skeep = 3\n%s", too_long, longest) > 0, "asprintf");
	load_text(text, &got, &reports);
	expect(reports.count == 1, "%zu reports", reports.count);
	check_report(&reports, 0, 1, "line longer than 4096 bytes");
	expected_defaults(&want);
	want.keep = 3;
	strcpy(want.log_dir, longest + strlen("log_dir="));
	want.log_dir[strlen(want.log_dir) - 1] = '\0';
	check_same_config(&got, &want);
	free(text);
	free(longest);
	free(too_long);
}

static void test_nul_byte(void)
{
	struct pfprof_config got, want;
	struct unit_reports reports = { 0 };
	FILE *f = fopen(CONF, "w");

	expect(f && fwrite("keep = 3\0junk\nkeep = 4\n", 1, 23, f) == 23 && !fclose(f),
		   "writing " CONF);
	expect(config_load(&got, CONF, unit_record_report, &reports) == 0, "config_load failed");
	check_report(&reports, 0, 1, "NUL byte in line");
	expected_defaults(&want);
	want.keep = 4;
	check_same_config(&got, &want);
}

static void test_problems_keep_their_line_numbers(void)
{
	struct pfprof_config got, want;
	struct unit_reports reports;

	load_text("# pfprofd.conf\n"
		  "bogus = 1\n"
		  "keep = 20\n"
		  "\n"
		  "rotate_size 1M\n"
		  "  # indented comment\n"
		  "rotate_age = 2x\n"
		  "log_dir = /ok\n",
		  &got, &reports);
	expect(reports.count == 3, "%zu reports, want 3", reports.count);
	check_report(&reports, 0, 2, "unknown key 'bogus'");
	check_report(&reports, 1, 5, "expected key = value");
	check_report(&reports, 2, 7, "bad value '2x' for rotate_age: " AGE_EXPECTED);
	expected_defaults(&want);
	want.keep = 20;
	strcpy(want.log_dir, "/ok");
	check_same_config(&got, &want);
}

static void test_null_report(void)
{
	struct pfprof_config got, want;

	unit_write_file(CONF, "nonsense\nkeep = 2\n");
	expect(config_load(&got, CONF, NULL, NULL) == 0, "config_load failed");
	expected_defaults(&want);
	want.keep = 2;
	check_same_config(&got, &want);
}

UNIT_TESTS(
	UNIT_TEST(defaults),
	UNIT_TEST(missing_file),
	UNIT_TEST(unreadable_file),
	UNIT_TEST(empty_file),
	UNIT_TEST(comments_and_blank_lines),
	UNIT_TEST(good_values),
	UNIT_TEST(bad_line_keeps_earlier_value),
	UNIT_TEST(bad_values),
	UNIT_TEST(long_value_is_cut_in_report),
	UNIT_TEST(line_length_limit),
	UNIT_TEST(nul_byte),
	UNIT_TEST(problems_keep_their_line_numbers),
	UNIT_TEST(null_report)
);
