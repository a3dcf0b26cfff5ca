// SPDX-License-Identifier: GPL-2.0
/*
 * Loading and unloading the module: its parameters, refusals, repeated
 * cycles and unloading beside activity.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>

#include "harness.h"
#include "tests.h"

#define LOAD_CYCLES 50
#define LOADING_BESIDE_ACTIVITY_S 30

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
		"records=maybe", "sampler=poll", "sampler=", "records_per_user=0",
		"records_per_user=4097",
	};
	struct mp3ring ring;
	int fd;

	expect(read_param("period_ms") == 50, "default period_ms is %lu", read_param("period_ms"));
	expect(file_contains("/sys/module/mp3/parameters/records", "Y"),
	       "records is not on by default");
	expect(file_contains("/sys/module/mp3/parameters/sampler", "events"),
	       "sampler is not events by default");
	expect(read_param("records_per_user") == 1024, "default records_per_user is %lu",
	       read_param("records_per_user"));
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

/* Activity for load_beside_activity, each in a process of its own until killed. */
static __attribute__((noreturn)) void wake_partner(int in, int out)
{
	char byte = 0;

	for (;;)
		if (write(out, &byte, 1) != 1 || read(in, &byte, 1) != 1)
			_exit(1);
}

static __attribute__((noreturn)) void fork_and_reap(void)
{
	for (;;) {
		pid_t child = fork();

		if (!child)
			_exit(0);
		if (child < 0 || waitpid(child, NULL, 0) != child)
			_exit(1);
	}
}

static __attribute__((noreturn)) void exec_true(void)
{
	for (;;) {
		pid_t child = fork();

		if (!child) {
			execl("/bin/true", "true", (char *)NULL);
			_exit(1);
		}
		if (child < 0 || waitpid(child, NULL, 0) != child)
			_exit(1);
	}
}

static __attribute__((noreturn)) void rename_self(void)
{
	for (unsigned long i = 0;; i++)
		prctl(PR_SET_NAME, i % 2 ? "pfprof-renamed" : "pfprof-rename");
}

static pid_t spawn_activity(void (*fn)(void))
{
	pid_t pid = fork();

	expect(pid >= 0, "fork: %s", strerror(errno));
	if (!pid)
		fn();
	return pid;
}

/* Two processes waking each other through pipes, as fast as they can. */
static void spawn_wakers(pid_t wakers[2])
{
	int ab[2], ba[2];

	expect(!pipe(ab) && !pipe(ba), "pipe: %s", strerror(errno));
	for (int i = 0; i < 2; i++) {
		wakers[i] = fork();
		expect(wakers[i] >= 0, "fork: %s", strerror(errno));
		if (!wakers[i] && i)
			wake_partner(ab[0], ba[1]);
		if (!wakers[i]) {
			char byte;

			/* The other's first byte starts the game. */
			if (read(ba[0], &byte, 1) != 1)
				_exit(1);
			wake_partner(ba[0], ab[1]);
		}
	}
	close(ab[0]), close(ab[1]), close(ba[0]), close(ba[1]);
}

/*
 * Loading and unloading switch the module's tracepoints on and off (jump
 * labels, patched by text_poke_bp()) while both CPUs pass them: wakeups,
 * forks, execs and renames, with a waker registered in every cycle. Debian
 * 12's QEMU 7.2 with a thread per vCPU crashed here ("Oops: int3" at a
 * tracepoint's site) within a minute; real CPUs, and QEMU 10, do not.
 */
void test_load_beside_activity(void)
{
	time_t end = time(NULL) + LOADING_BESIDE_ACTIVITY_S;
	pid_t pids[6];
	int cycles, status;

	spawn_wakers(pids);
	pids[2] = spawn_activity(fork_and_reap);
	pids[3] = spawn_activity(exec_true);
	pids[4] = spawn_activity(rename_self);
	pids[5] = spawn_activity(rename_self);
	for (cycles = 0; time(NULL) < end; cycles++) {
		int err = module_unload();

		expect(!err, "unloading in cycle %d: %s", cycles, errno_name(err));
		err = module_load(NULL);
		expect(!err, "loading in cycle %d: %s", cycles, errno_name(err));
		err = status_cmd('R', pids[cycles % 2]);
		expect(!err, "R of a waker in cycle %d: %s", cycles, errno_name(err));
	}
	for (int i = 0; i < 6; i++)
		expect(waitpid(pids[i], &status, WNOHANG) == 0, "activity %d ended (status %#x)",
		       i, status);
	printf("  load_beside_activity: %d load/unload cycles in %d s\n", cycles,
	       LOADING_BESIDE_ACTIVITY_S);
	expect(cycles >= 5, "only %d load/unload cycles in %d s", cycles, LOADING_BESIDE_ACTIVITY_S);
	for (int i = 0; i < 6; i++)
		kill_and_reap(pids[i]);
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

void test_unload_busy(void)
{
	int fd = open_device(O_RDWR);
	void *p;

	expect_errno(module_unload(), EAGAIN, "rmmod while the device is open");
	close(fd);
	p = map_classic();
	expect_errno(module_unload(), EAGAIN, "rmmod while the classic region is mapped");
	munmap(p, MP3_CLASSIC_SIZE);
	fd = open_device(O_RDONLY);
	p = mmap(NULL, 4096, PROT_READ, MAP_SHARED, fd, MP3_RING_OFFSET);
	expect(p != MAP_FAILED, "mmap of the ring header: %s", strerror(errno));
	close(fd);
	expect_errno(module_unload(), EAGAIN, "rmmod while the ring is mapped");
	munmap(p, 4096);
	expect_ok(module_unload(), "rmmod once unmapped");
	expect(access(MP3_DEVICE_PATH, F_OK) && access(MP3_STATUS_PATH, F_OK),
	       "%s or %s outlived the module", MP3_DEVICE_PATH, MP3_STATUS_PATH);
	expect_ok(module_load(NULL), "loading again");
}
