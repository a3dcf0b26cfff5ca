// SPDX-License-Identifier: GPL-2.0
/*
 * lib/logpages: the pages log's lines, written and read back, and the lines
 * a reader must refuse rather than misread.
 */
#include <stdio.h>
#include <string.h>
#include <sys/sysmacros.h>

#include "logformat.h"
#include "unit.h"

static const struct log_page swap_out = {
	.seq = 17, .wall_ns = 1700000000123456789ULL, .pid = 4242, .target = 3,
	.event = MP3_SWAP_OUT, .device = 1, .pages = 1, .offset = 9001,
	.address = 0x7f0012345000ULL, .stall_ns = 77, .mapping = MP3_MAPPING_SHMEM,
	.sys_pswpout = 123456, .comm = "post\tgres",
};

/* Each event's line, as logformat.h gives it; a swap-out's stall is not one. */
static void test_lines(void)
{
	struct log_page read_back = swap_out, cached = swap_out;
	char line[256];

	logformat_page(line, sizeof(line), &swap_out);
	expect(!strcmp(line, "17\t1700000000.123457\t4242\tpost_gres\t3\tout\t1\t9001\t"
		       "7f0012345000\t1\t-\tshmem\t123456\t-\n"), "swap-out: '%s'", line);
	read_back.mapping = MP3_MAPPING_ANON;
	read_back.sys_pswpout = LOGFORMAT_COUNT_UNKNOWN;
	read_back.event = MP3_SWAP_IN | MP3_SWAP_READ;
	read_back.stall_ns = 1234567;
	read_back.address = 0;
	read_back.pages = 512;
	logformat_page(line, sizeof(line), &read_back);
	expect(!strcmp(line, "17\t1700000000.123457\t4242\tpost_gres\t3\tread\t1\t9001\t-\t512"
		       "\t1.234567\tanon\t-\t-\n"), "swap-in that read: '%s'", line);
	cached.event = MP3_SWAP_IN;
	cached.stall_ns = 0;
	logformat_page(line, sizeof(line), &cached);
	expect(!strcmp(line, "17\t1700000000.123457\t4242\tpost_gres\t3\tin\t1\t9001\t"
		       "7f0012345000\t1\t0.000000\tshmem\t123456\t-\n"),
	       "swap-in from the cache: '%s'", line);
}

static const struct log_page file_refault = {
	.seq = 18, .wall_ns = 1700000001000000000ULL, .pid = 4242, .target = 3,
	.event = LOGFORMAT_FILE_REFAULT, .pages = 4, .offset = 77, .stall_ns = LOGFORMAT_TIME_UNKNOWN,
	.mapping = MP3_MAPPING_FILE, .sys_pswpout = 5, .file_dev = 0xfe01, .inode = 131075,
	.comm = "postgres",
};

/* A file's page read again: no slot, no address, no stall; its file as maps names devices. */
static void test_refault_line(void)
{
	struct log_page back;
	char line[256];

	logformat_page(line, sizeof(line), &file_refault);
	expect(!strcmp(line, "18\t1700000001.000000\t4242\tpostgres\t3\trefault\t-\t77\t-\t4\t-"
		       "\tfile\t5\tfe:1:131075\n"), "refault: '%s'", line);
	line[strlen(line) - 1] = '\0';
	expect(logformat_parse_page(line, &back), "a refault line not read back");
	expect(back.event == LOGFORMAT_FILE_REFAULT && back.offset == 77 && back.pages == 4 &&
	       back.mapping == MP3_MAPPING_FILE && back.file_dev == makedev(0xfe, 1) &&
	       back.inode == 131075 && back.device == 0 && back.address == 0 &&
	       back.stall_ns == LOGFORMAT_TIME_UNKNOWN,
	       "a refault read back as event %u, dev %x, inode %llu", back.event, back.file_dev,
	       (unsigned long long)back.inode);
	/* The line test_refused() changes one field of at a time. */
	snprintf(line, sizeof(line), "17\t1.000000\t42\tx\t0\trefault\t-\t9\t-\t1\t-\tfile\t5\tfe:1:7");
	expect(logformat_parse_page(line, &back) && back.inode == 7, "the refused lines' base refused");
}

/* A followed cgroup's swap-out has no process: pid 0, for a swap-out of a target only. */
static void test_cgroup_swap_out(void)
{
	char line[] = "17\t1.000000\t0\t-\t5\tout\t1\t9\t-\t1\t-\tshmem\t8\t-";
	char cached[] = "17\t1.000000\t0\t-\t5\tin\t1\t9\t-\t1\t0.000000\tshmem\t8\t-";
	char alone[] = "17\t1.000000\t0\t-\t0\tout\t1\t9\t-\t1\t-\tshmem\t8\t-";
	struct log_page pg;

	expect(logformat_parse_page(line, &pg) && !pg.pid && pg.target == 5 &&
	       pg.event == MP3_SWAP_OUT, "a cgroup's swap-out refused");
	expect(!logformat_parse_page(cached, &pg), "a swap-in of no process read");
	expect(!logformat_parse_page(alone, &pg), "a swap-out of no process nor target read");
}

/*
 * A followed cgroup's file page evicted: pid 0, its file, no slot nor
 * stall, read back as written; with a process, or no target, refused.
 */
static void test_eviction_line(void)
{
	struct log_page evicted = file_refault, back;
	char line[256];
	char with_pid[] = "17\t1.000000\t42\tx\t5\tevict\t-\t9\t-\t1\t-\tfile\t5\tfe:1:7";
	char no_target[] = "17\t1.000000\t0\t-\t0\tevict\t-\t9\t-\t1\t-\tfile\t5\tfe:1:7";
	char anon[] = "17\t1.000000\t0\t-\t5\tevict\t-\t9\t-\t1\t-\tanon\t5\tfe:1:7";

	evicted.event = LOGFORMAT_FILE_EVICT;
	evicted.pid = 0;
	evicted.comm = "-";
	logformat_page(line, sizeof(line), &evicted);
	expect(!strcmp(line, "18\t1700000001.000000\t0\t-\t3\tevict\t-\t77\t-\t4\t-"
		       "\tfile\t5\tfe:1:131075\n"), "eviction: '%s'", line);
	line[strlen(line) - 1] = '\0';
	expect(logformat_parse_page(line, &back) && back.event == LOGFORMAT_FILE_EVICT &&
	       !back.pid && back.target == 3 && back.offset == 77 && back.pages == 4 &&
	       back.inode == 131075 && back.file_dev == makedev(0xfe, 1),
	       "an eviction read back as event %u, pid %u, inode %llu", back.event, back.pid,
	       (unsigned long long)back.inode);
	expect(!logformat_parse_page(with_pid, &back), "an eviction of a process read");
	expect(!logformat_parse_page(no_target, &back), "an eviction of no target read");
	expect(!logformat_parse_page(anon, &back), "an eviction of anonymous memory read");
}

/* A format 2 line (no file column) is read as before. */
static void test_format_2(void)
{
	char line[] = "17\t1.000000\t42\tx\t0\tread\t1\t9\t1000\t1\t0.500000\tshmem\t8";
	struct log_page pg;

	expect(logformat_parse_page(line, &pg), "a format 2 line refused");
	expect(pg.mapping == MP3_MAPPING_SHMEM && pg.device == 1 && pg.sys_pswpout == 8 &&
	       !pg.inode, "a format 2 line read as mapping %u, device %u", pg.mapping, pg.device);
}

/* A format 1 line (no memory column) is read, its page anonymous. */
static void test_format_1(void)
{
	char line[] = "17\t1.000000\t42\tx\t0\tout\t1\t9\t1000\t1\t-";
	struct log_page pg = { .mapping = MP3_MAPPING_SHMEM };

	expect(logformat_parse_page(line, &pg), "a format 1 line refused");
	expect(pg.mapping == MP3_MAPPING_ANON && pg.offset == 9 && pg.address == 0x1000 &&
	       pg.sys_pswpout == LOGFORMAT_COUNT_UNKNOWN,
	       "a format 1 line read as mapping %u, offset %llu", pg.mapping,
	       (unsigned long long)pg.offset);
}

/* What is written is read back, every field. */
static void test_round_trip(void)
{
	const uint32_t events[] = { MP3_SWAP_OUT, MP3_SWAP_IN, MP3_SWAP_IN | MP3_SWAP_READ };

	for (size_t i = 0; i < 2 * sizeof(events) / sizeof(events[0]); i++) {
		struct log_page pg = swap_out, back;
		char line[256];

		pg.event = events[i / 2];
		pg.mapping = i % 2 ? MP3_MAPPING_ANON : MP3_MAPPING_SHMEM;
		pg.stall_ns = pg.event == MP3_SWAP_OUT ? LOGFORMAT_TIME_UNKNOWN : 5000001;
		logformat_page(line, sizeof(line), &pg);
		line[strlen(line) - 1] = '\0';
		expect(logformat_parse_page(line, &back), "event %u not read back", pg.event);
		expect(back.seq == pg.seq && back.wall_ns == 1700000000123457000ULL &&
		       back.pid == pg.pid && back.target == pg.target && back.event == pg.event &&
		       back.device == pg.device && back.offset == pg.offset &&
		       back.address == pg.address && back.pages == pg.pages &&
		       back.stall_ns == pg.stall_ns && back.mapping == pg.mapping &&
		       back.sys_pswpout == pg.sys_pswpout &&
		       !strcmp(back.comm, "post_gres"),
		       "event %u read back otherwise", pg.event);
	}
}

/* A line of another log, or one changed by hand, is no page. */
static void test_refused(void)
{
	static const char *const bad[] = {
		"17\t1.000000\t42\tx\t0\tout\t1\t9\t1000\t1",		/* a field short */
		"17\t1.000000\t42\tx\t0\tout\t1\t9\t1000\t1\t-\tanon\t5\textra",
		"17\t1.000000\t42\tx\t0\tout\t1\t9\t1000\t1\t-\tanon",	/* half a format 2 */
		"17\t1.000000\t42\tx\t0\tout\t1\t9\t1000\t1\t-\tfile\t5",	/* no such memory */
		"17\t1.000000\t42\tx\t0\tout\t1\t9\t1000\t1\t-\tanon\tfive",	/* no count */
		"17\t1.000000\t42\tx\t0\tgone\t1\t9\t1000\t1\t-",	/* no such event */
		"17\t1.000000\t0\tx\t0\tout\t1\t9\t1000\t1\t-",		/* PID 0 */
		"17\t1.000000\t42\tx\t0\tout\t1\t9\t1000\t0\t-",		/* no pages */
		"17\t1.000000\t42\tx\t0\tout\t1\t9\t1000\t1\t0.000001",	/* a swap-out's stall */
		"17\t1.000000\t42\tx\t0\tread\t1\t9\t1000\t1\t-",	/* a swap-in's none */
		"17\t1.000000\t42\tx\t0\tread\t1\t-9\t1000\t1\t0.000001",	/* a sign */
		"17\t1.000000\t42\tx\t0\tout\t4294967296\t9\t1000\t1\t-",	/* device too big */
		"17\t1.000000\t42\tx\t0\tout\t1\t9\t1000\t1\t-\tanon\t5\tfe:1:7",	/* a slot's file */
		"17\t1.000000\t42\tx\t0\trefault\t1\t9\t-\t1\t-\tfile\t5\tfe:1:7",	/* a file's slot */
		"17\t1.000000\t42\tx\t0\trefault\t-\t9\t-\t1\t-\tfile\t5\t-",	/* no file */
		"17\t1.000000\t42\tx\t0\trefault\t-\t9\t-\t1\t-\tfile\t5\tfe:1:0",	/* inode 0 */
		"17\t1.000000\t42\tx\t0\trefault\t-\t9\t-\t1\t-\tfile\t5\tfe:1:7x",	/* not a number */
		"17\t1.000000\t42\tx\t0\trefault\t-\t9\t-\t1\t-\tanon\t5\tfe:1:7",	/* not a file's */
		"17\t1.000000\t42\tx\t0\trefault\t-\t9\t-\t1\t0.100000\tfile\t5\tfe:1:7",	/* a stall */
		"17\t1.000000\t42\tx\t0\trefault\t-\t9\t-\t1\t-\tfile\t5",	/* format 2 */
		"17 1.000000 1 2 3 4.000 1 1 1 1.000 - - - - - - - - - -",	/* a sample */
	};

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct log_page pg;
		char line[256];

		snprintf(line, sizeof(line), "%s", bad[i]);
		expect(!logformat_parse_page(line, &pg), "line %zu read as a page", i);
	}
}

/* The header names the format, the columns and their units. */
static void test_header(void)
{
	static const char start[] = LOGFORMAT_PAGES_MAGIC "3\n# created 55\n"
		LOGFORMAT_PAGES_COLUMNS "\n# units: tab-separated;";
	char text[LOGFORMAT_HEADER_MAX];
	int n = logformat_header(text, sizeof(text), LOGKIND_PAGES, 55);

	expect(n > 0 && (size_t)n < sizeof(text), "header of %d bytes", n);
	expect(!strncmp(text, start, sizeof(start) - 1), "header: %s", text);
	expect(text[n - 1] == '\n' && !strchr(strstr(text, "# units:"), '\n')[1],
	       "the units line is not the header's last: %s", text);
}

UNIT_TESTS(UNIT_TEST(lines), UNIT_TEST(refault_line), UNIT_TEST(cgroup_swap_out),
	   UNIT_TEST(eviction_line),
	   UNIT_TEST(format_1), UNIT_TEST(format_2),
	   UNIT_TEST(round_trip), UNIT_TEST(refused), UNIT_TEST(header));
