// SPDX-License-Identifier: GPL-2.0
/*
 * The user tools against the real module: work and monitor.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "harness.h"
#include "tests.h"

/* Minor faults the module saw for one registered work run. */
static uint64_t work_minor_faults(const char *mode, const char *accesses)
{
	char *argv[] = { "./work", "-q", "--register", "--pause", "0", "-s", "7", "64",
			 (char *)mode, (char *)accesses, NULL };
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

static pid_t start_program(char *const argv[])
{
	pid_t pid = fork();

	expect(pid >= 0, "fork: %s", strerror(errno));
	if (!pid) {
		execv(argv[0], argv);
		_exit(127);
	}
	return pid;
}

static bool listed_within(pid_t pid, unsigned int ms)
{
	for (unsigned int waited = 0; waited < ms; waited += 10) {
		if (status_lists(pid))
			return true;
		sleep_ms(10);
	}
	return false;
}

/*
 * Without options work runs as the course's does: registered while it runs
 * and a 1 s pause after each iteration; SIGTERM makes it unregister and die
 * of the signal.
 */
void test_work_course_defaults(void)
{
	char *paced[] = { "./work", "-q", "-n", "2", "1", "R", "100", NULL };
	char *endless[] = { "./work", "-q", "-n", "1000", "1", "R", "100", NULL };
	uint64_t start = now_ns();
	pid_t pid = start_program(paced);
	int status;

	expect(listed_within(pid, 2000), "work %d did not register itself", (int)pid);
	expect(waitpid(pid, &status, 0) == pid && WIFEXITED(status) && !WEXITSTATUS(status),
	       "work ended with status %#x", status);
	printf("  work_course_defaults: 2 iterations in %.2f s\n", (now_ns() - start) / 1e9);
	expect(now_ns() - start >= 2000000000ULL, "2 iterations took less than their 2 pauses");
	pid = start_program(endless);
	expect(listed_within(pid, 2000), "work %d did not register itself", (int)pid);
	kill(pid, SIGTERM);
	expect(waitpid(pid, &status, 0) == pid && WIFSIGNALED(status) &&
	       WTERMSIG(status) == SIGTERM, "work on SIGTERM ended with status %#x", status);
}

static void empty_file(const char *path)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);

	expect(fd >= 0, "%s: %s", path, strerror(errno));
	close(fd);
}

static off_t file_size(const char *path)
{
	struct stat st;

	expect(!stat(path, &st), "%s: %s", path, strerror(errno));
	return st.st_size;
}

/* What work writes to a status file: "U <pid>" over "R <pid>" once it unregistered. */
static void expect_status_file(const char *path, char cmd, pid_t pid)
{
	char want[32], got[32] = "";
	FILE *f = fopen(path, "re");

	snprintf(want, sizeof(want), "%c %d", cmd, (int)pid);
	expect(f, "%s: %s", path, strerror(errno));
	if (!fgets(got, sizeof(got), f))
		got[0] = '\0';
	fclose(f);
	expect(!strcmp(got, want), "%s holds '%s', want '%s'", path, got, want);
}

/* Registration as the options say, and nothing but a message without the module. */
void test_work_registration(void)
{
	char *on_term[] = { "./work", "-q", "--status-file", "/tmp/work-status", "-n", "1000",
			    "1", "R", "100", NULL };
	char *never[] = { "./work", "-q", "--no-register", "--pause", "0",
			  "--status-file", "/tmp/work-status", "1", "R", "100", NULL };
	char *absent[] = { "./work", "--pause", "0", "-n", "1", "--status-file",
			   "/tmp/no-such-status", "1", "R", "100", NULL };
	pid_t pid;
	int status, rc;

	empty_file("/tmp/work-status");
	pid = start_program(on_term);
	for (unsigned int waited = 0; !file_size("/tmp/work-status") && waited < 5000; waited += 10)
		sleep_ms(10);
	expect_status_file("/tmp/work-status", 'R', pid);
	kill(pid, SIGTERM);
	expect(waitpid(pid, &status, 0) == pid && WIFSIGNALED(status), "status %#x", status);
	expect_status_file("/tmp/work-status", 'U', pid);

	empty_file("/tmp/work-status");
	rc = run_program(never, NULL);
	expect(rc == 0 && file_size("/tmp/work-status") == 0,
	       "work --no-register exited %d and wrote to the status file", rc);

	rc = run_program_err(absent, NULL, "/tmp/work.err");
	expect(rc == 0 && file_contains("/tmp/work.err", "not registered"),
	       "work without a status file exited %d, without saying it is not registered", rc);
}

/*
 * The MP3 handout's case 1 as the course types it: two niced work processes in
 * the background, then monitor > profile.data once they are done. The sizes
 * are scaled to the guest (two of the handout's 1024 MiB do not fit its
 * 512 MiB); commands, accesses and work's defaults are the handout's.
 */
static const char handout_commands[] =
	"nice ./work 64 R 50000 2> /tmp/handout-work1.err &\n"
	"nice ./work 64 R 10000 2> /tmp/handout-work2.err &\n"
	"wait\n"
	"./monitor > /tmp/profile.data\n";

/* The minor faults work's summary line says the process took. */
static long work_reported_minor_faults(const char *err_path)
{
	char line[256], last[256] = "";
	FILE *f = fopen(err_path, "re");
	const char *faults;
	long minor = -1;

	expect(f, "%s: %s", err_path, strerror(errno));
	while (fgets(line, sizeof(line), f))
		memcpy(last, line, sizeof(last));
	fclose(f);
	faults = strrchr(last, ';');
	expect(faults && sscanf(faults, "; %ld minor", &minor) == 1,
	       "%s ends without work's summary: '%s'", err_path, last);
	return minor;
}

struct profile {
	unsigned long samples, first_jiffies, last_jiffies, max_gap;
	unsigned long minor, major, cpu_jiffies;
	bool in_order;		/* no sample's jiffies before the one above it */
};

static void read_profile(const char *path, struct profile *p)
{
	unsigned long jiffies, minor, major, cpu;
	FILE *f = fopen(path, "re");

	*p = (struct profile){ .in_order = true };
	expect(f, "%s: %s", path, strerror(errno));
	while (fscanf(f, "%lu %lu %lu %lu", &jiffies, &minor, &major, &cpu) == 4) {
		if (p->samples) {
			/*
			 * Equal is in order: a sampler late by less than a second
			 * catches up on its 50 ms deadlines, two samples in one
			 * jiffy (seen under TCG on a loaded host).
			 */
			p->in_order &= jiffies >= p->last_jiffies;
			if (jiffies - p->last_jiffies > p->max_gap)
				p->max_gap = jiffies - p->last_jiffies;
		} else {
			p->first_jiffies = jiffies;
		}
		p->last_jiffies = jiffies;
		p->samples++;
		p->minor += minor;
		p->major += major;
		p->cpu_jiffies += cpu;
	}
	expect(feof(f), "%s: a line that is not 'jiffies minor major cpu'", path);
	fclose(f);
}

void test_handout_literal(void)
{
	char *shell[] = { "/bin/sh", "-c", (char *)handout_commands, NULL };
	long work1, work2;
	struct profile p;
	struct mp3ring ring;
	double spacing_ms;
	uint32_t hz;
	int fd, rc;

	map_ring(&ring, &fd);
	hz = ring.hdr->hz;
	mp3ring_unmap(&ring);
	close(fd);

	rc = run_program(shell, NULL);
	expect(rc == 0, "the handout's commands exited with %d", rc);
	work1 = work_reported_minor_faults("/tmp/handout-work1.err");
	work2 = work_reported_minor_faults("/tmp/handout-work2.err");
	read_profile("/tmp/profile.data", &p);
	expect(p.samples >= 2, "profile.data holds %lu samples", p.samples);
	spacing_ms = (p.last_jiffies - p.first_jiffies) * 1000.0 / hz / (p.samples - 1);
	printf("  handout_literal: %lu samples, %.2f ms apart (longest gap %lu jiffies, HZ=%u);"
	       " %lu minor faults in the profile, work reported %ld + %ld\n",
	       p.samples, spacing_ms, p.max_gap, hz, p.minor, work1, work2);
	/* 20 iterations, each followed by a 1 s pause: 20 s at least, and the
	 * samples of the one that registered first. */
	expect(p.samples >= 400, "%lu samples: less than the 20 s of 20 paced iterations",
	       p.samples);
	expect(p.in_order, "a sample's jiffies are before the previous sample's");
	expect(within_pct(spacing_ms, 50.0, 2.0), "samples %.2f ms apart, want 50 +- 2%%",
	       spacing_ms);
	/* Both processes touch all 16384 pages: either one alone is half the sum.
	 * Their first faults (program start) come before they register, and work
	 * counts its own once it unregistered. */
	expect(p.minor <= (unsigned long)(work1 + work2) &&
	       p.minor >= (unsigned long)(work1 + work2) * 95 / 100,
	       "the profile counts %lu minor faults, the two processes took %ld + %ld",
	       p.minor, work1, work2);
	expect(p.cpu_jiffies > 0, "the profile counts no CPU time");
}
