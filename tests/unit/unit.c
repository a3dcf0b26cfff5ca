// SPDX-License-Identifier: GPL-2.0
#include "unit.h"

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#define REASON_MAX 1024

static int reason_fd = -1;
static char test_dir[] = "/tmp/pfprof-unit.XXXXXX";

void unit_fail(const char *fmt, ...)
{
	char reason[REASON_MAX];
	va_list ap;
	int len;

	va_start(ap, fmt);
	len = vsnprintf(reason, sizeof(reason), fmt, ap);
	va_end(ap);
	if (len < 0)
		len = 0;
	if ((size_t)len >= sizeof(reason))
		len = sizeof(reason) - 1;
	if (write(reason_fd, reason, len) < 0)
		fprintf(stderr, "%s\n", reason);
	_exit(1);
}

const char *unit_dir(void)
{
	return test_dir;
}

void unit_write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	if (!f || fputs(text, f) < 0 || fclose(f))
		unit_fail("writing %s: %s", path, strerror(errno));
}

char *unit_read_file(const char *path)
{
	FILE *f = fopen(path, "r");
	char *text = NULL;
	size_t size = 0;
	FILE *mem;
	int c;

	if (!f)
		unit_fail("opening %s: %s", path, strerror(errno));
	mem = open_memstream(&text, &size);
	if (!mem)
		unit_fail("open_memstream: %s", strerror(errno));
	while ((c = getc(f)) != EOF)
		putc(c, mem);
	fclose(f);
	fclose(mem);
	return text;
}

static int remove_entry(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
	(void)st;
	(void)type;
	(void)ftw;
	return remove(path);
}

void unit_record_report(void *ctx, const char *file, unsigned int line, const char *message)
{
	struct unit_reports *reports = ctx;
	struct unit_report *r;

	UNIT_CHECK(reports->count < UNIT_MAX_REPORTS, "too many reports, last: %s", message);
	r = &reports->r[reports->count++];
	snprintf(r->file, sizeof(r->file), "%s", file);
	r->line = line;
	snprintf(r->message, sizeof(r->message), "%s", message);
}

/* Runs one test in a child; returns 0 if it passed. */
static int run_test(const struct unit_test *t)
{
	char reason[REASON_MAX] = "";
	char dir_template[] = "/tmp/pfprof-unit.XXXXXX";
	int fds[2], status;
	ssize_t len;
	pid_t pid;

	if (!mkdtemp(dir_template) || pipe(fds)) {
		printf("FAIL %s: setting up: %s\n", t->name, strerror(errno));
		return 1;
	}
	fflush(NULL);
	pid = fork();
	if (pid == 0) {
		close(fds[0]);
		reason_fd = fds[1];
		memcpy(test_dir, dir_template, sizeof(test_dir));
		if (chdir(test_dir))
			unit_fail("chdir %s: %s", test_dir, strerror(errno));
		t->run();
		_exit(0);
	}
	close(fds[1]);
	if (pid < 0)
		snprintf(reason, sizeof(reason), "fork: %s", strerror(errno));
	else if (waitpid(pid, &status, 0) == pid) {
		len = read(fds[0], reason, sizeof(reason) - 1);
		reason[len > 0 ? len : 0] = '\0';
		if (WIFSIGNALED(status))
			snprintf(reason, sizeof(reason), "killed by signal %d", WTERMSIG(status));
		else if (WEXITSTATUS(status) && !reason[0])
			snprintf(reason, sizeof(reason), "exit status %d", WEXITSTATUS(status));
	}
	close(fds[0]);
	if (!reason[0]) {
		if (nftw(dir_template, remove_entry, 16, FTW_DEPTH | FTW_PHYS))
			fprintf(stderr, "unit: could not remove %s\n", dir_template);
		printf("PASS %s\n", t->name);
		return 0;
	}
	/* A failed test's directory stays for inspection. */
	printf("FAIL %s: %s (files in %s)\n", t->name, reason, dir_template);
	return 1;
}

int main(int argc, char **argv)
{
	int passed = 0, failed = 0;

	setvbuf(stdout, NULL, _IOLBF, 0);
	for (size_t i = 0; i < unit_tests_count; i++) {
		int selected = argc == 1;

		for (int j = 1; j < argc; j++)
			selected |= !strcmp(argv[j], unit_tests[i].name);
		if (!selected)
			continue;
		if (run_test(&unit_tests[i]))
			failed++;
		else
			passed++;
	}
	printf("%d passed, %d failed\n", passed, failed);
	return failed ? 1 : 0;
}
