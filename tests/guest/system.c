// SPDX-License-Identifier: GPL-2.0
/*
 * What the guest tests share: time, programs run, files read, terminals,
 * cgroups.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "clock.h"
#include "harness.h"

unsigned int scaled_ms(unsigned int ms)
{
	return (unsigned int)(ms * timeout_scale());
}

int count_from_env(const char *name, int most)
{
	const char *env = getenv(name);
	long n = env ? strtol(env, NULL, 10) : most;

	expect(n > 0 && n <= most, "%s=%s: want 1 to %d", name, env, most);
	return (int)n;
}

void sleep_ms(unsigned int ms)
{
	struct timespec t = { ms / 1000, (long)(ms % 1000) * 1000000L };

	while (nanosleep(&t, &t) && errno == EINTR)
		;
}

uint64_t now_ns(void)
{
	return clock_ns(CLOCK_MONOTONIC);
}

/* In a child about to exec: the file at path (if any) becomes descriptor target. */
static void redirect(const char *path, int target)
{
	int fd;

	if (!path)
		return;
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd < 0 || dup2(fd, target) < 0)
		_exit(126);
}

int run_program(char *const argv[], const char *out_path)
{
	return run_program_err(argv, out_path, NULL);
}

pid_t start_program_err(char *const argv[], const char *out_path, const char *err_path)
{
	pid_t pid = fork();

	if (pid < 0)
		fail("fork: %s", strerror(errno));
	if (pid == 0) {
		redirect(out_path, STDOUT_FILENO);
		redirect(err_path, STDERR_FILENO);
		execv(argv[0], argv);
		_exit(127);
	}
	return pid;
}

int wait_program(pid_t pid, const char *name)
{
	int status;

	if (waitpid(pid, &status, 0) != pid)
		fail("waitpid %s: %s", name, strerror(errno));
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

int run_program_err(char *const argv[], const char *out_path, const char *err_path)
{
	return wait_program(start_program_err(argv, out_path, err_path), argv[0]);
}

bool within_pct(double a, double b, double pct)
{
	double d = a > b ? a - b : b - a;

	return d <= b * pct / 100.0;
}

bool file_contains(const char *path, const char *needle)
{
	FILE *f = fopen(path, "r");
	char line[1024];
	bool found = false;

	if (!f)
		return false;
	while (!found && fgets(line, sizeof(line), f))
		found = strstr(line, needle) != NULL;
	fclose(f);
	return found;
}

enum kprobe_state kprobe_state(const char *symbol)
{
	static const char list[] = "/sys/kernel/debug/kprobes/list";
	enum kprobe_state state = KPROBE_ABSENT;
	size_t len = strlen(symbol);
	char line[256], at[128];
	FILE *f;

	/* EBUSY: mounted already. */
	if (access(list, R_OK) && mount("debugfs", "/sys/kernel/debug", "debugfs", 0, NULL) &&
	    errno != EBUSY)
		fail("mounting debugfs: %s", strerror(errno));
	f = fopen(list, "re");
	expect(f, "%s: %s (a kernel without CONFIG_KPROBES?)", list, strerror(errno));
	if (!f)
		return KPROBE_ABSENT;
	/* "ADDRESS  k  __filemap_remove_folio+0x0    [DISABLED][FTRACE]" */
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "%*s %*s %127s", at) == 1 && !strncmp(at, symbol, len) &&
		    at[len] == '+')
			state = strstr(line, "[DISABLED]") ? KPROBE_DISABLED : KPROBE_ENABLED;
	fclose(f);
	return state;
}

int file_lines(const char *path)
{
	FILE *f = fopen(path, "r");
	int lines = 0, c, last = '\n';

	if (!f)
		return -1;
	while ((c = fgetc(f)) != EOF) {
		lines += c == '\n';
		last = c;
	}
	fclose(f);
	return lines + (last != '\n');
}

size_t pty_read_screen(int master, char *screen, size_t len, unsigned int ms)
{
	uint64_t deadline = now_ns() + ms * 1000000ULL;
	struct pollfd pfd = { .fd = master, .events = POLLIN };

	while (now_ns() < deadline && len < SCREEN_MAX - 1) {
		ssize_t n;

		if (poll(&pfd, 1, 50) <= 0)
			continue;
		n = read(master, screen + len, SCREEN_MAX - 1 - len);
		if (n <= 0)
			break;
		len += n;
	}
	screen[len] = '\0';
	return len;
}

size_t pty_read_until(int master, char *screen, size_t len, bool (*done)(const char *screen),
		      unsigned int ms)
{
	uint64_t deadline = now_ns() + scaled_ms(ms) * 1000000ULL;

	screen[len] = '\0';
	while (!done(screen) && now_ns() < deadline && len < SCREEN_MAX - 1) {
		size_t before = len;

		len = pty_read_screen(master, screen, len, 100);
		if (len == before)
			sleep_ms(10);	/* EIO once the view exited: no busy loop */
	}
	return len;
}

void show_file(const char *path, const char *prefix)
{
	char line[256];
	FILE *f = fopen(path, "re");

	expect(f, "%s: %s", path, strerror(errno));
	while (fgets(line, sizeof(line), f))
		printf("  %s%s", prefix, line);
	fclose(f);
}

void pty_expect_quit(int master, pid_t pid, char *screen, size_t len, const char *what)
{
	int status = -1;

	expect(write(master, "q", 1) == 1, "typing q: %s", strerror(errno));
	/*
	 * Once the view has closed the terminal, reads fail at once while its
	 * exit is still under way: the wait is a time, not a number of reads.
	 */
	for (uint64_t deadline = now_ns() + 10000000000ULL;
	     waitpid(pid, &status, WNOHANG) == 0 && now_ns() < deadline;) {
		len = pty_read_screen(master, screen, len, 10);
		sleep_ms(10);
	}
	expect(WIFEXITED(status) && !WEXITSTATUS(status), "%s did not quit on q (status %#x), "
	       "its last output: %s", what, status, screen + (len > 160 ? len - 160 : 0));
	pty_read_screen(master, screen, len, 100);
	expect(strstr(screen, "\033[?25h\033[?1049l"), "the terminal was not restored");
	close(master);
}

void write_file(const char *path, const char *text)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC);
	ssize_t len = (ssize_t)strlen(text);

	expect(fd >= 0 && write(fd, text, len) == len, "writing %s to %s: %s", text, path,
	       strerror(errno));
	close(fd);
}

void write_file_pages(const char *path, unsigned int pages)
{
	static const char page[4096] = { 1 };
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);

	expect(fd >= 0, "%s: %s", path, strerror(errno));
	for (unsigned int i = 0; i < pages; i++)
		expect(write(fd, page, sizeof(page)) == sizeof(page), "%s: %s", path,
		       strerror(errno));
	close(fd);
}

void mount_cgroup2(const char *root)
{
	mkdir(root, 0755);
	expect(!mount("none", root, "cgroup2", 0, NULL) || errno == EBUSY,
	       "mounting cgroup2 at %s: %s", root, strerror(errno));
}

unsigned long long cgroup_id(const char *dir)
{
	struct stat st;

	expect(!stat(dir, &st), "stat %s: %s", dir, strerror(errno));
	return (unsigned long long)st.st_ino;
}

void make_cgroup(const char *dir)
{
	mount_cgroup2(CGROUP_ROOT);
	expect(!mkdir(dir, 0755) || errno == EEXIST, "mkdir %s: %s", dir, strerror(errno));
}

void move_to_cgroup(const char *dir, pid_t pid)
{
	char path[128], text[16];
	int fd;

	snprintf(path, sizeof(path), "%s/cgroup.procs", dir);
	snprintf(text, sizeof(text), "%d", (int)pid);
	fd = open(path, O_WRONLY);
	expect(fd >= 0 && write(fd, text, strlen(text)) == (ssize_t)strlen(text),
	       "moving PID %d into %s: %s", (int)pid, dir, strerror(errno));
	close(fd);
}
