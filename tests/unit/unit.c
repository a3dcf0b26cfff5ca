// SPDX-License-Identifier: GPL-2.0
#include "unit.h"

#include <errno.h>
#include <ftw.h>
#include <grp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define DIR_TEMPLATE "/tmp/pfprof-unit.XXXXXX"

static char test_dir[] = DIR_TEMPLATE;

const char *unit_dir(void)
{
	return test_dir;
}

void unit_write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	if (!f || fputs(text, f) < 0 || fclose(f))
		fail("writing %s: %s", path, strerror(errno));
}

char *unit_read_file(const char *path)
{
	FILE *f = fopen(path, "r");
	char *text = NULL;
	size_t size = 0;
	FILE *mem;
	int c;

	if (!f)
		fail("opening %s: %s", path, strerror(errno));
	mem = open_memstream(&text, &size);
	if (!mem)
		fail("open_memstream: %s", strerror(errno));
	while ((c = getc(f)) != EOF)
		putc(c, mem);
	fclose(f);
	fclose(mem);
	return text;
}

/* Written out, not privfile.c's private_group(): the tests check it. */
static gid_t expected_group(void)
{
	const struct group *g = getgrnam("pfprof");

	return g && (!geteuid() || group_member(g->gr_gid)) ? g->gr_gid : getegid();
}

void unit_expect_mode(const char *path, unsigned int mode, bool group)
{
	struct stat st;

	if (lstat(path, &st))
		fail("lstat %s: %s", path, strerror(errno));
	expect(S_ISREG(st.st_mode), "%s: not a regular file (mode %o)", path, st.st_mode);
	expect((st.st_mode & 07777) == mode, "%s: mode %04o, want %04o", path,
	       st.st_mode & 07777, mode);
	if (group)
		expect(st.st_gid == expected_group(), "%s: group %u, want %u", path,
		       (unsigned int)st.st_gid, (unsigned int)expected_group());
}

void unit_record_report(void *ctx, const char *file, unsigned int line, const char *message)
{
	struct unit_reports *reports = ctx;
	struct unit_report *r;

	expect(reports->count < UNIT_MAX_REPORTS, "too many reports, last: %s", message);
	r = &reports->r[reports->count++];
	snprintf(r->file, sizeof(r->file), "%s", file);
	r->line = line;
	snprintf(r->message, sizeof(r->message), "%s", message);
}

/* A fresh directory per test, made by the runner so that it can clean it up. */
static int make_dir(const struct test *t, char *why, size_t size)
{
	(void)t;
	memcpy(test_dir, DIR_TEMPLATE, sizeof(test_dir));
	if (mkdtemp(test_dir))
		return 0;
	snprintf(why, size, "mkdtemp: %s", strerror(errno));
	return -1;
}

static void enter_dir(const struct test *t)
{
	(void)t;
	if (chdir(test_dir))
		fail("chdir %s: %s", test_dir, strerror(errno));
}

static int remove_entry(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
	(void)st;
	(void)type;
	(void)ftw;
	return remove(path);
}

/* A failed test's directory stays for inspection. */
static int clean_dir(const struct test *t, char *why, size_t size)
{
	size_t len = strlen(why);

	(void)t;
	if (len) {
		snprintf(why + len, size - len, " (files in %s)", test_dir);
		return 0;
	}
	if (nftw(test_dir, remove_entry, 16, FTW_DEPTH | FTW_PHYS))
		fprintf(stderr, "unit: could not remove %s\n", test_dir);
	return 0;
}

int main(int argc, char **argv)
{
	const struct test_suite suite = {
		.prog = argv[0],
		.tests = unit_tests,
		.nr_tests = unit_tests_count,
		.before = make_dir,
		.after = clean_dir,
		.enter = enter_dir,
	};

	return test_main(&suite, argc, argv);
}
