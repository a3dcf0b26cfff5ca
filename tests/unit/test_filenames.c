// SPDX-License-Identifier: GPL-2.0
#include <stdio.h>
#include <string.h>

#include "filenames.h"
#include "unit.h"

static void expect_path(const struct filenames *f, uint64_t dev, uint64_t inode, const char *path)
{
	const char *found = filenames_find(f, dev, inode);

	expect(path ? found && !strcmp(found, path) : !found, "%llu:%llu: '%s', want '%s'",
	       (unsigned long long)dev, (unsigned long long)inode, found ? found : "(none)",
	       path ? path : "(none)");
}

/* A file is its device and inode: the same inode on another device is another file. */
static void test_device_and_inode(void)
{
	struct filenames f = { 0 };

	expect_path(&f, 1, 7, NULL);
	filenames_note(&f, 1, 7, "/usr/lib/a.so");
	filenames_note(&f, 2, 7, "/srv/b.so");
	expect_path(&f, 1, 7, "/usr/lib/a.so");
	expect_path(&f, 2, 7, "/srv/b.so");
	expect_path(&f, 3, 7, NULL);
	/* Renamed (or its number given to another file): the last path seen. */
	filenames_note(&f, 1, 7, "/usr/lib/a.so.1");
	expect_path(&f, 1, 7, "/usr/lib/a.so.1");
	filenames_free(&f);
}

/*
 * Bounded: noting many more files than it holds keeps at most
 * FILENAMES_SETS * FILENAMES_WAYS, and a file noted again now and then
 * stays while others come and go.
 */
static void test_bounded_recent_kept(void)
{
	const unsigned int files = 8 * FILENAMES_SETS * FILENAMES_WAYS;
	struct filenames f = { 0 };
	unsigned int kept = 0;
	char path[32];

	for (unsigned int i = 1; i <= files; i++) {
		snprintf(path, sizeof(path), "/f/%u", i);
		filenames_note(&f, 1, i, path);
		filenames_note(&f, 9, 1, "/usr/lib/libc.so.6");
	}
	for (unsigned int i = 1; i <= files; i++)
		kept += filenames_find(&f, 1, i) != NULL;
	expect(kept <= FILENAMES_SETS * FILENAMES_WAYS && kept > files / 16, "%u of %u kept", kept,
	       files);
	snprintf(path, sizeof(path), "/f/%u", files);
	expect_path(&f, 1, files, path);
	expect_path(&f, 9, 1, "/usr/lib/libc.so.6");
	filenames_free(&f);
}

UNIT_TESTS(UNIT_TEST(device_and_inode), UNIT_TEST(bounded_recent_kept));
