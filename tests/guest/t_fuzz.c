// SPDX-License-Identifier: GPL-2.0
/*
 * Hostile input: generated writes to /proc/mp3/status and generated mmap()
 * calls, each checked against what the interface (include/uapi/linux/mp3.h)
 * says it must give, and the registered list against what succeeded.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "harness.h"
#include "tests.h"

#define FUZZ_WRITES 100000
#define FUZZ_MAPS 20000
#define SLEEPERS 8
#define PAGE 4096UL

/* xorshift64*: the same sequence for the same seed, printed for replays. */
static uint64_t rng_state;

static uint64_t rnd(void)
{
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return rng_state * 2685821657736338717ULL;
}

static uint64_t rnd_below(uint64_t n)
{
	return rnd() % n;
}

static void seed_rng(void)
{
	const char *env = getenv("PFPROF_FUZZ_SEED");

	rng_state = env ? strtoull(env, NULL, 0) : 0x9e3779b97f4a7c15ULL;
	if (!rng_state)
		rng_state = 1;
	printf("  seed %#llx (PFPROF_FUZZ_SEED replays it)\n", (unsigned long long)rng_state);
}

/* The kernel's isspace(): its ctype table also counts 0xa0 as a space. */
static bool kernel_space(unsigned char c)
{
	return (c >= 9 && c <= 13) || c == ' ' || c == 0xa0;
}

/*
 * What mp3's parser makes of a write, by the interface's rules: 0 and the
 * command and PID, or -EINVAL.
 */
static int reference_parse(const char *buf, size_t len, char *cmd, long long *pid)
{
	size_t start = 0, end = len, i;
	long long value = 0;

	if (len > MP3_STATUS_MAX_WRITE || memchr(buf, '\0', len))
		return -EINVAL;
	while (start < end && kernel_space(buf[start]))
		start++;
	while (end > start && kernel_space(buf[end - 1]))
		end--;
	if (end - start < 3 || (buf[start] != 'R' && buf[start] != 'U') ||
	    !kernel_space(buf[start + 1]))
		return -EINVAL;
	for (i = start + 1; i < end && kernel_space(buf[i]); i++)
		;
	if (i == end)
		return -EINVAL;
	for (; i < end; i++) {
		if (buf[i] < '0' || buf[i] > '9')
			return -EINVAL;
		value = value * 10 + (buf[i] - '0');
		if (value > INT_MAX)
			return -EINVAL;
	}
	if (value <= 0)
		return -EINVAL;
	*cmd = buf[start];
	*pid = value;
	return 0;
}

struct model {
	pid_t sleepers[SLEEPERS];
	bool registered[SLEEPERS];
};

static int sleeper_index(const struct model *m, long long pid)
{
	for (int i = 0; i < SLEEPERS; i++)
		if (m->sleepers[i] == pid)
			return i;
	return -1;
}

static const char *const spaces[] = { " ", "\t", "\n", "  ", "\r\n", "\v", "\f", "\xa0" };
static const char *const junk[] = {
	"+", "-", "0x", "00", "1e3", "R", "U", "r", "u", "x", " 7", "\\0", "2147483648",
	"4294967296", "99999999999999999999", "-1", "0", "\xff", "R 1 2", ",",
};

static const char *pick(const char *const *list, size_t n)
{
	return list[rnd_below(n)];
}

#define PICK(list) pick(list, sizeof(list) / sizeof(list[0]))

/* One generated write: mostly near-valid commands, some pure noise. */
static size_t generate(const struct model *m, char *buf, size_t size)
{
	long long pid = rnd_below(4) ? m->sleepers[rnd_below(SLEEPERS)]
				     : 4194304 + (long long)rnd_below(INT_MAX - 4194304);
	const char *letter = rnd_below(8) ? (rnd_below(2) ? "R" : "U") : PICK(junk);
	size_t len;

	switch (rnd_below(10)) {
	case 0:		/* noise of any length, NULs included */
		len = rnd_below(96);
		for (size_t i = 0; i < len; i++)
			buf[i] = rnd();
		return len;
	case 1:		/* far too long */
		len = MP3_STATUS_MAX_WRITE + 1 + rnd_below(size - MP3_STATUS_MAX_WRITE - 1);
		memset(buf, ' ', len);
		memcpy(buf + len - 4, "R 1", 3);
		return len;
	case 2:		/* empty */
		return 0;
	case 3:		/* junk inside or after the number */
		return snprintf(buf, size, "%s %lld%s", letter, pid, PICK(junk));
	case 4:		/* junk instead of the number */
		return snprintf(buf, size, "%s %s", letter, PICK(junk));
	case 5:		/* an embedded NUL */
		len = snprintf(buf, size, "%s %lld", letter, pid);
		buf[rnd_below(len)] = '\0';
		return len;
	default:	/* a command with white space around and between */
		return snprintf(buf, size, "%s%s%s%s%lld%s", rnd_below(2) ? PICK(spaces) : "",
				letter, PICK(spaces), rnd_below(3) ? "" : PICK(spaces), pid,
				rnd_below(2) ? PICK(spaces) : "");
	}
}

/* A PID that exists now, other than the sleepers (rare: junk made a number). */
static bool other_process(long long pid)
{
	char path[64];

	snprintf(path, sizeof(path), "/proc/%lld", pid);
	return pid <= 4194304 && access(path, F_OK) == 0;
}

/*
 * The errno (0: success) a write must give, from the model; *who is the
 * sleeper it concerns (-1: none), *cmd the command. Returns 1 when the PID
 * names some other process, whose answer depends on what it is.
 */
static int expected_result(struct model *m, const char *buf, size_t len, int *who, char *cmd,
			   int *want)
{
	long long pid;
	int i;

	*who = -1;
	*want = reference_parse(buf, len, cmd, &pid);
	if (*want)
		return 0;
	i = sleeper_index(m, pid);
	if (i < 0) {
		if (other_process(pid))
			return 1;
		*want = *cmd == 'R' ? -ESRCH : -ENOENT;
		return 0;
	}
	*who = i;
	if (*cmd == 'R')
		*want = m->registered[i] ? -EEXIST : 0;
	else
		*want = m->registered[i] ? 0 : -ENOENT;
	return 0;
}

static void check_listing(const struct model *m, const char *when)
{
	pid_t want[SLEEPERS];
	int n = 0;

	for (int i = 0; i < SLEEPERS; i++)
		if (m->registered[i])
			want[n++] = m->sleepers[i];
	expect_listing(want, n, when);
}

static void show(const char *buf, size_t len, char *out, size_t size)
{
	size_t o = 0;

	for (size_t i = 0; i < len && o + 5 < size; i++)
		o += snprintf(out + o, size - o, (unsigned char)buf[i] >= 32 &&
			      (unsigned char)buf[i] < 127 ? "%c" : "\\x%02x",
			      (unsigned char)buf[i]);
	out[o] = '\0';
}

void test_fuzz_status(void)
{
	static char buf[8192];
	const int writes = count_from_env("PFPROF_FUZZ_WRITES", FUZZ_WRITES);
	struct model m = { 0 };
	unsigned long successes = 0;

	seed_rng();
	for (int i = 0; i < SLEEPERS; i++)
		m.sleepers[i] = spawn_sleeper();
	for (int n = 1; n <= writes; n++) {
		size_t len = generate(&m, buf, sizeof(buf));
		int who, want, got;
		char cmd;
		bool other = expected_result(&m, buf, len, &who, &cmd, &want);

		got = status_write_len(buf, len);
		if (other) {
			/* Registered some other process: take it back off the list. */
			if (!got && cmd == 'R') {
				buf[strcspn(buf, "R")] = 'U';
				expect_ok(status_write_len(buf, len), "undoing a register");
			}
			continue;
		}
		if (got != want) {
			char text[200];

			show(buf, len > 40 ? 40 : len, text, sizeof(text));
			fail("write %d of %zu bytes \"%s\": %s, want %s", n, len, text,
			     errno_name(got), errno_name(want));
		}
		if (!got && who >= 0) {
			m.registered[who] = cmd == 'R';
			successes++;
		}
		if (n % 5000 == 0)
			check_listing(&m, "during the fuzzing");
	}
	check_listing(&m, "after the fuzzing");
	printf("  %d writes, %lu succeeded, every result as the interface says\n", writes,
	       successes);
}

/* A mapping request and what the interface says it gives. */
struct map_case {
	size_t len;
	off_t offset;
	int prot;
	int flags;
	bool read_write_fd;
};

static int expected_map(const struct map_case *c, size_t ring_size)
{
	size_t size = c->offset == (off_t)MP3_RING_OFFSET ? ring_size :
		      c->offset == (off_t)MP3_CLASSIC_OFFSET ? MP3_CLASSIC_SIZE : 0;
	size_t pages = (c->len + PAGE - 1) / PAGE * PAGE;
	bool shared = c->flags == MAP_SHARED;

	if (!c->len || c->offset % PAGE)
		return -EINVAL;
	if (shared && (c->prot & PROT_WRITE) && !c->read_write_fd)
		return -EACCES;
	if (!size || pages > size)
		return -EINVAL;
	if (c->offset == (off_t)MP3_CLASSIC_OFFSET)
		return shared ? 0 : -EINVAL;
	return c->prot & PROT_WRITE ? -EPERM : 0;
}

static off_t random_offset(void)
{
	static const off_t near[] = { 0, PAGE, MP3_RING_OFFSET, MP3_RING_OFFSET + PAGE,
				      MP3_RING_OFFSET - PAGE, MP3_CLASSIC_SIZE, 1, 17 };

	if (rnd_below(8))
		return near[rnd_below(rnd_below(2) ? 3 : sizeof(near) / sizeof(near[0]))];
	return rnd_below(1UL << 30) & ~(rnd_below(2) ? PAGE - 1 : 0);
}

static size_t random_length(size_t ring_size)
{
	size_t sizes[] = { 0, 1, PAGE - 1, PAGE, MP3_CLASSIC_SIZE - 1, MP3_CLASSIC_SIZE,
			   MP3_CLASSIC_SIZE + 1, ring_size, ring_size + 1, ring_size + PAGE };

	if (rnd_below(4))
		return sizes[rnd_below(sizeof(sizes) / sizeof(sizes[0]))];
	return rnd_below(4UL << 20);
}

/* After a successful mapping: readable, and mprotect() cannot add writing where refused. */
static void check_mapping(const struct map_case *c, void *addr)
{
	bool may_write = c->offset == (off_t)MP3_CLASSIC_OFFSET && c->read_write_fd;
	int err;

	(void)*(volatile const unsigned char *)addr;
	err = mprotect(addr, PAGE, PROT_READ | PROT_WRITE) ? -errno : 0;
	expect(may_write ? !err : err == -EACCES,
	       "mprotect(PROT_WRITE) at offset %#lx, %s descriptor: %s", (unsigned long)c->offset,
	       c->read_write_fd ? "read-write" : "read-only", errno_name(err));
}

void test_fuzz_mmap(void)
{
	static const int prots[] = { PROT_READ, PROT_WRITE, PROT_READ | PROT_WRITE,
				     PROT_READ | PROT_EXEC, PROT_NONE };
	int fds[2] = { open_device(O_RDONLY), open_device(O_RDWR) };
	struct mp3ring ring;
	size_t ring_size;
	unsigned long mapped = 0;

	seed_rng();
	expect_ok(mp3ring_map(&ring, fds[0]), "mapping the versioned region");
	ring_size = ring.region_size;
	mp3ring_unmap(&ring);
	for (int n = 1; n <= FUZZ_MAPS; n++) {
		struct map_case c = {
			.len = random_length(ring_size),
			.offset = random_offset(),
			.prot = prots[rnd_below(sizeof(prots) / sizeof(prots[0]))],
			.flags = rnd_below(3) ? MAP_SHARED : MAP_PRIVATE,
			.read_write_fd = rnd_below(2),
		};
		int want = expected_map(&c, ring_size), got;
		void *addr = mmap(NULL, c.len, c.prot, c.flags, fds[c.read_write_fd], c.offset);

		got = addr == MAP_FAILED ? -errno : 0;
		expect(got == want, "mmap %d: len %zu offset %#lx prot %#x %s on a %s descriptor: "
		       "%s, want %s", n, c.len, (unsigned long)c.offset, c.prot,
		       c.flags == MAP_SHARED ? "shared" : "private",
		       c.read_write_fd ? "read-write" : "read-only", errno_name(got),
		       errno_name(want));
		if (got)
			continue;
		if (c.prot & PROT_READ)
			check_mapping(&c, addr);
		munmap(addr, c.len);
		mapped++;
	}
	close(fds[0]);
	close(fds[1]);
	printf("  %d mmap calls, %lu mapped, every result as the interface says\n", FUZZ_MAPS,
	       mapped);
}
