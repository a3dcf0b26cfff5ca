// SPDX-License-Identifier: GPL-2.0
/*
 * What the guest tests share: the device, its classic region and its ring
 * mapped, and waits for samples.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "harness.h"
#include "stalls.h"

int open_device(int flags)
{
	int fd = open(MP3_DEVICE_PATH, flags | O_CLOEXEC);

	if (fd < 0)
		fail("open %s: %s", MP3_DEVICE_PATH, strerror(errno));
	return fd;
}

/* Maps the classic region read-write, as monitor does. */
struct mp3_classic_sample *map_classic(void)
{
	int fd = open_device(O_RDWR);
	void *p = mmap(NULL, MP3_CLASSIC_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED, fd,
		       MP3_CLASSIC_OFFSET);

	if (p == MAP_FAILED)
		fail("mmap of the classic region: %s", strerror(errno));
	close(fd);
	return p;
}

void map_ring(struct mp3ring *ring, int *fd)
{
	*fd = open_device(O_RDONLY);
	expect_ok(mp3ring_map(ring, *fd), "mapping the versioned region");
}

uint32_t kernel_stalls_flag(void)
{
	return access(DELAYACCT_SYSCTL, F_OK) ? 0 : MP3_RING_STALLS;
}

uint64_t wait_head(const struct mp3ring *ring, uint64_t target, unsigned int timeout_ms)
{
	uint64_t deadline = now_ns() + (timeout_ms = scaled_ms(timeout_ms)) * 1000000ULL;
	uint64_t head;

	while ((head = mp3ring_head(ring)) < target) {
		if (now_ns() > deadline)
			fail("head stayed at %llu, waited %u ms for %llu",
			     (unsigned long long)head, timeout_ms, (unsigned long long)target);
		sleep_ms(2);
	}
	return head;
}

unsigned int ticks_ms(const struct mp3ring *ring, unsigned int ticks)
{
	return ticks * (unsigned int)(ring->hdr->period_ns / 1000000) + 10000;
}

/* Whether record record_head is written for sample head, not yet published. */
static bool record_unpublished(const struct mp3ring *ring, uint64_t record_head, uint64_t head)
{
	struct mp3_proc_record r;

	return mp3ring_read_record(ring, record_head, head, &r);
}

uint64_t wait_stopped(const struct mp3ring *ring)
{
	unsigned int settle_ms = 3 * ring->hdr->period_ns / 1000000 + 1;
	/* Before the head: a sample published between the two loads then owns the record. */
	uint64_t record_head = __atomic_load_n(&ring->hdr->record_head, __ATOMIC_ACQUIRE);
	uint64_t head = mp3ring_head(ring);

	/* The last sample may wait long for a CPU: the debug kernel under TCG, beside other guests. */
	if (record_unpublished(ring, record_head, head))
		head = wait_head(ring, head + 1, 60000);
	if (settle_ms < 100)
		settle_ms = 100;
	sleep_ms(settle_ms);
	expect(head == mp3ring_head(ring), "samples after the last process's last one: %llu, then %llu",
	       (unsigned long long)head, (unsigned long long)mp3ring_head(ring));
	return head;
}

void sum_samples(const struct mp3ring *ring, uint64_t from, uint64_t to,
		 struct sample_sum *sum)
{
	struct mp3_ring_sample s;
	uint64_t next = from, missed = 0;

	memset(sum, 0, sizeof(*sum));
	while (next < to) {
		if (mp3ring_read(ring, &next, &s, &missed) != MP3RING_SAMPLE)
			fail("sample %llu is not published", (unsigned long long)next);
		if (missed)
			fail("missed %llu samples before %llu", (unsigned long long)missed,
			     (unsigned long long)s.seq);
		sum->minor += s.minor_faults;
		sum->major += s.major_faults;
		sum->cpu_ns += s.cpu_ns;
		sum->samples++;
		if (s.nr_procs > sum->max_procs)
			sum->max_procs = s.nr_procs;
	}
}

void for_each_record_between(const struct mp3ring *ring, uint64_t from, uint64_t to,
			     void (*fn)(void *ctx, const struct mp3_proc_record *r), void *ctx)
{
	uint64_t next = from, missed = 0;
	struct mp3_ring_sample s;

	while (next < to) {
		expect(mp3ring_read(ring, &next, &s, &missed) == MP3RING_SAMPLE,
		       "sample %llu not published", (unsigned long long)next);
		expect(!missed, "%llu samples missed before %llu", (unsigned long long)missed,
		       (unsigned long long)next);
		expect(!mp3ring_for_each_record(ring, &s, fn, ctx), "records of sample %llu lost",
		       (unsigned long long)s.seq);
	}
}

/* Whether @pid has the ring mapped: a line of its maps names the device. */
static bool ring_mapped_by(pid_t pid)
{
	char path[64], line[512];
	bool mapped = false;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/maps", (int)pid);
	f = fopen(path, "re");
	if (!f)
		return false;
	while (!mapped && fgets(line, sizeof(line), f))
		mapped = strstr(line, " " MP3_DEVICE_PATH "\n") != NULL;
	fclose(f);
	return mapped;
}

void wait_ring_mapped(pid_t pid, unsigned int timeout_ms)
{
	timeout_ms = scaled_ms(timeout_ms);
	for (unsigned int waited = 0; !ring_mapped_by(pid); waited += 10) {
		expect(waited < timeout_ms, "PID %d did not map %s in %u ms", (int)pid,
		       MP3_DEVICE_PATH, timeout_ms);
		usleep(10000);
	}
}
