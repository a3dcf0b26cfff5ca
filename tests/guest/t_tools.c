// SPDX-License-Identifier: GPL-2.0
/* The user tools against the real module: work and monitor. */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "harness.h"
#include "tests.h"

/* Minor faults the module saw for one registered work run. */
static uint64_t work_minor_faults(const char *mode, const char *accesses)
{
	char *argv[] = { "./work", "-q", "--register", "-s", "7", "64", (char *)mode,
			 (char *)accesses, NULL };
	struct sample_sum sum;
	struct mp3ring ring;
	uint64_t head;
	int fd, rc;

	map_ring(&ring, &fd);
	rc = run_program(argv, NULL);
	expect(rc == 0, "work 64 %s %s exited with %d", mode, accesses, rc);
	sleep_ms(200);
	expect(status_list((pid_t[1]){ 0 }, 1) == 0, "work is still listed after it exited");
	head = mp3ring_head(&ring);
	sum_samples(&ring, 0, head, &sum);
	expect(sum.max_procs == 1, "samples counted %u processes", sum.max_procs);
	mp3ring_unmap(&ring);
	close(fd);
	return sum.minor;
}

void test_work_locality(void)
{
	uint64_t random_faults, local_faults;

	random_faults = work_minor_faults("R", "10000");
	expect_ok(module_unload(), "unloading between runs");
	expect_ok(module_load(NULL), "reloading between runs");
	local_faults = work_minor_faults("L", "10000");
	printf("  work_locality: 64 MB, 20 x 10000 accesses: R %llu minor faults, L %llu\n",
	       (unsigned long long)random_faults, (unsigned long long)local_faults);
	/* 200000 random accesses reach nearly all 16384 pages. */
	expect(random_faults >= 15000, "R touched only %llu pages",
	       (unsigned long long)random_faults);
	expect(local_faults * 4 < random_faults, "L (%llu faults) shows no locality against R (%llu)",
	       (unsigned long long)local_faults, (unsigned long long)random_faults);
}

void test_tool_errors(void)
{
	char *monitor_missing[] = { "./monitor", "/tmp/no-such-node", NULL };
	char *work_usage[] = { "./work", "16", "X", "100", NULL };
	char *work_register[] = { "./work", "-q", "-r", "--status-file", "/tmp/no-such-file",
				  "1", "R", "1", NULL };
	int rc;

	rc = run_program(monitor_missing, NULL);
	expect(rc == 1, "monitor on a missing node exited with %d, want 1", rc);
	rc = run_program(work_usage, NULL);
	expect(rc == 2, "work with mode X exited with %d, want 2", rc);
	rc = run_program(work_register, NULL);
	expect(rc == 1, "work --register with no status file exited with %d, want 1", rc);
}
