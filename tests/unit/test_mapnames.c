// SPDX-License-Identifier: GPL-2.0
/* daemon/mapnames: naming the faults records' mappings from /proc/PID/maps. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

#include <linux/mp3.h>

#include "mapnames.h"
#include "unit.h"

/* The maps of process 42 in a directory laid out like /proc. */
static const char maps_before[] =
	"55d0c0a3e000-55d0c0a40000 r--p 00000000 fe:01 1835055                    /usr/bin/cat\n"
	"55d0c1000000-55d0c1021000 rw-p 00000000 00:00 0                          [heap]\n"
	"7f0000000000-7f0004000000 rw-p 00000000 00:00 0 \n"
	"7f0010000000-7f0010001000 rw-p 00000000 00:00 0                          [anon:arena]\n"
	"7f0020000000-7f0020100000 rw-s 00000000 00:01 2048                       /memfd:buf (deleted)\n"
	"7ffd00000000-7ffd00021000 rw-p 00000000 00:00 0                          [stack]\n";

static void write_maps_of(pid_t tgid, const char *text)
{
	char path[64];

	mkdir("proc", 0755);
	snprintf(path, sizeof(path), "proc/%d", (int)tgid);
	mkdir(path, 0755);
	snprintf(path, sizeof(path), "proc/%d/maps", (int)tgid);
	unit_write_file(path, text);
}

static void write_maps(const char *text)
{
	write_maps_of(42, text);
}

static void expect_file_found_in(struct mapnames *m, pid_t tgid, uint32_t kind, uint64_t start,
				 const struct mapping_file *file, const char *name, uint64_t size)
{
	struct mapping_found f = mapnames_lookup(m, tgid, kind, start, file);

	expect(!strcmp(f.name, name) && f.size == size, "%d %llx, device %#llx: '%s' %llu bytes,"
	       " want '%s' %llu", (int)tgid, (unsigned long long)start,
	       (unsigned long long)file->dev, f.name, (unsigned long long)f.size, name,
	       (unsigned long long)size);
}

/* A record without its device (a module before version 9). */
static void expect_found_in(struct mapnames *m, pid_t tgid, uint32_t kind, uint64_t start,
			    uint64_t inode, const char *name, uint64_t size)
{
	const struct mapping_file file = { inode, 0 };

	expect_file_found_in(m, tgid, kind, start, &file, name, size);
}

/* In process 42, whose maps the tests write. */
static void expect_found(struct mapnames *m, uint32_t kind, uint64_t start, uint64_t inode,
			 const char *name, uint64_t size)
{
	expect_found_in(m, 42, kind, start, inode, name, size);
}

/* 42's maps_before, read in a first pass (for its heap). */
static void read_42(struct mapnames *m)
{
	write_maps(maps_before);
	mapnames_begin_pass(m);
	expect_found(m, MP3_MAPPING_HEAP, 0x55d0c1000000ULL, 0, "[heap]", 0x21000);
}

static void test_names_each_kind(void)
{
	struct mapnames m = { .proc = "proc" };

	write_maps(maps_before);
	mapnames_begin_pass(&m);
	expect_found(&m, MP3_MAPPING_FILE, 0x55d0c0a3e000ULL, 1835055, "/usr/bin/cat", 0x2000);
	expect_found(&m, MP3_MAPPING_HEAP, 0x55d0c1000000ULL, 0, "[heap]", 0x21000);
	expect_found(&m, MP3_MAPPING_ANON, 0x7f0000000000ULL, 0, "[anon]", 0x4000000);
	expect_found(&m, MP3_MAPPING_ANON, 0x7f0010000000ULL, 0, "[anon:arena]", 0x1000);
	expect_found(&m, MP3_MAPPING_SHMEM, 0x7f0020000000ULL, 2048, "/memfd:buf (deleted)",
		     0x100000);
	expect_found(&m, MP3_MAPPING_STACK, 0x7ffd00000000ULL, 0, "[stack]", 0x21000);
	expect_found(&m, MP3_MAPPING_UNRESOLVED, 0, 0, "[unresolved]", 0);
	mapnames_free(&m);
}

/* maps is read again for a mapping it did not have, once per pass. */
static void test_reads_again_once_per_pass(void)
{
	struct mapnames m = { .proc = "proc" };

	write_maps(maps_before);
	mapnames_begin_pass(&m);
	expect_found(&m, MP3_MAPPING_FILE, 0x55d0c0a3e000ULL, 1835055, "/usr/bin/cat", 0x2000);
	write_maps("7f0030000000-7f0030002000 r--p 00000000 fe:01 99 /usr/lib/libnew.so\n");
	mapnames_begin_pass(&m);
	/* Known mapping: maps is not read again, what it said stands. */
	expect_found(&m, MP3_MAPPING_FILE, 0x55d0c0a3e000ULL, 1835055, "/usr/bin/cat", 0x2000);
	/* Unknown: read again, found. */
	expect_found(&m, MP3_MAPPING_FILE, 0x7f0030000000ULL, 99, "/usr/lib/libnew.so", 0x2000);
	write_maps("7f0040000000-7f0040001000 r--p 00000000 fe:01 77 /usr/lib/later.so\n");
	/* Not again in the same pass: named from its inode. */
	expect_found(&m, MP3_MAPPING_FILE, 0x7f0040000000ULL, 77, "[inode 77]", 0);
	mapnames_begin_pass(&m);
	expect_found(&m, MP3_MAPPING_FILE, 0x7f0040000000ULL, 77, "/usr/lib/later.so", 0x1000);
	/* Another file at the same address is another mapping: read again next pass. */
	write_maps("7f0040000000-7f0040003000 r--p 00000000 fe:01 78 /usr/lib/other.so\n");
	mapnames_begin_pass(&m);
	expect_found(&m, MP3_MAPPING_FILE, 0x7f0040000000ULL, 78, "/usr/lib/other.so", 0x3000);
	mapnames_free(&m);
}

/* A process of many mappings, and many processes: every one found. */
static void test_many(void)
{
	struct mapnames m = { .proc = "proc" };
	char line[128], *text = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&text, &len);

	expect(out, "open_memstream");
	for (int i = 0; i < 1000; i++)
		fprintf(out, "%x-%x r--p 00000000 fe:01 %d /lib/f%d\n", (i + 1) << 16,
			((i + 1) << 16) + 4096, i + 1, i);
	fclose(out);
	write_maps(text);
	free(text);
	mapnames_begin_pass(&m);
	for (int i = 999; i >= 0; i--) {
		snprintf(line, sizeof(line), "/lib/f%d", i);
		expect_found(&m, MP3_MAPPING_FILE, (uint64_t)(i + 1) << 16, i + 1, line, 4096);
	}
	for (pid_t p = 100; p > 0; p--)
		mapnames_lookup(&m, p, MP3_MAPPING_HEAP, 0x1000, &(struct mapping_file){ 0, 0 });
	expect(m.count == 100, "%zu processes known", m.count);
	/* Found again among them, not added twice. */
	expect_found(&m, MP3_MAPPING_FILE, 6 << 16, 6, "/lib/f5", 4096);
	expect(m.count == 100, "%zu processes known after looking 42 up again", m.count);
	mapnames_free(&m);
}

/* A process gone, or a mapping unmapped before pfprofd looked: named from the record. */
static void test_gone(void)
{
	struct mapnames m = { .proc = "proc" };

	mapnames_begin_pass(&m);
	expect_found(&m, MP3_MAPPING_FILE, 0x1000, 5, "[inode 5]", 0);
	expect_found(&m, MP3_MAPPING_HEAP, 0x2000, 0, "[heap]", 0);
	write_maps(maps_before);
	mapnames_begin_pass(&m);
	expect_found(&m, MP3_MAPPING_ANON, 0x1000, 0, "[anon]", 0);
	mapnames_free(&m);
}

/*
 * A process gone before its maps was read (a forked worker that served and
 * exited): its file and shared memory take the name process 42's maps gave
 * the same inode at the same address, with no size; nothing else does.
 */
static void test_named_from_another_process(void)
{
	struct mapnames m = { .proc = "proc" };

	write_maps(maps_before);
	mapnames_begin_pass(&m);
	/* Nobody read yet: nothing to borrow from. */
	expect_found_in(&m, 43, MP3_MAPPING_FILE, 0x55d0c0a3e000ULL, 1835055, "[inode 1835055]", 0);
	expect_found(&m, MP3_MAPPING_FILE, 0x55d0c0a3e000ULL, 1835055, "/usr/bin/cat", 0x2000);
	expect_found_in(&m, 43, MP3_MAPPING_FILE, 0x55d0c0a3e000ULL, 1835055, "/usr/bin/cat", 0);
	expect_found_in(&m, 44, MP3_MAPPING_SHMEM, 0x7f0020000000ULL, 2048,
			"/memfd:buf (deleted)", 0);
	/* Another inode at that address, or that inode elsewhere: not the same file. */
	expect_found_in(&m, 45, MP3_MAPPING_FILE, 0x55d0c0a3e000ULL, 1835056, "[inode 1835056]", 0);
	expect_found_in(&m, 45, MP3_MAPPING_FILE, 0x55d0c0a40000ULL, 1835055, "[inode 1835055]", 0);
	/* Only files and shared memory: a heap is a process's own. */
	expect_found_in(&m, 45, MP3_MAPPING_HEAP, 0x55d0c1000000ULL, 0, "[heap]", 0);
	/* In later passes too, while 42 is known. */
	mapnames_begin_pass(&m);
	mapnames_begin_pass(&m);
	expect_found_in(&m, 43, MP3_MAPPING_FILE, 0x55d0c0a3e000ULL, 1835055, "/usr/bin/cat", 0);
	/* Once 42 is forgotten, nobody names it: 43's borrowed name is no donor to 46. */
	mapnames_sweep(&m, 2);
	expect(m.count == 1, "%zu processes kept", m.count);
	expect_found_in(&m, 43, MP3_MAPPING_FILE, 0x55d0c0a3e000ULL, 1835055, "[inode 1835055]", 0);
	expect_found_in(&m, 46, MP3_MAPPING_FILE, 0x55d0c0a3e000ULL, 1835055, "[inode 1835055]", 0);
	mapnames_free(&m);
}

/*
 * A live process that mapped another file where the one of its record was:
 * the record's file is named from elsewhere, and its own mapping there keeps
 * its name and size.
 */
static void test_borrowing_keeps_own_mapping(void)
{
	struct mapnames m = { .proc = "proc" };

	write_maps(maps_before);
	write_maps_of(48, "55d0c0a3e000-55d0c0a41000 r--p 00000000 fe:01 999 /usr/bin/dog\n");
	mapnames_begin_pass(&m);
	expect_found(&m, MP3_MAPPING_FILE, 0x55d0c0a3e000ULL, 1835055, "/usr/bin/cat", 0x2000);
	expect_found_in(&m, 48, MP3_MAPPING_FILE, 0x55d0c0a3e000ULL, 1835055, "/usr/bin/cat", 0);
	expect_found_in(&m, 48, MP3_MAPPING_FILE, 0x55d0c0a3e000ULL, 999, "/usr/bin/dog", 0x3000);
	expect_found_in(&m, 48, MP3_MAPPING_FILE, 0x55d0c0a3e000ULL, 1835055, "/usr/bin/cat", 0);
	mapnames_free(&m);
}

/*
 * 42 and 47 have maps_before, and gone 43 named cat from 42; then 42 execs
 * something else, and its maps is read again, in a new pass, for a record
 * of the new program.
 */
static void cat_lent_by_42_then_42_execs(struct mapnames *m)
{
	write_maps(maps_before);
	write_maps_of(47, maps_before);
	mapnames_begin_pass(m);
	expect_found(m, MP3_MAPPING_HEAP, 0x55d0c1000000ULL, 0, "[heap]", 0x21000);
	expect_found_in(m, 47, MP3_MAPPING_HEAP, 0x55d0c1000000ULL, 0, "[heap]", 0x21000);
	expect_found_in(m, 43, MP3_MAPPING_FILE, 0x55d0c0a3e000ULL, 1835055, "/usr/bin/cat", 0);
	write_maps("7f0050000000-7f0050001000 r--p 00000000 fe:01 5 /usr/bin/new\n");
	mapnames_begin_pass(m);
	expect_found(m, MP3_MAPPING_FILE, 0x7f0050000000ULL, 5, "/usr/bin/new", 0x1000);
}

/*
 * A donor whose maps no longer has the file: another one names it, though
 * the borrower, gone, remembered the first.
 */
static void test_donor_lost(void)
{
	struct mapnames m = { .proc = "proc" };

	cat_lent_by_42_then_42_execs(&m);
	expect_found_in(&m, 43, MP3_MAPPING_FILE, 0x55d0c0a3e000ULL, 1835055, "/usr/bin/cat", 0);
	mapnames_free(&m);
}

/*
 * A remembered donor is asked first, and only for the same file: one that
 * mapped another file there, or no longer has its own, names nothing; the
 * borrower searches again.
 */
static void test_donor_changed(void)
{
	struct mapnames m = { .proc = "proc" };

	read_42(&m);
	expect_found_in(&m, 43, MP3_MAPPING_FILE, 0x55d0c0a3e000ULL, 1835055, "/usr/bin/cat", 0);
	/* 42 maps another file where cat was: nobody names cat. */
	write_maps("55d0c0a3e000-55d0c0a41000 r--p 00000000 fe:01 999 /usr/bin/dog\n");
	mapnames_begin_pass(&m);
	expect_found(&m, MP3_MAPPING_FILE, 0x55d0c0a3e000ULL, 999, "/usr/bin/dog", 0x3000);
	expect_found_in(&m, 43, MP3_MAPPING_FILE, 0x55d0c0a3e000ULL, 1835055, "[inode 1835055]", 0);
	mapnames_free(&m);
}

/* A donor that borrowed the name itself since is no donor: its lender is. */
static void test_donor_borrowed_since(void)
{
	struct mapnames m = { .proc = "proc" };

	cat_lent_by_42_then_42_execs(&m);
	/* A late record of 42's cat names it from 47. */
	expect_found(&m, MP3_MAPPING_FILE, 0x55d0c0a3e000ULL, 1835055, "/usr/bin/cat", 0);
	expect_found_in(&m, 43, MP3_MAPPING_FILE, 0x55d0c0a3e000ULL, 1835055, "/usr/bin/cat", 0);
	mapnames_free(&m);
}

/* A process no lookup asked about for the passes given is forgotten, its maps read again. */
static void test_sweep(void)
{
	struct mapnames m = { .proc = "proc" };

	read_42(&m);
	mapnames_sweep(&m, 2);
	expect(m.count == 1, "%zu processes kept after one pass", m.count);
	mapnames_begin_pass(&m);
	mapnames_begin_pass(&m);
	mapnames_sweep(&m, 2);
	expect(m.count == 0, "%zu processes kept after two passes", m.count);
	expect_found(&m, MP3_MAPPING_HEAP, 0x55d0c1000000ULL, 0, "[heap]", 0x21000);
	mapnames_free(&m);
}

/* cat in maps_before: inode 1835055 on device fe:01. */
#define CAT_START 0x55d0c0a3e000ULL
#define CAT_INODE 1835055

static void expect_file_in(struct mapnames *m, pid_t tgid, uint64_t dev, const char *name,
			   uint64_t size)
{
	const struct mapping_file file = { CAT_INODE, dev };

	expect_file_found_in(m, tgid, MP3_MAPPING_FILE, CAT_START, &file, name, size);
}

/*
 * The same inode on another filesystem is another file: named neither from
 * the process's own maps nor from another's. A record without its device
 * (a module before version 9) goes by the inode alone.
 */
static void test_device_tells_files_apart(void)
{
	struct mapnames m = { .proc = "proc" };

	write_maps(maps_before);
	mapnames_begin_pass(&m);
	expect_file_in(&m, 42, makedev(0xfe, 1), "/usr/bin/cat", 0x2000);
	expect_file_in(&m, 42, makedev(0xfe, 2), "[inode 1835055]", 0);
	expect_file_in(&m, 43, makedev(0xfe, 2), "[inode 1835055]", 0);
	expect_file_in(&m, 43, makedev(0xfe, 1), "/usr/bin/cat", 0);
	expect_file_in(&m, 44, 0, "/usr/bin/cat", 0);
	mapnames_free(&m);
}

/*
 * A server that reloaded its modules maps them at other addresses: a
 * worker forked before, gone, has its records of the old ones named from
 * the server's maps by device and inode, wherever the server maps them,
 * and again from the donor remembered. Not without a device, nor on
 * another one.
 */
static void test_named_elsewhere_by_device(void)
{
	const struct mapping_file cat = { 1835055, makedev(0xfe, 1) };
	const struct mapping_file cat_elsewhere = { 1835055, makedev(0xfe, 2) };
	const uint64_t old_start = 0x7f7000000000ULL;
	struct mapnames m = { .proc = "proc" };

	write_maps(maps_before);
	mapnames_begin_pass(&m);
	expect_file_found_in(&m, 42, MP3_MAPPING_FILE, CAT_START, &cat, "/usr/bin/cat", 0x2000);
	expect_file_found_in(&m, 43, MP3_MAPPING_FILE, old_start, &cat, "/usr/bin/cat", 0);
	expect_file_found_in(&m, 43, MP3_MAPPING_FILE, old_start, &cat, "/usr/bin/cat", 0);
	expect_file_found_in(&m, 44, MP3_MAPPING_FILE, old_start, &cat_elsewhere,
			     "[inode 1835055]", 0);
	expect_found_in(&m, 45, MP3_MAPPING_FILE, old_start, 1835055, "[inode 1835055]", 0);
	mapnames_free(&m);
}

/*
 * Once no process pfprofd keeps the maps of maps a file (42 left and its
 * snapshot was swept, as a worker gone or a reload's helper), a record of
 * it is named by the path 42's maps gave, on the same device only; and the
 * memfd (shmem) too.
 */
static void test_named_from_files_seen(void)
{
	const struct mapping_file cat = { 1835055, makedev(0xfe, 1) };
	const struct mapping_file cat_elsewhere = { 1835055, makedev(0xfe, 2) };
	const struct mapping_file memfd = { 2048, makedev(0, 1) };
	struct mapnames m = { .proc = "proc" };

	read_42(&m);
	mapnames_process_left(&m, 42);
	mapnames_sweep(&m, 0);
	expect(m.count == 0, "%zu processes kept after the sweep", m.count);
	mapnames_begin_pass(&m);
	expect_file_found_in(&m, 46, MP3_MAPPING_FILE, 0x5600000000ULL, &cat, "/usr/bin/cat", 0);
	expect_file_found_in(&m, 46, MP3_MAPPING_FILE, 0x5600000000ULL, &cat_elsewhere,
			     "[inode 1835055]", 0);
	expect_file_found_in(&m, 46, MP3_MAPPING_SHMEM, 0x7f0030000000ULL, &memfd,
			     "/memfd:buf (deleted)", 0);
	expect_found_in(&m, 46, MP3_MAPPING_FILE, 0x5600000000ULL, 1835055, "[inode 1835055]", 0);
	mapnames_free(&m);
}

/* 42's number, once 42 left, is another process's: what it maps now. */
#define EVIL_START 0x7f0060000000ULL
#define EVIL_INODE 77
static const char maps_of_reused[] =
	"7f0060000000-7f0060003000 r--p 00000000 fe:01 77 /home/mallory/evil\n";

static void expect_evil_in(struct mapnames *m, pid_t tgid, const char *name, uint64_t size)
{
	const struct mapping_file file = { EVIL_INODE, makedev(0xfe, 1) };

	expect_file_found_in(m, tgid, MP3_MAPPING_FILE, EVIL_START, &file, name, size);
}

/*
 * Once 42 left (its LEFT record), /proc/42 may be a new process's: its maps
 * is not read again, so that neither 42's records nor, as a donor, those of
 * others are named from it.
 */
static void test_left_not_read_again(void)
{
	struct mapnames m = { .proc = "proc" };

	read_42(&m);
	mapnames_process_left(&m, 42);
	write_maps(maps_of_reused);
	mapnames_begin_pass(&m);
	expect_evil_in(&m, 42, "[inode 77]", 0);
	expect_evil_in(&m, 43, "[inode 77]", 0);
	/* What 42's maps said while it was there still names its records. */
	expect_file_in(&m, 42, makedev(0xfe, 1), "/usr/bin/cat", 0x2000);
	mapnames_free(&m);
}

/* A process registered with 42's number after 42 left is read afresh: its maps is its own. */
static void test_registered_again_read_afresh(void)
{
	struct mapnames m = { .proc = "proc" };

	read_42(&m);
	mapnames_process_left(&m, 42);
	write_maps(maps_of_reused);
	mapnames_process_named(&m, 42);
	mapnames_begin_pass(&m);
	expect_evil_in(&m, 42, "/home/mallory/evil", 0x3000);
	/* A name without a leave before it (an exec) keeps what was read. */
	mapnames_process_named(&m, 42);
	expect(m.count == 1, "an exec's name dropped 42's maps");
	mapnames_free(&m);
}

UNIT_TESTS(UNIT_TEST(names_each_kind), UNIT_TEST(reads_again_once_per_pass), UNIT_TEST(many),
	   UNIT_TEST(gone), UNIT_TEST(named_from_another_process),
	   UNIT_TEST(borrowing_keeps_own_mapping), UNIT_TEST(donor_lost),
	   UNIT_TEST(donor_changed), UNIT_TEST(donor_borrowed_since), UNIT_TEST(sweep),
	   UNIT_TEST(device_tells_files_apart), UNIT_TEST(named_elsewhere_by_device),
	   UNIT_TEST(named_from_files_seen), UNIT_TEST(left_not_read_again),
	   UNIT_TEST(registered_again_read_afresh));
