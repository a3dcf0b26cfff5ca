// SPDX-License-Identifier: GPL-2.0
#include "stalls.h"

#include <errno.h>
#include <fcntl.h>
#include <unistd.h>

const char *stall_kind_word(enum stall_kind kind)
{
	static const char *const words[STALL_KINDS] = {
		[STALL_SWAPIN] = "swapin", [STALL_THRASHING] = "thrashing",
		[STALL_RECLAIM] = "reclaim", [STALL_COMPACT] = "compact",
		[STALL_BLKIO] = "blkio",
	};

	return kind < STALL_KINDS ? words[kind] : "?";
}

void stalls_add(uint64_t sum_us[STALL_KINDS], const struct mp3_stalls *s)
{
	sum_us[STALL_SWAPIN] += s->swapin_us;
	sum_us[STALL_THRASHING] += s->thrashing_us;
	sum_us[STALL_RECLAIM] += s->reclaim_us;
	sum_us[STALL_COMPACT] += s->compact_us;
	sum_us[STALL_BLKIO] += s->blkio_us;
}

uint64_t stalls_memory_us(const uint64_t sum_us[STALL_KINDS])
{
	uint64_t sum = 0;

	for (int k = 0; k < STALL_MEMORY_KINDS; k++)
		sum += sum_us[k];
	return sum;
}

int delayacct_read(const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	char c;
	ssize_t len;

	if (fd < 0)
		return -errno;
	len = read(fd, &c, 1);
	if (len < 0)
		len = -errno;
	close(fd);
	if (len < 0)
		return (int)len;
	if (len == 0 || (c != '0' && c != '1'))
		return -EPROTO;
	return c == '1';
}

int delayacct_cached(struct delayacct_cache *cache, uint64_t now_ns)
{
	if (!cache->read_ns || now_ns - cache->read_ns >= DELAYACCT_CACHE_NS) {
		cache->state = delayacct_read(cache->path);
		cache->read_ns = now_ns ? now_ns : 1;
	}
	return cache->state;
}

bool stalls_in_ring(const struct mp3_ring_header *hdr)
{
	return hdr->version >= 7 && (hdr->flags & MP3_RING_STALLS);
}
