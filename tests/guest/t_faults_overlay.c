// SPDX-License-Identifier: GPL-2.0
/*
 * A file mapped through overlayfs, as a container's programs and libraries
 * are: its faults records name it by the device and inode that
 * /proc/PID/maps shows, which pfprofd matches them with.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include "harness.h"
#include "mapschild.h"
#include "pfprof.h"
#include "tests.h"

#define OVERLAY_DIR "/tmp/mp3-overlay"
#define OVERLAY_FILE OVERLAY_DIR "/merged/file"
#define OVERLAY_PAGES 16

/* What /proc/PID/maps says of the mapping at an address. */
struct maps_file {
	uint64_t start, inode;
	unsigned int major, minor;
};

/* The lower file of the overlay; false if the kernel has no overlayfs. */
static bool overlay_mount(char *why, size_t size)
{
	static char page[65536];
	const char *options = "lowerdir=" OVERLAY_DIR "/lower,upperdir=" OVERLAY_DIR
			      "/upper,workdir=" OVERLAY_DIR "/work";
	long bytes = sysconf(_SC_PAGESIZE);
	int fd;

	mkdir(OVERLAY_DIR, 0700);
	/* tmpfs: an upper layer needs trusted xattrs, which the initramfs may lack. */
	expect(!mount("tmpfs", OVERLAY_DIR, "tmpfs", 0, NULL), "tmpfs on %s: %s", OVERLAY_DIR,
	       strerror(errno));
	mkdir(OVERLAY_DIR "/lower", 0700);
	mkdir(OVERLAY_DIR "/upper", 0700);
	mkdir(OVERLAY_DIR "/work", 0700);
	mkdir(OVERLAY_DIR "/merged", 0700);
	fd = open(OVERLAY_DIR "/lower/file", O_WRONLY | O_CREAT | O_TRUNC, 0600);
	expect(fd >= 0, "the lower file: %s", strerror(errno));
	memset(page, 'o', bytes);
	for (int i = 0; i < OVERLAY_PAGES; i++)
		expect(write(fd, page, bytes) == bytes, "the lower file: %s", strerror(errno));
	close(fd);
	if (!mount("overlay", OVERLAY_DIR "/merged", "overlay", 0, options))
		return true;
	snprintf(why, size, "mount -t overlay: %s", strerror(errno));
	return false;
}

static void overlay_unmount(void)
{
	umount2(OVERLAY_DIR "/merged", MNT_DETACH);
	umount2(OVERLAY_DIR, MNT_DETACH);
}

/*
 * spawn_piped()'s child: on a byte, maps the file through the overlay,
 * reads each page, says where it is mapped and waits to be killed.
 */
static void overlay_child(int go, int back)
{
	long page = sysconf(_SC_PAGESIZE);
	int fd = open(OVERLAY_FILE, O_RDONLY);
	volatile char sum = 0;
	char *p;

	if (fd < 0)
		_exit(6);
	child_says(back, 0);
	child_waits(go);
	p = mmap(NULL, OVERLAY_PAGES * page, PROT_READ, MAP_PRIVATE, fd, 0);
	if (p == MAP_FAILED)
		_exit(7);
	for (int i = 0; i < OVERLAY_PAGES; i++)
		sum += p[i * page];
	child_done(back, (uintptr_t)p);
}

static struct maps_file maps_file_at(pid_t pid, uint64_t addr)
{
	struct maps_file m = {};
	unsigned long long start, end, inode;
	unsigned int major, minor;
	char path[64], line[512];
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/maps", (int)pid);
	f = fopen(path, "re");
	expect(f, "%s: %s", path, strerror(errno));
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "%llx-%llx %*s %*s %x:%x %llu", &start, &end, &major, &minor,
			   &inode) == 5 && start <= addr && addr < end)
			m = (struct maps_file){ start, inode, major, minor };
	fclose(f);
	expect(m.start, "no mapping of %d holds %#" PRIx64, (int)pid, addr);
	return m;
}

struct overlay_sums {
	pid_t tgid;
	uint64_t start;
	uint64_t faults, inode;
	uint32_t dev;
	unsigned int records;
};

static void add_overlay_record(void *ctx, const struct mp3_proc_record *r)
{
	struct overlay_sums *s = ctx;

	if (r->tgid != (uint32_t)s->tgid || r->type != MP3_RECORD_FAULTS ||
	    r->faults.start != s->start)
		return;
	s->records++;
	s->faults += r->faults.minor_faults + r->faults.major_faults;
	s->inode = r->faults.inode;
	s->dev = r->dev;
}

/* As the kernel's new_encode_dev(), which the records use. */
static uint32_t encoded_dev(unsigned int major, unsigned int minor)
{
	return (minor & 0xff) | (major << 8) | ((minor & ~0xffU) << 12);
}

void test_faults_overlay_file(void)
{
	struct overlay_sums s = {};
	struct maps_child c;
	struct maps_file maps;
	struct stat lower = {};
	uintptr_t ready, addr;
	char why[160];

	if (!overlay_mount(why, sizeof(why))) {
		expect(!file_contains("load-modules", "overlay"),
		       "no overlayfs although the payload has it: %s", why);
		printf("  faults_overlay_file: not run: %s\n", why);
		overlay_unmount();
		return;
	}
	expect(!stat(OVERLAY_DIR "/lower/file", &lower), "the lower file: %s", strerror(errno));
	maps_child_start(&c, overlay_child, &ready, sizeof(ready));
	maps_child_go(&c, "g");
	maps_child_hear(&c, &addr, sizeof(addr));
	maps = maps_file_at(c.pid, addr);
	s = (struct overlay_sums){ .tgid = c.pid, .start = maps.start };
	for_each_record_between(&c.ring, c.from,
				wait_head(&c.ring, mp3ring_head(&c.ring) + 3, ticks_ms(&c.ring, 4)),
				add_overlay_record, &s);
	printf("  faults_overlay_file: maps says %02x:%02x inode %" PRIu64 " (the lower file's"
	       " inode %llu); %u records, %" PRIu64 " faults, inode %" PRIu64 " device %#x\n",
	       maps.major, maps.minor, maps.inode, (unsigned long long)lower.st_ino, s.records,
	       s.faults, s.inode, s.dev);
	expect(s.records, "no faults record of the file's mapping at %#" PRIx64, maps.start);
	expect(s.inode == maps.inode && s.dev == encoded_dev(maps.major, maps.minor),
	       "the records say inode %" PRIu64 " device %#x, maps %" PRIu64 " device %#x",
	       s.inode, s.dev, maps.inode, encoded_dev(maps.major, maps.minor));
	maps_child_end(&c);
	overlay_unmount();
}
