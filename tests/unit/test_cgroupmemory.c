// SPDX-License-Identifier: GPL-2.0
/* lib/cgroupmemory: a cgroup's memory.* files read, and what each missing file leaves unknown. */
#include <errno.h>
#include <string.h>
#include <sys/stat.h>

#include "cgroupmemory.h"
#include "unit.h"

#define PRESSURE "some avg10=1.50 avg60=0.40 avg300=0.10 total=123456\n" \
		 "full avg10=0.75 avg60=0.20 avg300=0.05 total=65432\n"
/* As 6.1 writes it, shortened: keys that start alike must not be taken for these. */
#define STAT "anon 1048576\nfile 8192\nworkingset_refault_anon 17\n" \
	     "workingset_refault_file 4242\nworkingset_refault_file_x 9\n" \
	     "workingset_activate_anon 3\n"

static void test_read_all(void)
{
	struct cgroup_memory m;
	int err;

	expect(!mkdir("cg", 0755), "mkdir: %s", strerror(errno));
	unit_write_file("cg/memory.current", "67108864\n");
	unit_write_file("cg/memory.max", "33554432\n");
	unit_write_file("cg/memory.high", "max\n");
	unit_write_file("cg/memory.swap.current", "1048576\n");
	unit_write_file("cg/memory.pressure", PRESSURE);
	unit_write_file("cg/memory.stat", STAT);
	err = cgroup_memory_read("cg", &m);
	expect(!err, "cgroup_memory_read: %s", strerror(-err));
	expect(m.known == (1U << CGMEM_FIELDS) - 1, "known %#x", m.known);
	expect(m.value[CGMEM_CURRENT] == 67108864 && m.value[CGMEM_MAX] == 33554432 &&
	       m.value[CGMEM_HIGH] == CGROUP_MEMORY_NO_LIMIT && m.value[CGMEM_SWAP] == 1048576 &&
	       m.value[CGMEM_SOME_US] == 123456 && m.value[CGMEM_FULL_US] == 65432 &&
	       m.value[CGMEM_REFAULT_ANON] == 17 && m.value[CGMEM_REFAULT_FILE] == 4242,
	       "values read otherwise");
}

/* A cgroup without swap accounting or PSI: those fields are unknown, the rest read. */
static void test_read_some(void)
{
	struct cgroup_memory m;

	expect(!mkdir("cg", 0755), "mkdir: %s", strerror(errno));
	unit_write_file("cg/memory.current", "4096\n");
	unit_write_file("cg/memory.max", "max\n");
	unit_write_file("cg/memory.high", "many\n");
	expect(!cgroup_memory_read("cg", &m), "cgroup_memory_read failed");
	expect(m.known == (1U << CGMEM_CURRENT | 1U << CGMEM_MAX), "known %#x", m.known);
	expect(m.value[CGMEM_MAX] == CGROUP_MEMORY_NO_LIMIT, "max read otherwise");
}

static void test_read_gone(void)
{
	struct cgroup_memory m;

	expect(cgroup_memory_read("gone", &m) == -ENOENT, "a missing cgroup read");
	expect(!mkdir("cg", 0755), "mkdir: %s", strerror(errno));
	unit_write_file("cg/memory.current", "max\n");
	expect(cgroup_memory_read("cg", &m) == -EINVAL, "memory.current 'max' taken");
}

static void test_parse_limit(void)
{
	static const struct {
		const char *text;
		int err;
		uint64_t bytes;
	} cases[] = {
		{ "max\n", 0, CGROUP_MEMORY_NO_LIMIT },
		{ "134217728\n", 0, 134217728 },
		{ "0\n", 0, 0 },
		{ "", -EINVAL, 0 },
		{ "-1\n", -EINVAL, 0 },
		{ " 12\n", -EINVAL, 0 },
		{ "12k\n", -EINVAL, 0 },
		{ "99999999999999999999\n", -EINVAL, 0 },
		{ "maximum\n", -EINVAL, 0 },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		uint64_t bytes = 7;
		int err = cgroup_memory_parse_limit(cases[i].text, &bytes);

		expect(err == cases[i].err && (err || bytes == cases[i].bytes),
		       "'%s': %d, %llu", cases[i].text, err, (unsigned long long)bytes);
	}
}

static void test_limit(void)
{
	uint64_t bytes;

	expect(cgroup_memory_limit("gone", &bytes) == -ENOENT, "a missing cgroup's limit");
	expect(!mkdir("cg", 0755), "mkdir: %s", strerror(errno));
	unit_write_file("cg/memory.max", "268435456\n");
	expect(!cgroup_memory_limit("cg", &bytes) && bytes == 268435456, "limit read otherwise");
}

UNIT_TESTS(
	UNIT_TEST(read_all),
	UNIT_TEST(read_some),
	UNIT_TEST(read_gone),
	UNIT_TEST(parse_limit),
	UNIT_TEST(limit),
);
