// SPDX-License-Identifier: GPL-2.0
/*
 * lib/logmemory: the memory log's lines, written and read back, and the
 * lines a reader must refuse rather than misread.
 */
#include <stdio.h>
#include <string.h>

#include "logformat.h"
#include "unit.h"

static const struct log_memory reading = {
	.seq = 1200, .wall_ns = 1700000000123456789ULL, .target = 1073741999,
	.m = {
		.value = { 67108864, CGROUP_MEMORY_NO_LIMIT, 50331648, 0, 123456, 65432, 17, 4242 },
		.known = (1U << CGMEM_FIELDS) - 1,
	},
};

static void test_line(void)
{
	struct log_memory partial = reading;
	char line[256];

	logformat_memory(line, sizeof(line), &reading);
	expect(!strcmp(line, "1200\t1700000000.123457\t1073741999\t67108864\tmax\t50331648\t0\t"
		       "123456\t65432\t17\t4242\n"), "line: '%s'", line);
	partial.m.known &= ~(1U << CGMEM_SWAP | 1U << CGMEM_SOME_US | 1U << CGMEM_FULL_US);
	logformat_memory(line, sizeof(line), &partial);
	expect(!strcmp(line, "1200\t1700000000.123457\t1073741999\t67108864\tmax\t50331648\t-\t"
		       "-\t-\t17\t4242\n"), "line without swap and PSI: '%s'", line);
}

static void test_round_trip(void)
{
	struct log_memory back;
	char line[256];

	logformat_memory(line, sizeof(line), &reading);
	line[strlen(line) - 1] = '\0';
	expect(logformat_parse_memory(line, &back), "not read back");
	expect(back.seq == reading.seq && back.wall_ns == 1700000000123457000ULL &&
	       back.target == reading.target && back.m.known == reading.m.known &&
	       !memcmp(back.m.value, reading.m.value, sizeof(back.m.value)),
	       "read back otherwise");
}

/* A line that is not one: refused, never read as something else. */
static void test_refused(void)
{
	static const char *const bad[] = {
		"",
		"1200\t1700000000.123457\t1073741999\t67108864\tmax\t50331648\t0\t123456\t65432\t17",
		"1200\t1700000000.123457\t1073741999\t67108864\tmax\t50331648\t0\t123456\t65432\t17"
		"\t4242\t1",
		"1200\t1700000000.123457\t0\t67108864\tmax\t50331648\t0\t123456\t65432\t17\t4242",
		"1200\t1700000000.123457\t4294967296\t1\tmax\tmax\t0\t1\t1\t1\t1",
		"1200\t1700000000.123457\t7\tmax\tmax\tmax\t0\t1\t1\t1\t1",
		"1200\t1700000000.123457\t7\t1\tmax\tmax\t0\t1\t1\t1\tmax",
		"1200\t1700000000.123457\t7\t18446744073709551615\tmax\tmax\t0\t1\t1\t1\t1",
		"1200\t1700000000.123457\t7\t-1\tmax\tmax\t0\t1\t1\t1\t1",
		"x\t1700000000.123457\t7\t1\tmax\tmax\t0\t1\t1\t1\t1",
		"17\t1700000000.123457\t4242\tpostgres\t3\tout\t1\t9001\t7f0012345000\t1\t-",
	};

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		char line[256];
		struct log_memory lm;

		snprintf(line, sizeof(line), "%s", bad[i]);
		expect(!logformat_parse_memory(line, &lm), "line %zu read", i);
	}
}

static void test_header(void)
{
	static const char start[] = LOGFORMAT_MEMORY_MAGIC "1\n# created 55\n"
				    LOGFORMAT_MEMORY_COLUMNS "\n# units: ";
	char text[LOGFORMAT_HEADER_MAX];
	int n = logformat_header(text, sizeof(text), LOGKIND_MEMORY, 55);

	expect(n > 0 && (size_t)n < sizeof(text), "header of %d bytes", n);
	expect(!strncmp(text, start, strlen(start)), "header: '%s'", text);
}

UNIT_TESTS(
	UNIT_TEST(line),
	UNIT_TEST(round_trip),
	UNIT_TEST(refused),
	UNIT_TEST(header),
);
