// SPDX-License-Identifier: GPL-2.0
/* Loading, parameters and unloading. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "harness.h"
#include "tests.h"

#define LOAD_CYCLES 50

static unsigned long read_param(const char *name)
{
	char path[128];
	unsigned long v;
	FILE *f;

	snprintf(path, sizeof(path), "/sys/module/mp3/parameters/%s", name);
	f = fopen(path, "r");
	if (!f || fscanf(f, "%lu", &v) != 1)
		fail("reading %s: %s", path, strerror(errno));
	fclose(f);
	return v;
}

void test_load_params(void)
{
	static const char *const bad[] = {
		"period_ms=0", "period_ms=10001", "period_ms=-5", "period_ms=abc", "period_ms=",
		"records=maybe", "sampler=poll", "sampler=",
	};
	struct mp3ring ring;
	int fd;

	expect(read_param("period_ms") == 50, "default period_ms is %lu", read_param("period_ms"));
	expect(file_contains("/sys/module/mp3/parameters/records", "Y"),
	       "records is not on by default");
	expect(file_contains("/sys/module/mp3/parameters/sampler", "events"),
	       "sampler is not events by default");
	expect_ok(module_unload(), "unloading");
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		expect_errno(module_load(bad[i]), EINVAL, bad[i]);
		expect(!module_loaded(), "%s left the module loaded", bad[i]);
	}
	expect_ok(module_load("period_ms=20"), "period_ms=20");
	expect(read_param("period_ms") == 20, "period_ms reads %lu", read_param("period_ms"));
	map_ring(&ring, &fd);
	expect(ring.hdr->period_ns == 20000000, "period_ns %llu for period_ms=20",
	       (unsigned long long)ring.hdr->period_ns);
	close(fd);
}

static unsigned long vmalloc_used_kb(void)
{
	unsigned long kb = proc_key_value("/proc/meminfo", "VmallocUsed");

	expect(kb > 0, "VmallocUsed is 0 in /proc/meminfo");
	return kb;
}

/* One load with everything in use: a registered process, both regions. */
static void use_module_once(pid_t pid)
{
	struct mp3ring ring;
	int fd;
	void *classic;

	map_ring(&ring, &fd);
	classic = mmap(NULL, MP3_CLASSIC_SIZE, PROT_READ, MAP_SHARED, fd, 0);
	expect(classic != MAP_FAILED, "mmap classic: %s", strerror(errno));
	expect_ok(status_cmd('R', pid), "R sleeper");
	wait_head(&ring, 1, 2000);
	munmap(classic, MP3_CLASSIC_SIZE);
	mp3ring_unmap(&ring);
	close(fd);
}

void test_load_cycles(void)
{
	unsigned long before, after, buffer_kb;
	pid_t pid = spawn_sleeper();
	struct mp3ring ring;
	int fd;

	map_ring(&ring, &fd);
	buffer_kb = (MP3_CLASSIC_SIZE + ring.region_size) / 1024;
	mp3ring_unmap(&ring);
	close(fd);
	use_module_once(pid);	/* warm up whatever the first load allocates */
	expect_ok(module_unload(), "unloading");
	before = vmalloc_used_kb();
	for (int i = 0; i < LOAD_CYCLES; i++) {
		expect_ok(module_load(NULL), "load");
		use_module_once(pid);
		expect_ok(module_unload(), "unload");
	}
	after = vmalloc_used_kb();
	printf("  load_cycles: VmallocUsed %lu kB before, %lu kB after %d cycles (buffer %lu kB)\n",
	       before, after, LOAD_CYCLES, buffer_kb);
	expect(after < before + buffer_kb / 2, "VmallocUsed grew by %lu kB over %d cycles",
	       after - before, LOAD_CYCLES);
	expect_ok(module_load(NULL), "final load");
}

/*
 * On a PREEMPT_RT kernel mp3.ko refuses to load, with one line saying why
 * (its probes would sleep where preemption is off); elsewhere it loads.
 */
void test_load_rt_refused(void)
{
	static const char line[] = "not loaded: PREEMPT_RT kernels are not supported";
	struct utsname u;
	int err;

	expect(!uname(&u), "uname: %s", strerror(errno));
	err = module_load(NULL);
	if (!strstr(u.version, "PREEMPT_RT")) {
		expect_ok(err, "loading mp3.ko on a kernel without PREEMPT_RT");
		expect_ok(module_unload(), "unloading");
		return;
	}
	printf("  load_rt_refused: %s: %s\n", u.version, err ? strerror(-err) : "loaded");
	expect_errno(err, EOPNOTSUPP, "loading mp3.ko on PREEMPT_RT");
	expect(!module_loaded(), "mp3 is loaded on PREEMPT_RT");
	expect(run_program((char *[]){ "/bin/dmesg", NULL }, "/tmp/mp3-dmesg.out") == 0,
	       "dmesg failed");
	expect(file_contains("/tmp/mp3-dmesg.out", line), "the kernel log does not say \"%s\"",
	       line);
}
