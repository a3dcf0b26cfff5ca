// SPDX-License-Identifier: GPL-2.0
#include "daemonrun.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "harness.h"
#include "jsonout.h"

void daemon_write_text(const char *path, const char *text, const char *mode)
{
	FILE *f = fopen(path, mode);

	if (!f || fputs(text, f) < 0 || fclose(f))
		fail("writing %s: %s", path, strerror(errno));
}

/* A fresh directory and a config pointing everything into it. */
void daemon_setup(const char *extra_config)
{
	char conf[1024];
	char *argv[] = { "/bin/rm", "-rf", DAEMON_DIR, NULL };

	run_program(argv, NULL);
	if (mkdir(DAEMON_DIR, 0755) || mkdir(LOG_DIR, 0755) || mkdir(STATE_DIR, 0755))
		fail("mkdir %s: %s", DAEMON_DIR, strerror(errno));
	snprintf(conf, sizeof(conf),
		 "# written by the guest test\nlog_dir = %s\ntargets_file = %s\nruntime_dir = %s\n"
		 "state_dir = %s\n%s", LOG_DIR, PID_FILE, RUN_DIR, STATE_DIR, extra_config);
	daemon_write_text(CONF, conf, "w");
}

pid_t start_daemon(void)
{
	pid_t pid = fork();

	if (pid < 0)
		fail("fork: %s", strerror(errno));
	if (pid == 0) {
		int fd = open(STDERR_FILE, O_WRONLY | O_CREAT | O_APPEND, 0644);

		if (fd < 0 || dup2(fd, STDERR_FILENO) < 0)
			_exit(126);
		execl("./pfprofd", "pfprofd", "--foreground", "--config", CONF, (char *)NULL);
		_exit(127);
	}
	return pid;
}

/*
 * pfprofd writes its state file once it is ready (log open, device mapped).
 * Its first start after boot loads libsystemd from a cold page cache: on
 * the debug kernel under TCG that alone was seen to take over 5 s. 15 s,
 * below the shortest daemon test's own limit (20 s), so that what it was
 * doing is shown before the runner ends the test.
 */
void daemon_wait_ready(pid_t daemon)
{
	uint64_t start = now_ns(), deadline = start + 15000000000ULL;
	char path[64];

	while (access(RUN_DIR "/state", F_OK)) {
		expect(waitpid(daemon, NULL, WNOHANG) == 0, "pfprofd exited before it was ready");
		if (now_ns() >= deadline) {
			printf("  pfprofd's messages, then where it waits in the kernel:\n");
			show_file(STDERR_FILE, "stderr: ");
			snprintf(path, sizeof(path), "/proc/%d/stack", (int)daemon);
			/* A kernel without CONFIG_STACKTRACE has no such file. */
			if (!access(path, R_OK))
				show_file(path, "stack: ");
			fail("pfprofd not ready after 15 s");
		}
		sleep_ms(10);
	}
	if (now_ns() - start > 2000000000ULL)
		printf("  pfprofd was ready after %.1f s\n", (now_ns() - start) / 1e9);
}

pid_t start_ready_daemon(void)
{
	pid_t pid;

	unlink(RUN_DIR "/state");
	pid = start_daemon();
	daemon_wait_ready(pid);
	return pid;
}

void stop_daemon(pid_t pid)
{
	int status;

	kill(pid, SIGTERM);
	expect(waitpid(pid, &status, 0) == pid, "waitpid pfprofd: %s", strerror(errno));
	expect(WIFEXITED(status) && WEXITSTATUS(status) == 0,
	       "pfprofd stopped with status %#x on SIGTERM", status);
}

/* Runs pfprofctl with the test config; stdout to out (may be NULL). */
int daemon_ctl(const char *out, const char *a1, const char *a2, const char *a3)
{
	char *argv[] = { "./pfprofctl", "--config", CONF, (char *)a1, (char *)a2, (char *)a3,
			 NULL };

	return run_program_err(argv, out, DAEMON_DIR "/ctl.stderr");
}

pid_t add_worker(struct worker *w)
{
	char pid[16];

	worker_spawn(w);
	snprintf(pid, sizeof(pid), "%d", (int)w->pid);
	expect(daemon_ctl(NULL, "add", pid, NULL) == 0, "pfprofctl add %s failed", pid);
	return w->pid;
}

/* The value of the first line of the metrics file that starts with prefix; -1 if none. */
double prom_value(const char *prefix)
{
	char line[512];
	double value = -1;
	FILE *f = fopen(PROM_FILE, "r");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		if (!strncmp(line, prefix, strlen(prefix))) {
			value = strtod(strrchr(line, ' ') + 1, NULL);
			break;
		}
	}
	fclose(f);
	return value;
}

const char *prom_next_line(const char *line)
{
	const char *end = strchrnul(line, '\n');

	return *end ? end + 1 : end;
}

bool prom_snapshot(struct prom_snapshot *s)
{
	FILE *f = fopen(PROM_FILE, "r");
	size_t n;

	if (!f && errno == ENOENT)
		return false;
	expect(f, "open %s: %s", PROM_FILE, strerror(errno));
	n = fread(s->text, 1, sizeof(s->text) - 1, f);
	expect(!ferror(f) && n < sizeof(s->text) - 1, "%s: unreadable or over %zu bytes",
	       PROM_FILE, sizeof(s->text) - 1);
	fclose(f);
	s->text[n] = '\0';
	return true;
}

double prom_snapshot_value(const struct prom_snapshot *s, const char *prefix)
{
	size_t len = strlen(prefix);

	for (const char *line = s->text; *line; line = prom_next_line(line))
		if (!strncmp(line, prefix, len)) {
			const char *end = strchrnul(line, '\n'), *sp = line + len;

			for (const char *p = line + len; p < end; p++)
				if (*p == ' ')
					sp = p + 1;
			return strtod(sp, NULL);
		}
	return -1;
}

/* pfprofctl add OPTION PID, after which the targets file has the line "WORD PID". */
void add_keeping_line(const char *option, const char *pid_arg, const char *word)
{
	char line[64];

	expect(daemon_ctl(NULL, "add", option, pid_arg) == 0, "pfprofctl add %s %s failed", option,
	       pid_arg);
	snprintf(line, sizeof(line), "%s %s\n", word, pid_arg);
	expect(file_contains(PID_FILE, line), "no line '%.*s' in %s", (int)strlen(line) - 1, line,
	       PID_FILE);
}

/*
 * pfprofctl add OPTION PID keeps "WORD PID" and registers it; unregistered
 * in the module only, pfprofd, started now, registers it again from the
 * file and logs "profiling PID N with its WHAT". Returns pfprofd's PID.
 */
pid_t expect_kept_by_daemon(const char *option, pid_t pid, const char *word,
				   const char *what)
{
	char pid_arg[16], line[96];
	pid_t daemon;

	snprintf(pid_arg, sizeof(pid_arg), "%d", (int)pid);
	add_keeping_line(option, pid_arg, word);
	expect(status_lists(pid), "add %s did not register PID %d", option, (int)pid);
	expect_ok(status_cmd('U', pid), "U child");
	daemon = start_ready_daemon();
	wait_listed(pid, 5000);
	snprintf(line, sizeof(line), "profiling PID %d with its %s", (int)pid, what);
	expect(file_contains(STDERR_FILE, line), "pfprofd did not log '%s'", line);
	return daemon;
}
