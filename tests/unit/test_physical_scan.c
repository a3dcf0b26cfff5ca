// SPDX-License-Identifier: GPL-2.0
/*
 * pfprofctl physical's scan (pfprofctl/physical/scan.c), on files made as
 * the kernel's are: a cgroup tree (cgroup v1's memory hierarchy, since a
 * test's directory is no cgroup2), a kpagecgroup of each frame's cgroup
 * inode and a kpageflags of its flags. Each frame goes to the target that
 * holds its cgroup, else to the cgroup's first two levels, else to no
 * cgroup; kinds by flags; holes (KPF_NOPAGE) are no frame; each block's
 * owner is the one with most frames in it.
 */
#include <linux/kernel-page-flags.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "physical/scan.h"
#include "unit.h"

#define ANON (1ULL << KPF_ANON | 1ULL << KPF_LRU)
#define FILE_PAGE (1ULL << KPF_LRU)
#define SHMEM (1ULL << KPF_SWAPBACKED | 1ULL << KPF_LRU)

static uint64_t inode_of(const char *path)
{
	struct stat st;

	expect(!mkdir(path, 0755) && !stat(path, &st), "mkdir %s", path);
	return st.st_ino;
}

static void write_frames(const char *path, const uint64_t *values, size_t n)
{
	FILE *f = fopen(path, "w");

	expect(f && fwrite(values, sizeof(*values), n, f) == n && !fclose(f), "writing %s", path);
}

static const struct physical_owner *owner(const struct physical_scan *s, const char *label)
{
	for (size_t i = 0; i < s->nr_owners; i++)
		if (!strcmp(s->owners[i].label, label))
			return &s->owners[i];
	fail("no owner %s", label);
}

static void test_owners_kinds_blocks(void)
{
	char db[512];
	struct target target = { .kind = TARGET_CGROUP, .name = db, .number = 0x40000006U };
	const struct target_list targets = { &target, 1 };
	const struct physical_sources src = { "kpagecgroup", "kpageflags", unit_dir() };
	uint64_t web, db_ino, db_child, cg[12], fl[12];
	struct physical_scan s;
	const char *what;

	inode_of("memory");
	inode_of("memory/system.slice");
	web = inode_of("memory/system.slice/web.service");
	inode_of("memory/system.slice/web.service/deeper");
	snprintf(db, sizeof(db), "%s/memory/db", unit_dir());
	db_ino = inode_of("memory/db");
	db_child = inode_of("memory/db/child");
	/* Blocks of 4: web's 3 of 4, db's (and its child's) 4, then none, a hole, web. */
	memcpy(cg, (uint64_t[]){ web, web, db_ino, web, db_ino, db_child, db_ino, db_child,
				 0, 0, 0, web }, sizeof(cg));
	memcpy(fl, (uint64_t[]){ ANON, FILE_PAGE, SHMEM, ANON | 1ULL << KPF_ACTIVE, ANON, ANON,
				 FILE_PAGE | 1ULL << KPF_SWAPCACHE, ANON, 0, 1ULL << KPF_NOPAGE,
				 1ULL << KPF_SLAB, ANON }, sizeof(fl));
	write_frames("kpagecgroup", cg, 12);
	write_frames("kpageflags", fl, 12);
	expect(!physical_scan(&s, &src, &targets, 4, &what), "physical_scan failed on %s", what);
	expect(s.frames == 11, "%llu frames, want 11 (one hole)", (unsigned long long)s.frames);
	{
		char label[600];
		const struct physical_owner *w = owner(&s, "system.slice/web.service");
		const struct physical_owner *d, *none = &s.owners[0];

		snprintf(label, sizeof(label), "cgroup:%s", db);
		d = owner(&s, label);
		expect(w->pages == 4 && w->kind[PHYSICAL_ANON] == 3 && w->kind[PHYSICAL_FILE] == 1 &&
		       w->kind[PHYSICAL_ACTIVE] == 1, "web: %llu pages, %llu anon, %llu file",
		       (unsigned long long)w->pages, (unsigned long long)w->kind[PHYSICAL_ANON],
		       (unsigned long long)w->kind[PHYSICAL_FILE]);
		expect(d->pages == 5 && d->kind[PHYSICAL_ANON] == 3 && d->kind[PHYSICAL_SHMEM] == 1 &&
		       d->kind[PHYSICAL_FILE] == 1 && d->kind[PHYSICAL_SWAPCACHE] == 1,
		       "the db target (its child's pages too): %llu pages, %llu anon, %llu shmem",
		       (unsigned long long)d->pages, (unsigned long long)d->kind[PHYSICAL_ANON],
		       (unsigned long long)d->kind[PHYSICAL_SHMEM]);
		expect(none->pages == 2, "%llu frames of no cgroup", (unsigned long long)none->pages);
		expect(s.nr_blocks == 3 && s.block_owner[0] == (uint32_t)(w - s.owners) &&
		       s.block_owner[1] == (uint32_t)(d - s.owners) && s.block_owner[2] == 0,
		       "%zu blocks: owners %u %u %u", s.nr_blocks, s.block_owner[0],
		       s.block_owner[1], s.block_owner[2]);
	}
	physical_scan_free(&s);
}

UNIT_TESTS(UNIT_TEST(owners_kinds_blocks));
