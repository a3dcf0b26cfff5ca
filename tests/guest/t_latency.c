// SPDX-License-Identifier: GPL-2.0
/*
 * Fault latency (version 8, "R <pid> latency", "L <target>"): the
 * latency records count the faults the counts records count, one for one,
 * and time them as they are known from outside: faults that userfaultfd
 * holds for a delay the test chooses take at least that delay (the wait is
 * in an attempt that returns VM_FAULT_RETRY: its time must be carried to
 * the attempt that completes), and first touches of fresh pages take no
 * more than user space saw them take. Who may ask, and that the probe is
 * gone once nobody does.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <linux/userfaultfd.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>

#include "harness.h"
#include "tests.h"

/* Faults userfaultfd holds, and for how long each. */
#define HELD_FAULTS 12
#define HOLD_MS 20
/* Fresh pages touched once each: a minor fault apiece. */
#define FRESH_PAGES 4096

/* What the workload saw from user space, told to the test. */
struct seen {
	uint64_t held_ns;	/* its touches of the held pages, each timed, summed */
	uint64_t fresh_ns;	/* its touches of the fresh pages, timed as one */
	uint64_t held, fresh;	/* the two regions' addresses */
};

/* The latency records of one process, and its counts records, summed. */
struct latency_sum {
	uint32_t tgid;
	uint64_t faults[2][MP3_LATENCY_BUCKETS];
	uint64_t ns[2][MP3_LATENCY_BUCKETS];
	uint64_t counted[2];	/* minor, major: what its counts records say */
	unsigned int records;
	/* With maps: the faults records' times, in all and in the held region. */
	uint64_t placed_ns, held_ns, held_faults;
	uint64_t held_start;	/* the held region's mapping */
};

static void add_latency(void *ctx, const struct mp3_proc_record *r)
{
	struct latency_sum *sum = ctx;

	if (r->tgid != sum->tgid)
		return;
	if (r->type == MP3_RECORD_COUNTS) {
		sum->counted[0] += r->counts.minor_faults;
		sum->counted[1] += r->counts.major_faults;
	} else if (r->type == MP3_RECORD_LATENCY) {
		expect(r->latency.bucket < MP3_LATENCY_BUCKETS && r->latency.major <= 1,
		       "a latency record of bucket %u, major %u", r->latency.bucket, r->latency.major);
		expect(r->latency.faults, "a latency record without faults");
		sum->faults[r->latency.major][r->latency.bucket] += r->latency.faults;
		sum->ns[r->latency.major][r->latency.bucket] += r->latency.time_ns;
		sum->records++;
	} else if (r->type == MP3_RECORD_FAULTS) {
		uint64_t ns = r->fault_time.minor_ns + r->fault_time.major_ns;

		sum->placed_ns += ns;
		if (r->mapping != MP3_MAPPING_UNRESOLVED && r->faults.start == sum->held_start) {
			sum->held_ns += ns;
			sum->held_faults += r->faults.minor_faults + r->faults.major_faults;
		}
	}
}

static uint64_t total(const uint64_t v[MP3_LATENCY_BUCKETS], unsigned int from)
{
	uint64_t t = 0;

	for (unsigned int b = from; b < MP3_LATENCY_BUCKETS; b++)
		t += v[b];
	return t;
}

/* The first bucket that holds only faults of at least ms milliseconds. */
static unsigned int bucket_at_least_ms(unsigned int ms)
{
	unsigned int b = 1;

	/* Bucket b holds [2^(SHIFT + b - 1), 2^(SHIFT + b)) ns. */
	while (b < MP3_LATENCY_BUCKETS && (1ULL << (MP3_LATENCY_SHIFT + b - 1)) < ms * 1000000ULL)
		b++;
	return b - 1;
}

static int uffd;

/* Serves each held fault after HOLD_MS, with a page of its own. */
static void *serve_faults(void *arg)
{
	long page = sysconf(_SC_PAGESIZE);
	char *src = arg;

	for (unsigned int i = 0; i < HELD_FAULTS; i++) {
		struct uffd_msg msg;
		struct uffdio_copy copy;

		if (read(uffd, &msg, sizeof(msg)) != sizeof(msg) || msg.event != UFFD_EVENT_PAGEFAULT)
			_exit(10);
		sleep_ms(HOLD_MS);
		copy = (struct uffdio_copy){
			.dst = msg.arg.pagefault.address & ~(uint64_t)(page - 1),
			.src = (uintptr_t)src, .len = (uint64_t)page,
		};
		if (ioctl(uffd, UFFDIO_COPY, &copy))
			_exit(11);
	}
	return NULL;
}

/* A region of pages whose faults userfaultfd holds (the child exits if it cannot). */
static char *held_region(void)
{
	long page = sysconf(_SC_PAGESIZE);
	struct uffdio_api api = { .api = UFFD_API };
	struct uffdio_register reg;
	char *p = mmap(NULL, HELD_FAULTS * page, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	uffd = (int)syscall(SYS_userfaultfd, O_CLOEXEC);
	if (p == MAP_FAILED || uffd < 0 || ioctl(uffd, UFFDIO_API, &api))
		_exit(12);
	reg = (struct uffdio_register){
		.range = { .start = (uintptr_t)p, .len = HELD_FAULTS * page },
		.mode = UFFDIO_REGISTER_MODE_MISSING,
	};
	if (ioctl(uffd, UFFDIO_REGISTER, &reg))
		_exit(13);
	return p;
}

/*
 * spawn_piped()'s fn: on a byte, touches the held pages, each timed, and
 * the fresh ones; says what it saw and waits to be killed.
 */
static void latency_child(int go, int back)
{
	long page = sysconf(_SC_PAGESIZE);
	static char src[1 << 16] = { 1 };
	struct seen seen = { 0 };
	pthread_t server;
	char *held, *fresh;
	uint64_t t;

	if (prctl(PR_SET_THP_DISABLE, 1, 0, 0, 0))
		_exit(6);
	held = held_region();
	fresh = map_region(FRESH_PAGES);
	seen.held = (uintptr_t)held;
	seen.fresh = (uintptr_t)fresh;
	if (pthread_create(&server, NULL, serve_faults, src))
		_exit(7);
	child_waits(go);
	for (unsigned int i = 0; i < HELD_FAULTS; i++) {
		t = now_ns();
		*(volatile char *)(held + i * page) = 2;
		seen.held_ns += now_ns() - t;
	}
	t = now_ns();
	touch_region(fresh, FRESH_PAGES);
	seen.fresh_ns = now_ns() - t;
	pthread_join(server, NULL);
	if (write(back, &seen, sizeof(seen)) != sizeof(seen))
		_exit(4);
	for (;;)
		pause();
}

static void expect_counted_alike(const struct latency_sum *sum)
{
	static const char *const kind[] = { "minor", "major" };

	for (int major = 0; major < 2; major++) {
		uint64_t timed = total(sum->faults[major], 0);

		printf("  %s faults: %" PRIu64 " counted, %" PRIu64 " timed, %" PRIu64 " us\n",
		       kind[major], sum->counted[major], timed, total(sum->ns[major], 0) / 1000);
		expect(timed == sum->counted[major], "%s faults: the counts records say %" PRIu64
		       ", the latency records %" PRIu64, kind[major], sum->counted[major], timed);
	}
}

/* The faults that took half a hold or more, of either kind. */
static uint64_t held_or_longer(const struct latency_sum *sum)
{
	unsigned int from = bucket_at_least_ms(HOLD_MS / 2);

	return total(sum->faults[0], from) + total(sum->faults[1], from);
}

/* The held faults took their hold at least, and no more than user space saw. */
static void expect_held_timed(const struct latency_sum *sum, const struct seen *seen)
{
	unsigned int from = bucket_at_least_ms(HOLD_MS / 2);
	uint64_t faults = held_or_longer(sum);
	uint64_t ns = total(sum->ns[0], from) + total(sum->ns[1], from);

	printf("  held faults: %" PRIu64 " of %u ms or more, %" PRIu64 " us in all; "
	       "user space saw %" PRIu64 " us\n", faults, HOLD_MS / 2, ns / 1000, seen->held_ns / 1000);
	expect(faults >= HELD_FAULTS, "%u faults were held %u ms each, the latency records have %"
	       PRIu64 " of %u ms or more (an attempt that retried not carried?)", HELD_FAULTS, HOLD_MS,
	       faults, HOLD_MS / 2);
	expect(ns >= (uint64_t)HELD_FAULTS * HOLD_MS * 1000000, "the held faults took %" PRIu64
	       " us in the records, less than they were held", ns / 1000);
	/* Others this long (a loaded host) would make the sum larger than what was timed. */
	if (faults == HELD_FAULTS)
		expect(ns <= seen->held_ns, "the held faults took %" PRIu64 " us in the records, "
		       "user space saw their touches take %" PRIu64 " us", ns / 1000,
		       seen->held_ns / 1000);
}

/*
 * The faults shorter than the held ones (the held ones are minor on some
 * kernels, major on others, as the kernel counts them) are mostly the
 * fresh pages': their time is no more than user space saw the touches
 * take, and the handler is a good part of a touch.
 */
static void expect_fresh_timed(const struct latency_sum *sum, const struct seen *seen)
{
	unsigned int below = bucket_at_least_ms(HOLD_MS / 2);
	uint64_t faults = 0, ns = 0, others;
	uint64_t allowed;

	for (int major = 0; major < 2; major++) {
		faults += total(sum->faults[major], 0) - total(sum->faults[major], below);
		ns += total(sum->ns[major], 0) - total(sum->ns[major], below);
	}
	others = faults > FRESH_PAGES ? faults - FRESH_PAGES : 0;
	/* The other faults (its stack, its pipe, libc), each allowed ten times a touch. */
	allowed = seen->fresh_ns + others * 10 * (seen->fresh_ns / FRESH_PAGES);
	printf("  faults under %u ms: %" PRIu64 ", %" PRIu64 " us timed; the %u touches took %"
	       PRIu64 " us (%.2f)\n", HOLD_MS / 2, faults, ns / 1000, FRESH_PAGES,
	       seen->fresh_ns / 1000, (double)ns / (double)seen->fresh_ns);
	/* On a loaded host a fresh page's fault may take as long as a held one. */
	expect(faults + held_or_longer(sum) >= FRESH_PAGES + HELD_FAULTS, "%u fresh pages "
	       "touched, %" PRIu64 " faults timed under %u ms and %" PRIu64 " longer", FRESH_PAGES,
	       faults, HOLD_MS / 2, held_or_longer(sum));
	expect(ns <= allowed, "the faults under %u ms took %" PRIu64 " us in the records, the "
	       "touches %" PRIu64 " us", HOLD_MS / 2, ns / 1000, seen->fresh_ns / 1000);
	expect(ns * 20 >= seen->fresh_ns, "the faults under %u ms took %" PRIu64 " us in the "
	       "records, under 5 %% of the %" PRIu64 " us the touches took", HOLD_MS / 2,
	       ns / 1000, seen->fresh_ns / 1000);
}

/*
 * With maps too, each mapping's faults records carry their time: the held
 * region's is its held faults', and the mappings' add up to nearly all the
 * histograms' (a fault whose thread changed CPU between its perf event and
 * its return is not joined to its place).
 */
static void expect_placed_timed(const struct latency_sum *sum)
{
	uint64_t timed = total(sum->ns[0], 0) + total(sum->ns[1], 0);

	printf("  placed: %" PRIu64 " us of %" PRIu64 " us timed, the held region %" PRIu64
	       " faults, %" PRIu64 " us\n", sum->placed_ns / 1000, timed / 1000, sum->held_faults,
	       sum->held_ns / 1000);
	expect(sum->held_faults == HELD_FAULTS, "the held region's faults records count %" PRIu64
	       " faults, %u were taken there", sum->held_faults, HELD_FAULTS);
	expect(sum->held_ns >= (uint64_t)(HELD_FAULTS - 1) * HOLD_MS * 1000000, "the held "
	       "region's faults took %" PRIu64 " us in its records, %u faults were held %u ms each",
	       sum->held_ns / 1000, HELD_FAULTS, HOLD_MS);
	expect(sum->placed_ns <= timed && sum->placed_ns * 10 >= timed * 8, "the mappings' times "
	       "add up to %" PRIu64 " us, the histograms' to %" PRIu64 " us", sum->placed_ns / 1000,
	       timed / 1000);
}

/* The workload registered with @how ("latency" or "maps latency"), its records summed. */
static void run_timed(const char *how)
{
	bool maps = strstr(how, "maps");
	struct latency_sum sum = { 0 };
	struct mp3ring ring;
	int dev, go, back;
	struct seen seen;
	uint64_t from, to;
	char cmd[48];
	pid_t pid;

	map_ring(&ring, &dev);
	pid = spawn_piped(latency_child, &go, &back);
	from = mp3ring_head(&ring);
	snprintf(cmd, sizeof(cmd), "R %d %s", (int)pid, how);
	expect_ok(status_write(cmd), cmd);
	expect(write(go, "g", 1) == 1, "telling the workload to go: %s", strerror(errno));
	expect(read(back, &seen, sizeof(seen)) == sizeof(seen),
	       "the workload ended before its work was done");
	/* Its last faults are in the next sample: the one after that leaves no doubt. */
	to = wait_head(&ring, mp3ring_head(&ring) + 2, 10000);
	sum.tgid = (uint32_t)pid;
	if (maps)
		sum.held_start = mapping_start(pid, seen.held);
	for_each_record_between(&ring, from, to, add_latency, &sum);
	expect(ring.hdr->latency_missed == 0, "%" PRIu64 " faults not timed",
	       (uint64_t)ring.hdr->latency_missed);
	expect_counted_alike(&sum);
	expect_held_timed(&sum, &seen);
	expect_fresh_timed(&sum, &seen);
	if (maps)
		expect_placed_timed(&sum);
	else
		expect(!sum.placed_ns, "faults records with times for a process without maps");
	kill_and_reap(pid);
	mp3ring_unmap(&ring);
	close(dev);
}

void test_latency_known_waits(void)
{
	run_timed("latency");
}

void test_latency_per_mapping(void)
{
	run_timed("maps latency");
}

static bool probe_armed(void)
{
	return kprobe_state("handle_mm_fault") != KPROBE_ABSENT;
}

static void wait_disarmed(unsigned int timeout_ms)
{
	uint64_t until = now_ns() + timeout_ms * 1000000ULL;

	while (probe_armed()) {
		expect(now_ns() < until, "the probe on handle_mm_fault is still there %u ms after "
		       "the last registration with latency went", timeout_ms);
		sleep_ms(20);
	}
}

static void expect_nobody_refused(pid_t mine)
{
	int fd = nobody_status_fd();
	char cmd[48];

	snprintf(cmd, sizeof(cmd), "R %d latency", (int)mine);
	expect_errno(status_write_cmd_fd(fd, cmd), EPERM, "a user's R of its own process with latency");
	snprintf(cmd, sizeof(cmd), "T %d 4243", (int)mine);
	expect_ok(status_write_cmd_fd(fd, cmd), "a user's T of its own process");
	expect_errno(status_write_cmd_fd(fd, "L 4243"), EPERM, "a user's L of its own target");
	expect_ok(status_write_cmd_fd(fd, "X 4243"), "a user's X of its own target");
	close(fd);
}

/*
 * Who may ask, what is malformed, that a tree given "L" times its later
 * children too, and that the probe is there only while someone asks.
 */
void test_latency_opt_in(void)
{
	pid_t nobody = spawn_nobody_sleeper(), root, child = 0;
	struct latency_sum sum = { 0 };
	struct mp3ring ring;
	int dev, go, told;
	uint64_t from, to;
	char cmd[48];

	expect(!probe_armed(), "a probe on handle_mm_fault before any registration with latency");
	expect_nobody_refused(nobody);
	snprintf(cmd, sizeof(cmd), "R %d latency maps", (int)nobody);
	expect_errno(status_write(cmd), EINVAL, "latency before maps");
	expect_errno(status_write("L 4244"), ENOENT, "L of a target that has nothing");
	snprintf(cmd, sizeof(cmd), "R %d maps latency", (int)nobody);
	expect_ok(status_write(cmd), cmd);
	expect(probe_armed(), "no probe on handle_mm_fault after %s", cmd);
	expect_ok(status_cmd('U', nobody), "U of the process with latency");
	wait_disarmed(2000);

	map_ring(&ring, &dev);
	root = spawn_forker(&go, &told);
	snprintf(cmd, sizeof(cmd), "T %d 4244", (int)root);
	expect_ok(status_write(cmd), cmd);
	expect_ok(status_write("L 4244"), "L of the tree");
	from = mp3ring_head(&ring);
	expect(write(go, "f", 1) == 1 && read(told, &child, sizeof(child)) == sizeof(child),
	       "the forker's child: %s", strerror(errno));
	/* Its faults since the fork (its stack, copied on write) are timed, one for one. */
	expect(!kill(child, SIGKILL), "kill %d: %s", (int)child, strerror(errno));
	wait_unlisted(child, 5000);
	kill_and_reap(root);
	/* The tree empty, the sampler writes its last sample and stops. */
	wait_unlisted(root, 5000);
	to = wait_stopped(&ring);
	sum.tgid = (uint32_t)child;
	for_each_record_between(&ring, from, to, add_latency, &sum);
	expect(sum.counted[0] + sum.counted[1], "the child forked in the tree took no fault");
	expect_counted_alike(&sum);
	wait_disarmed(2000);
	kill_and_reap(nobody);
	mp3ring_unmap(&ring);
	close(dev);
}
