// SPDX-License-Identifier: GPL-2.0
/*
 * Device 423:0: the versioned ring's header, mmap's checks, read and poll,
 * the classic region, and samples missed by a slow reader.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "harness.h"
#include "tests.h"

#define NODE_PATH "/tmp/node"	/* what the course does: mknod node c 423 0 */

static uint64_t ns_to_jiffies(uint64_t ns, uint32_t hz)
{
	return ns / (1000000000ULL / hz);
}

/* Classic slot n holds the same sample as ring sample n. */
static void expect_classic_matches(const struct mp3_classic_sample *slot,
				   const struct mp3_ring_sample *s, uint32_t hz)
{
	uint64_t cpu = ns_to_jiffies(s->cpu_ns_total, hz) -
		       ns_to_jiffies(s->cpu_ns_total - s->cpu_ns, hz);

	expect(slot->jiffies == s->jiffies && slot->minor_faults == s->minor_faults &&
	       slot->major_faults == s->major_faults && slot->cpu_jiffies == cpu,
	       "classic slot of sample %llu holds {%lu %lu %lu %lu}, ring has {%llu %llu %llu cpu %llu}",
	       (unsigned long long)s->seq, slot->jiffies, slot->minor_faults,
	       slot->major_faults, slot->cpu_jiffies, (unsigned long long)s->jiffies,
	       (unsigned long long)s->minor_faults, (unsigned long long)s->major_faults,
	       (unsigned long long)cpu);
}

static bool slot_empty(const struct mp3_classic_sample *slot)
{
	return slot->jiffies == MP3_CLASSIC_EMPTY && slot->minor_faults == MP3_CLASSIC_EMPTY &&
	       slot->major_faults == MP3_CLASSIC_EMPTY && slot->cpu_jiffies == MP3_CLASSIC_EMPTY;
}

void test_header_fields(void)
{
	const struct mp3_ring_header *h;
	struct mp3ring ring;
	uint64_t first_id;
	int fd;

	map_ring(&ring, &fd);
	h = ring.hdr;
	/* Loaded with its defaults: event sampling, which version 3 readers must refuse. */
	expect(h->magic == MP3_RING_MAGIC && h->version == MP3_RING_VERSION &&
	       h->compat_version == MP3_RING_ACTIVE_ONLY_COMPAT_VERSION &&
	       h->flags == (MP3_RING_ACTIVE_ONLY | kernel_stalls_flag()),
	       "magic %#x version %u compat %u flags %#x",
	       h->magic, h->version, h->compat_version, h->flags);
	expect(h->header_size == sizeof(*h) && h->sample_size == sizeof(struct mp3_ring_sample),
	       "header_size %u sample_size %u", h->header_size, h->sample_size);
	expect(h->capacity == MP3_RING_CAPACITY && h->data_offset % 4096 == 0 &&
	       h->record_offset == h->data_offset + (uint64_t)h->capacity * h->sample_size,
	       "capacity %u data_offset %u record_offset %u", h->capacity, h->data_offset,
	       h->record_offset);
	expect(h->record_capacity == MP3_RECORD_CAPACITY &&
	       h->record_size == sizeof(struct mp3_proc_record) &&
	       h->region_size == h->record_offset +
				 (uint64_t)h->record_capacity * h->record_size,
	       "record_capacity %u record_size %u region_size %llu", h->record_capacity,
	       h->record_size, (unsigned long long)h->region_size);
	expect(h->record_head == 0, "record_head %llu on a fresh load",
	       (unsigned long long)h->record_head);
	expect(h->hz == 100 || h->hz == 250 || h->hz == 300 || h->hz == 1000, "hz %u", h->hz);
	expect(h->period_ns == 50000000 && h->head == 0 && h->sampler_ticks == 0,
	       "period_ns %llu head %llu ticks %llu on a fresh load",
	       (unsigned long long)h->period_ns, (unsigned long long)h->head,
	       (unsigned long long)h->sampler_ticks);
	expect(h->load_id != 0, "load_id is 0");
	first_id = h->load_id;
	mp3ring_unmap(&ring);
	close(fd);
	expect_ok(module_unload(), "unloading");
	expect_ok(module_load(NULL), "reloading");
	map_ring(&ring, &fd);
	expect(ring.load_id != first_id, "load_id %llx did not change on reload",
	       (unsigned long long)first_id);
	expect_ok(status_cmd('R', spawn_sleeper()), "R sleeper");
	wait_head(&ring, 3, 2000);
	expect(ring.hdr->sampler_ticks >= 3 && ring.hdr->sampler_ns_total >= ring.hdr->sampler_ns_max &&
	       ring.hdr->sampler_ns_max >= ring.hdr->sampler_ns_last && ring.hdr->sampler_ns_last > 0,
	       "sampler cost: ticks %llu total %llu max %llu last %llu",
	       (unsigned long long)ring.hdr->sampler_ticks,
	       (unsigned long long)ring.hdr->sampler_ns_total,
	       (unsigned long long)ring.hdr->sampler_ns_max,
	       (unsigned long long)ring.hdr->sampler_ns_last);
	close(fd);
}

void test_classic_protocol(void)
{
	struct mp3_classic_sample *classic;
	struct mp3_ring_sample s;
	struct mp3ring ring;
	struct worker w;
	uint64_t head, next = 0, missed = 0;
	char *argv[] = { "./monitor", NODE_PATH, NULL };
	FILE *out;
	int fd, lines = 0;

	expect(mknod(NODE_PATH, S_IFCHR | 0600, makedev(MP3_CHRDEV_MAJOR, MP3_CHRDEV_MINOR)) == 0 ||
	       errno == EEXIST, "mknod %s: %s", NODE_PATH, strerror(errno));
	map_ring(&ring, &fd);
	classic = map_classic();
	for (int i = 0; i < MP3_CLASSIC_SAMPLES; i++)
		expect(slot_empty(&classic[i]), "classic slot %d is not -1 on a fresh load", i);
	worker_spawn(&w);
	expect_ok(status_cmd('R', w.pid), "R worker");
	worker_do(&w, 't', 1024);
	worker_do(&w, 'c', 200);
	wait_head(&ring, 10, 3000);
	expect_ok(status_cmd('U', w.pid), "U worker");
	head = wait_stopped(&ring);
	for (; mp3ring_read(&ring, &next, &s, &missed) == MP3RING_SAMPLE;)
		expect_classic_matches(&classic[s.seq], &s, ring.hdr->hz);
	expect(slot_empty(&classic[head]), "slot %llu after the last sample is not -1",
	       (unsigned long long)head);

	expect(run_program(argv, "/tmp/monitor.out") == 0, "monitor %s failed", NODE_PATH);
	out = fopen("/tmp/monitor.out", "r");
	expect(out != NULL, "monitor wrote no output");
	for (unsigned long j, mi, ma, c; fscanf(out, "%lu %lu %lu %lu", &j, &mi, &ma, &c) == 4; lines++) {
		struct mp3_classic_sample printed = { j, mi, ma, c };

		next = lines;
		expect(mp3ring_read(&ring, &next, &s, &missed) == MP3RING_SAMPLE && !missed,
		       "ring sample %d unreadable", lines);
		expect_classic_matches(&printed, &s, ring.hdr->hz);
	}
	fclose(out);
	expect((uint64_t)lines == head, "monitor printed %d samples, %llu were taken", lines,
	       (unsigned long long)head);
	for (uint64_t i = 0; i < head; i++)
		expect(slot_empty(&classic[i]), "monitor did not write -1 back into slot %llu",
		       (unsigned long long)i);
	expect(run_program(argv, "/tmp/monitor.out") == 0, "second monitor run failed");
	out = fopen("/tmp/monitor.out", "r");
	expect(out && fgetc(out) == EOF, "a second monitor run printed consumed samples again");
	fclose(out);
	close(fd);
}

/* Both short-period tests wait for the buffers to wrap; 1 ms period. */
static uint64_t run_until(struct mp3ring *ring, uint64_t samples)
{
	pid_t pid = spawn_sleeper();

	expect_ok(status_cmd('R', pid), "R sleeper");
	wait_head(ring, samples, 60000);
	expect_ok(status_cmd('U', pid), "U sleeper");
	return wait_stopped(ring);
}

void test_classic_wrap(void)
{
	struct mp3_classic_sample *classic;
	struct mp3_ring_sample s;
	struct mp3ring ring;
	uint64_t head, next, missed = 0;
	int fd;

	map_ring(&ring, &fd);
	expect(ring.hdr->period_ns == 1000000, "period_ms=1 gave period_ns %llu",
	       (unsigned long long)ring.hdr->period_ns);
	classic = map_classic();
	head = run_until(&ring, MP3_CLASSIC_SAMPLES + 100);
	printf("  classic_wrap: %llu samples\n", (unsigned long long)head);
	/* Every slot holds the newest sample that maps to it. */
	next = head > ring.capacity ? head - ring.capacity : 0;
	if (next < head - MP3_CLASSIC_SAMPLES)
		next = head - MP3_CLASSIC_SAMPLES;
	for (; mp3ring_read(&ring, &next, &s, &missed) == MP3RING_SAMPLE;)
		expect_classic_matches(&classic[s.seq % MP3_CLASSIC_SAMPLES], &s, ring.hdr->hz);
	expect(missed == 0, "missed %llu", (unsigned long long)missed);
	expect(classic[0].jiffies >= classic[MP3_CLASSIC_SAMPLES - 1].jiffies,
	       "slot 0 was not overwritten after slot 11999");
	close(fd);
}

void test_ring_missed(void)
{
	struct mp3_ring_sample s;
	struct mp3ring ring;
	uint64_t head, next = 0, missed = 0, got = 0, expect_seq;
	int fd;

	map_ring(&ring, &fd);
	head = run_until(&ring, ring.capacity + 123);
	printf("  ring_missed: head %llu, capacity %llu\n", (unsigned long long)head,
	       (unsigned long long)ring.capacity);
	expect_seq = head - ring.capacity;
	while (mp3ring_read(&ring, &next, &s, &missed) == MP3RING_SAMPLE) {
		expect(s.seq == expect_seq, "read sample %llu, expected %llu",
		       (unsigned long long)s.seq, (unsigned long long)expect_seq);
		expect_seq++;
		got++;
	}
	expect(missed == head - ring.capacity, "reader from 0 missed %llu, want %llu",
	       (unsigned long long)missed, (unsigned long long)(head - ring.capacity));
	expect(got == ring.capacity && next == head, "got %llu samples, next %llu",
	       (unsigned long long)got, (unsigned long long)next);
	close(fd);
}

struct map_case {
	const char *what;
	int open_flags;
	int prot, flags;
	off_t offset;
	size_t len;	/* 0: the region's size */
	long extra;	/* added to len */
	int want;	/* errno, 0 for success */
};

static void try_map(const struct map_case *c, size_t region_size)
{
	int fd = open_device(c->open_flags);
	size_t len = (c->len ? c->len : region_size) + c->extra;
	void *p = mmap(NULL, len, c->prot, c->flags, fd, c->offset);
	int got = p == MAP_FAILED ? errno : 0;

	if (p != MAP_FAILED)
		munmap(p, len);
	close(fd);
	expect(got == c->want, "%s: got %s, want %s", c->what, errno_name(got), errno_name(c->want));
}

void test_mmap_checks(void)
{
	struct mp3ring ring;
	size_t ring_size;
	char *p;
	int fd;

	map_ring(&ring, &fd);
	ring_size = ring.region_size;
	const struct map_case cases[] = {
		{ "classic, whole", O_RDWR, PROT_READ | PROT_WRITE, MAP_SHARED, 0, MP3_CLASSIC_SIZE, 0, 0 },
		{ "classic, one page", O_RDWR, PROT_READ, MAP_SHARED, 0, 4096, 0, 0 },
		{ "classic, a page too long", O_RDWR, PROT_READ, MAP_SHARED, 0, MP3_CLASSIC_SIZE, 4096, EINVAL },
		{ "classic, from page 1", O_RDWR, PROT_READ, MAP_SHARED, 4096, 4096, 0, EINVAL },
		{ "classic, private", O_RDWR, PROT_READ | PROT_WRITE, MAP_PRIVATE, 0, MP3_CLASSIC_SIZE, 0, EINVAL },
		{ "classic, read-only from O_RDONLY", O_RDONLY, PROT_READ, MAP_SHARED, 0, MP3_CLASSIC_SIZE, 0, 0 },
		{ "classic, writable from O_RDONLY", O_RDONLY, PROT_READ | PROT_WRITE, MAP_SHARED, 0, MP3_CLASSIC_SIZE, 0, EACCES },
		{ "ring, whole, read-only", O_RDONLY, PROT_READ, MAP_SHARED, MP3_RING_OFFSET, 0, 0, 0 },
		{ "ring, writable", O_RDWR, PROT_READ | PROT_WRITE, MAP_SHARED, MP3_RING_OFFSET, 0, 0, EPERM },
		{ "ring, writable private", O_RDWR, PROT_READ | PROT_WRITE, MAP_PRIVATE, MP3_RING_OFFSET, 0, 0, EPERM },
		{ "ring, a page too long", O_RDONLY, PROT_READ, MAP_SHARED, MP3_RING_OFFSET, 0, 4096, EINVAL },
		{ "ring, from page 1", O_RDONLY, PROT_READ, MAP_SHARED, MP3_RING_OFFSET + 4096, 4096, 0, EINVAL },
		{ "between the regions", O_RDONLY, PROT_READ, MAP_SHARED, MP3_CLASSIC_SIZE, 4096, 0, EINVAL },
		{ "past the ring", O_RDONLY, PROT_READ, MAP_SHARED, MP3_RING_OFFSET * 2, 4096, 0, EINVAL },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		try_map(&cases[i], ring_size);
	p = (char *)ring.hdr;
	expect(mprotect(p, 4096, PROT_READ | PROT_WRITE) == -1 && errno == EACCES,
	       "mprotect(PROT_WRITE) of the ring: got %s, want EACCES",
	       errno_name(errno));
	close(fd);
}

/*
 * Tries each way of writing into the versioned region that fd could offer:
 * a writable mapping, mprotect() of a read-only one, and the ptrace path,
 * /proc/self/mem, which writes through read-only mappings with FOLL_FORCE.
 */
static void expect_ring_unwritable(int fd)
{
	const char *who = geteuid() ? "uid 65534" : "root";
	uint32_t forged = ~MP3_RING_MAGIC;
	struct mp3ring ring;
	ssize_t written;
	void *p;
	int mem, ret;

	p = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, fd, MP3_RING_OFFSET);
	expect(p == MAP_FAILED && errno == EPERM, "%s mapping the ring writable: got %s, want EPERM",
	       who, p == MAP_FAILED ? errno_name(errno) : "a mapping");
	expect_ok(mp3ring_map(&ring, fd), "mapping the ring read-only");
	ret = mprotect((void *)ring.hdr, 4096, PROT_READ | PROT_WRITE);
	expect(ret == -1 && errno == EACCES,
	       "%s making the ring writable with mprotect(): got %s, want EACCES", who,
	       ret ? errno_name(errno) : "success");
	mem = open("/proc/self/mem", O_RDWR | O_CLOEXEC);
	if (mem < 0)
		fail("open /proc/self/mem: %s", strerror(errno));
	written = pwrite(mem, &forged, sizeof(forged), (off_t)(uintptr_t)ring.hdr);
	expect(written == -1 && errno == EIO,
	       "%s writing the ring through /proc/self/mem: got %s, want EIO", who,
	       written == -1 ? errno_name(errno) : "success");
	close(mem);
	expect(ring.hdr->magic == MP3_RING_MAGIC, "the ring's magic changed to %#x", ring.hdr->magic);
	mp3ring_unmap(&ring);
}

static void ring_unwritable_as_nobody(int fd)
{
	become_nobody();
	expect_ring_unwritable(fd);
}

void test_ring_unwritable(void)
{
	/* The strongest descriptor there is, handed to an unprivileged user. */
	int fd = open_device(O_RDWR);

	expect_ring_unwritable(fd);
	in_child(ring_unwritable_as_nobody, fd, "the unprivileged writer");
	close(fd);
}

void test_read_poll(void)
{
	struct pollfd pfd[2];
	uint64_t head, again;
	int fd = open_device(O_RDONLY | O_NONBLOCK);
	int other = open_device(O_RDONLY);
	char small[4];

	expect(read(fd, &head, sizeof(head)) == -1 && errno == EAGAIN,
	       "read with no sample yet: got %s, want EAGAIN", errno_name(errno));
	expect(read(fd, small, sizeof(small)) == -1 && errno == EINVAL,
	       "read of 4 bytes: got %s, want EINVAL", errno_name(errno));
	pfd[0] = (struct pollfd){ .fd = fd, .events = POLLIN };
	pfd[1] = (struct pollfd){ .fd = other, .events = POLLIN };
	expect(poll(pfd, 2, 200) == 0, "poll with no sample returned ready");
	expect_ok(status_cmd('R', spawn_sleeper()), "R sleeper");
	expect(poll(pfd, 2, 2000) == 2 && (pfd[0].revents & POLLIN) && (pfd[1].revents & POLLIN),
	       "poll did not wake both readers on a new sample");
	expect(read(fd, &head, sizeof(head)) == sizeof(head) && head >= 1,
	       "non-blocking read after a sample: %s", strerror(errno));
	if (read(fd, &again, sizeof(again)) == sizeof(again))
		expect(again > head, "read returned head %llu twice", (unsigned long long)head);
	else
		expect(errno == EAGAIN, "second read: got %s", errno_name(errno));
	/* The other reader's position is its own; it blocks for the next one. */
	expect(read(other, &again, sizeof(again)) == sizeof(again) && again >= head,
	       "blocking read: %s", strerror(errno));
	expect(read(other, &head, sizeof(head)) == sizeof(head) && head > again,
	       "blocking read returned head %llu after %llu", (unsigned long long)head,
	       (unsigned long long)again);
	close(fd);
	close(other);
}
