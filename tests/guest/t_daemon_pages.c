// SPDX-License-Identifier: GPL-2.0
/*
 * pfprofd and the pages: "pages PID" kept across a restart, the pages log
 * against the kernel's swap counters, and pfprofctl memory reading it; a
 * cgroup's shared memory no process maps, in the log as no process's.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <sys/mount.h>
#include <unistd.h>

#include "daemonrun.h"
#include "harness.h"
#include "jsonout.h"
#include "logformat.h"
#include "targets.h"
#include "tests.h"

#define PAGES_LOG LOG_DIR "/" LOGFORMAT_PAGES_FILE

/* What the pages log says of one process, read by its documented columns. */
struct pages_logged {
	unsigned long long out, in, read, lines, with_address;
};

/* @pid's lines of @target (0: a process's own registration); pid 0: no process's. */
static struct pages_logged read_pages_log(pid_t pid, unsigned int target)
{
	struct pages_logged seen = { 0 };
	char line[512], event[16], address[32], stall[32];
	unsigned long long seq, offset;
	unsigned int logged_target, device, pages;
	double wall;
	int p;
	FILE *f = fopen(PAGES_LOG, "r");

	while (f && fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%llu\t%lf\t%d\t%*[^\t]\t%u\t%15[^\t]\t%u\t%llu\t%31[^\t]\t%u\t%31s",
			   &seq, &wall, &p, &logged_target, event, &device, &offset, address, &pages,
			   stall) != 10 || p != pid || logged_target != target)
			continue;
		seen.lines++;
		seen.with_address += strcmp(address, "-") != 0;
		if (!strcmp(event, "out"))
			seen.out += pages;
		else if (!strcmp(event, "read"))
			seen.read += pages;
		else if (!strcmp(event, "in"))
			seen.in += pages;
	}
	if (f)
		fclose(f);
	return seen;
}

/* Waits until the log has at least what the kernel counted; fails after 20 s. */
static struct pages_logged wait_pages_logged(pid_t pid, unsigned int target, uint64_t written,
					     uint64_t read_back)
{
	uint64_t deadline = now_ns() + scaled_ms(20000) * 1000000ULL;
	struct pages_logged seen;

	for (;;) {
		seen = read_pages_log(pid, target);
		if (seen.out >= written && seen.read >= read_back)
			return seen;
		expect(now_ns() < deadline, "after 20 s the pages log has %llu pages out and %llu "
		       "read back of PID %d, the kernel wrote out %" PRIu64 " and read back %"
		       PRIu64, seen.out, seen.read, (int)pid, written, read_back);
		sleep_ms(100);
	}
}

/*
 * pfprofctl memory --json of @pid_arg while @pid's lines in the pages log
 * stood still (a page or two may be logged after the wait for 99 %), and
 * what the log had then in *@seen.
 */
static struct json_object *memory_json_beside_log(const char *pid_arg, pid_t pid,
						  struct pages_logged *seen)
{
	for (int attempt = 0;; attempt++) {
		struct pages_logged before = read_pages_log(pid, 0);

		expect(daemon_ctl(DAEMON_DIR "/memory.json", "memory", "--json", pid_arg) == 0,
		       "pfprofctl memory --json %s failed", pid_arg);
		*seen = read_pages_log(pid, 0);
		if (seen->lines == before.lines)
			return json_read_line(DAEMON_DIR "/memory.json");
		expect(attempt < 50, "PID %d's lines in the pages log still grow after 50 reads",
		       (int)pid);
		sleep_ms(100);
	}
}

/*
 * pfprofctl swap's row of the process, none of its pages back yet: all it
 * sent out are out now, at least the out the log had a moment before.
 */
static void expect_swap_view(pid_t pid, unsigned long long out)
{
	char line[512], owner[64];
	unsigned long long now = 0, sent = 0;
	bool found = false;
	FILE *f;

	expect(daemon_ctl(DAEMON_DIR "/swap.out", "swap", NULL, NULL) == 0, "pfprofctl swap failed");
	snprintf(owner, sizeof(owner), " pid %d (", (int)pid);
	f = fopen(DAEMON_DIR "/swap.out", "r");
	while (f && !found && fgets(line, sizeof(line), f))
		found = strstr(line, owner) && sscanf(line, "%llu %*s %*s %*s %*s %llu", &now,
						      &sent) == 2;
	if (f)
		fclose(f);
	printf("  daemon_pages_log: pfprofctl swap: %llu pages out now, %llu sent out\n", now, sent);
	expect(found && now == sent && now >= out, "pfprofctl swap: %llu out now and %llu sent "
	       "out, the log had %llu", now, sent, out);
}

/* pfprofctl page of the region's first page: its trip out and back, from one slot. */
static void expect_page_view(const char *pid_arg, uintptr_t addr)
{
	char address[32], line[256], out_slot[48] = "", back_slot[48] = "";
	char out_memory[16] = "", back_memory[16] = "";
	FILE *f;

	snprintf(address, sizeof(address), "%lx", (unsigned long)addr);
	expect(daemon_ctl(DAEMON_DIR "/page.out", "page", pid_arg, address) == 0,
	       "pfprofctl page %s %s failed", pid_arg, address);
	f = fopen(DAEMON_DIR "/page.out", "r");
	while (f && fgets(line, sizeof(line), f)) {
		/* TIME (a date and a time), EVENT, MEMORY, SLOT */
		sscanf(line, "%*s %*s out %15s %47s", out_memory, out_slot);
		sscanf(line, "%*s %*s read %15s %47s", back_memory, back_slot);
	}
	if (f)
		fclose(f);
	printf("  daemon_pages_log: pfprofctl page %s: out to %s (%s), read back from %s (%s)\n",
	       address, out_slot, out_memory, back_slot, back_memory);
	expect(strchr(out_slot, ':') && !strcmp(out_slot, back_slot), "pfprofctl page: out to "
	       "'%s', read back from '%s'", out_slot, back_slot);
	expect(!strcmp(out_memory, "anon") && !strcmp(back_memory, "anon"),
	       "pfprofctl page: memory '%s' out, '%s' back, not anon", out_memory, back_memory);
}

/*
 * pfprofctl add --pages PID: the targets file keeps "pages PID", and pfprofd
 * registers it so after a restart ("profiling PID N with its swapped
 * pages"); where the kernel has no memory cgroups (the debug kernel), add
 * refuses it with the hint that says why. The process's region paged out
 * and touched again: the pages log has its pages out and read back as the
 * kernel counted them (within 1 %; the guest swaps nothing else), each at
 * its address; pfprofctl swap has them out while they are, pfprofctl memory
 * says the same as the log, and pfprofctl page has the first page's trip,
 * back from the slot it went to.
 */
void test_daemon_pages_log(void)
{
	uint64_t out_before, in_before, written, read_back;
	struct pages_logged seen;
	struct json_object *o, *owner;
	char pid_arg[16], why[160];
	pid_t child, daemon = 0;
	uintptr_t addr, err;
	int go, back;

	daemon_setup("");
	child = spawn_piped(swapping_child, &go, &back);
	snprintf(pid_arg, sizeof(pid_arg), "%d", (int)child);
	mount_cgroup2(CGROUP_ROOT);
	if (!file_contains(CGROUP_ROOT "/cgroup.controllers", "memory")) {
		expect(daemon_ctl(DAEMON_DIR "/add.out", "add", "--pages", pid_arg) != 0,
		       "pfprofctl add --pages %s worked without memory cgroups", pid_arg);
		expect(file_contains(DAEMON_DIR "/ctl.stderr", "needs a kernel with memory cgroups"),
		       "no hint about memory cgroups");
		printf("  daemon_pages_log: not run: no memory cgroups (refused, with the hint)\n");
		goto end;
	}
	daemon = expect_kept_by_daemon("--pages", child, "pages", "swapped pages");
	if (!swap_device_ready(why, sizeof(why))) {
		expect(!file_contains("load-modules", "zram"), "no swap although the payload has "
		       "zram: %s", why);
		printf("  daemon_pages_log: kept; the rest not run: %s\n", why);
		goto end;
	}
	expect(write(go, "g", 1) == 1 && read(back, &addr, sizeof(addr)) == sizeof(addr),
	       "the child did not touch its region");
	out_before = swapped_out();
	expect(write(go, "o", 1) == 1 && read(back, &err, sizeof(err)) == sizeof(err) && !err,
	       "the child did not page its region out: %s", strerror((int)err));
	written = swapped_out() - out_before;
	expect_swap_view(child, wait_pages_logged(child, 0, written * 99 / 100, 0).out);
	in_before = swapped_in();
	expect(write(go, "t", 1) == 1 && read(back, &addr, sizeof(addr)) == sizeof(addr),
	       "the child did not touch its region again");
	read_back = swapped_in() - in_before;
	seen = wait_pages_logged(child, 0, written * 99 / 100, read_back * 99 / 100);
	printf("  daemon_pages_log: the kernel wrote out %" PRIu64 " and read back %" PRIu64
	       " pages; the log: %llu out, %llu read back, %llu from the swap cache, %llu of %llu "
	       "lines with an address\n", written, read_back, seen.out, seen.read, seen.in,
	       seen.with_address, seen.lines);
	expect(within_pct((double)seen.out, (double)written, 1) &&
	       within_pct((double)seen.read, (double)read_back, 1),
	       "the log's %llu out and %llu read back against the kernel's %" PRIu64 " and %"
	       PRIu64, seen.out, seen.read, written, read_back);
	expect(seen.with_address == seen.lines, "%llu of %llu lines without an address",
	       seen.lines - seen.with_address, seen.lines);

	o = memory_json_beside_log(pid_arg, child, &seen);
	owner = json_object_array_get_idx(json_at(o, "owners"), 0);
	expect(owner && json_number_at(owner, "pid") == child &&
	       json_number_at(owner, "out_pages") == (double)seen.out &&
	       json_number_at(owner, "read_pages") == (double)seen.read &&
	       json_number_at(owner, "cached_pages") == (double)seen.in,
	       "pfprofctl memory does not say what the log has: %s",
	       json_object_to_json_string(o));
	json_object_put(o);
	expect_page_view(pid_arg, addr);
end:
	if (daemon)
		stop_daemon(daemon);
	kill_and_reap(child);
	close(go);
	close(back);
}

#define UNMAPPED_DIR "pfprof-unmapped-daemon"

/*
 * pfprofctl add --pages --cgroup: pfprofd asks for the cgroup's shared
 * memory that none of its processes maps too ("S <target> charged"). A
 * memfd written and unmapped in the cgroup, reclaimed, is in the pages log
 * as swap-outs of no process (pid 0) of the cgroup's target, as many as
 * the kernel wrote out (within 1 %: the child's own pages may go too).
 */
void test_daemon_pages_unmapped(void)
{
	const char *path = "/sys/fs/cgroup/" UNMAPPED_DIR, *dir = CGROUP_ROOT "/" UNMAPPED_DIR;
	const uint32_t target = target_number(TARGET_CGROUP, path, NULL);
	char *argv[] = { "./pfprofctl", "--config", CONF, "add", "--pages", "--cgroup",
			 (char *)path, NULL };
	struct pages_logged seen;
	uint64_t before, written;
	pid_t child, daemon;
	uintptr_t said;
	int go, back, rc;

	if (!child_in_cgroup_can_swap("daemon_pages_unmapped", dir))
		return;
	mount_cgroup2("/sys/fs/cgroup");
	daemon_setup("");
	daemon = start_ready_daemon();
	child = spawn_piped(unmapped_memfd_child, &go, &back);
	move_to_cgroup(dir, child);
	rc = run_program_err(argv, NULL, DAEMON_DIR "/ctl.stderr");
	if (rc)
		show_file(DAEMON_DIR "/ctl.stderr", "  daemon_pages_unmapped| ");
	expect(rc == 0, "pfprofctl add --pages --cgroup %s: exit %d", path, rc);
	expect(write(go, "g", 1) == 1 && read(back, &said, sizeof(said)) == sizeof(said),
	       "the child did not write and unmap its memfd");
	before = swapped_out();
	reclaim_cgroup(dir, REGION_PAGES * (size_t)sysconf(_SC_PAGESIZE));
	written = swapped_out() - before;
	seen = wait_pages_logged(0, target, written * 99 / 100, 0);
	printf("  daemon_pages_unmapped: the kernel wrote out %" PRIu64 " pages of the cgroup;"
	       " the pages log: %llu out of no process in %llu lines of its target\n", written,
	       seen.out, seen.lines);
	expect(written >= REGION_PAGES / 2, "only %" PRIu64 " pages written out of %d asked",
	       written, REGION_PAGES);
	expect(within_pct((double)seen.out, (double)written, 1),
	       "the log's %llu pages out of no process against the kernel's %" PRIu64, seen.out,
	       written);
	expect(!seen.in && !seen.read, "%llu pages of no process back from the swap cache and %llu"
	       " read back: only a process faults", seen.in, seen.read);
	stop_daemon(daemon);
	kill_and_reap(child);
	close(go);
	close(back);
	expect(!rmdir(dir), "rmdir %s: %s", dir, strerror(errno));
	umount("/sys/fs/cgroup");
}
