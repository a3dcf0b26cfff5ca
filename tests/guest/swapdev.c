// SPDX-License-Identifier: GPL-2.0
/*
 * A swap device for the guest suite: the initramfs guests have no disk, so
 * zram0 (the zram module, which tests/check.sh puts in the payload with its
 * load-modules list) becomes one: a size, a swap header written by hand
 * (the guest has no mkswap) and swapon(); the kernel's swap counters,
 * children that page their memory out and back, a cgroup's reclaim.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/swap.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "harness.h"

#define ZRAM_SYSFS "/sys/block/zram0"
#define ZRAM_NODE "/tmp/pfprof-zram0"
/* Room for REGION_PAGES and then some: what zram keeps is compressed. */
#define ZRAM_BYTES (256ULL << 20)

/* The first page of a version 1 swap area (mkswap(8), the kernel's union swap_header). */
struct swap_header_v1 {
	char bootbits[1024];
	uint32_t version;
	uint32_t last_page;
	uint32_t nr_badpages;
	unsigned char uuid[16];
	char volume_name[16];
};

static bool write_text_file(const char *path, const char *text)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC);
	ssize_t len = (ssize_t)strlen(text);
	bool written;

	if (fd < 0)
		return false;
	written = write(fd, text, len) == len;
	close(fd);
	return written;
}

static bool write_swap_header(const char *node, uint64_t bytes)
{
	long page = sysconf(_SC_PAGESIZE);
	static char first[65536];
	struct swap_header_v1 h = { .version = 1, .last_page = (uint32_t)(bytes / page - 1) };
	int fd = open(node, O_WRONLY | O_CLOEXEC);
	bool written;

	if (fd < 0 || page > (long)sizeof(first))
		return false;
	memset(first, 0, sizeof(first));
	memcpy(first, &h, sizeof(h));
	memcpy(first + page - 10, "SWAPSPACE2", 10);
	written = write(fd, first, page) == page && !fsync(fd);
	close(fd);
	return written;
}

bool swap_device_ready(char *why, size_t size)
{
	unsigned int major, minor;
	char disksize[24];
	FILE *f;

	if (file_contains("/proc/swaps", ZRAM_NODE))
		return true;
	f = fopen(ZRAM_SYSFS "/dev", "re");
	if (!f) {
		snprintf(why, size, "no %s (no zram module)", ZRAM_SYSFS);
		return false;
	}
	if (fscanf(f, "%u:%u", &major, &minor) != 2) {
		fclose(f);
		snprintf(why, size, "%s/dev unreadable", ZRAM_SYSFS);
		return false;
	}
	fclose(f);
	snprintf(disksize, sizeof(disksize), "%llu", ZRAM_BYTES);
	if (!write_text_file(ZRAM_SYSFS "/disksize", disksize)) {
		snprintf(why, size, "%s/disksize: %s", ZRAM_SYSFS, strerror(errno));
		return false;
	}
	if ((mknod(ZRAM_NODE, S_IFBLK | 0600, makedev(major, minor)) && errno != EEXIST) ||
	    !write_swap_header(ZRAM_NODE, ZRAM_BYTES) || swapon(ZRAM_NODE, 0)) {
		snprintf(why, size, "swap on %s: %s", ZRAM_NODE, strerror(errno));
		return false;
	}
	return true;
}

uint64_t vmstat(const char *name, bool required)
{
	unsigned long long value, found = 0;
	bool seen = false;
	char key[64];
	FILE *f = fopen("/proc/vmstat", "re");

	expect(f, "/proc/vmstat: %s", strerror(errno));
	while (fscanf(f, "%63s %llu", key, &value) == 2) {
		if (!strcmp(key, name)) {
			found = value;
			seen = true;
		}
	}
	fclose(f);
	expect(seen || !required, "/proc/vmstat has no %s", name);
	return found;
}

uint64_t swapped_in(void)
{
	return vmstat("pswpin", true) + vmstat("zswpin", false) + vmstat("swpin_zero", false);
}

uint64_t swapped_out(void)
{
	return vmstat("pswpout", true) + vmstat("zswpout", false) + vmstat("swpout_zero", false);
}

/*
 * MADV_PAGEOUT: reclaim now, to swap, without a memory hog whose pressure
 * would page out other memory too and take its time.
 */
static void swap_region_when_told(int go, int back, char *p)
{
	size_t bytes = REGION_PAGES * (size_t)sysconf(_SC_PAGESIZE);

	child_says(back, (uintptr_t)p);
	child_waits(go);
	child_says(back, madvise(p, bytes, MADV_PAGEOUT) ? (uintptr_t)errno : 0);
	child_waits(go);
	touch_region(p, REGION_PAGES);
	child_done(back, (uintptr_t)p);
}

void swapping_child(int go, int back)
{
	swap_region_when_told(go, back, region_touched_when_told(go, MAP_PRIVATE));
}

void swapping_shared_child(int go, int back)
{
	swap_region_when_told(go, back, region_touched_when_told(go, MAP_SHARED));
}

bool page_events_agree(uint64_t traced, uint64_t kernel, uint64_t dropped)
{
	return within_pct((double)traced, (double)kernel, 1) ||
	       (traced <= kernel && within_pct((double)(traced + dropped), (double)kernel, 1));
}

uint64_t page_events_dropped_since(const struct mp3ring *ring, uint64_t from)
{
	return __atomic_load_n(&ring->hdr->swap_dropped, __ATOMIC_RELAXED) - from;
}

void reclaim_cgroup(const char *dir, size_t bytes)
{
	char path[128], text[32];
	int fd;

	snprintf(path, sizeof(path), "%s/memory.reclaim", dir);
	snprintf(text, sizeof(text), "%zu", bytes);
	fd = open(path, O_WRONLY);
	expect(fd >= 0, "open %s: %s", path, strerror(errno));
	expect(write(fd, text, strlen(text)) == (ssize_t)strlen(text) || errno == EAGAIN,
	       "write %s to %s: %s", text, path, strerror(errno));
	close(fd);
}

bool child_in_cgroup_can_swap(const char *test, const char *dir)
{
	char why[160];

	mount_cgroup2(CGROUP_ROOT);
	if (!file_contains(CGROUP_ROOT "/cgroup.controllers", "memory") ||
	    !swap_device_ready(why, sizeof(why))) {
		printf("  %s: not run: %s\n", test,
		       file_contains(CGROUP_ROOT "/cgroup.controllers", "memory") ? why :
		       "no memory cgroups (pages_swap checks the refusal)");
		return false;
	}
	make_cgroup(dir);
	write_file(CGROUP_ROOT "/cgroup.subtree_control", "+memory");
	return true;
}

void unmapped_memfd_child(int go, int back)
{
	size_t bytes = REGION_PAGES * (size_t)sysconf(_SC_PAGESIZE);
	int fd = memfd_create("pfprof-unmapped", MFD_CLOEXEC);
	char *p;

	if (fd < 0 || ftruncate(fd, (off_t)bytes) || prctl(PR_SET_THP_DISABLE, 1, 0, 0, 0))
		_exit(6);
	child_waits(go);
	p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (p == MAP_FAILED)
		_exit(7);
	touch_region(p, REGION_PAGES);
	munmap(p, bytes);
	child_says(back, 0);
	child_waits(go);
	p = mmap(NULL, bytes, PROT_READ, MAP_SHARED, fd, 0);
	if (p == MAP_FAILED)
		_exit(8);
	for (size_t i = 0; i < REGION_PAGES; i++)
		(void)((volatile char *)p)[i * (size_t)sysconf(_SC_PAGESIZE)];
	child_done(back, (uintptr_t)p);
}
