// SPDX-License-Identifier: GPL-2.0
#include "sleepers.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <linux/mp3.h>

/* Wakes every 2 ms to write to a page of its own, round a 1 MiB buffer. */
static _Noreturn void busy_loop(void)
{
	const struct timespec pause_2ms = { 0, 2000000 };
	volatile char *pages = malloc(256 * 4096);

	if (!pages)
		_exit(1);
	for (unsigned int i = 0;; i++) {
		pages[(i % 256) * 4096] = (char)i;
		nanosleep(&pause_2ms, NULL);
	}
}

int sleepers_spawn(struct sleepers *s, size_t count, size_t busy)
{
	s->pids = calloc(count ? count : 1, sizeof(*s->pids));
	s->count = 0;
	if (!s->pids)
		return -ENOMEM;
	while (s->count < count) {
		pid_t pid = fork();

		if (pid < 0) {
			int err = -errno;

			sleepers_kill(s);
			return err;
		}
		if (!pid) {
			/* Gone with the benchmark, whatever happens to it. */
			prctl(PR_SET_PDEATHSIG, SIGKILL);
			if (s->count >= count - busy)
				busy_loop();
			for (;;)
				pause();
		}
		s->pids[s->count++] = pid;
	}
	return 0;
}

int sleepers_register(const struct sleepers *s, char command)
{
	int fd = open(MP3_STATUS_PATH, O_WRONLY | O_CLOEXEC);
	char line[32];
	int err = 0;

	if (fd < 0)
		return -errno;
	for (size_t i = 0; i < s->count && !err; i++) {
		int len = snprintf(line, sizeof(line), "%c %d", command, (int)s->pids[i]);

		if (write(fd, line, len) != len)
			err = -errno;
	}
	close(fd);
	return err;
}

void sleepers_kill(struct sleepers *s)
{
	pid_t *pids = s->pids;

	for (size_t i = 0; i < s->count; i++)
		kill(s->pids[i], SIGKILL);
	for (size_t i = 0; i < s->count; i++)
		waitpid(s->pids[i], NULL, 0);
	/* Emptied before freed: a SIGTERM now finds nothing to kill. */
	s->count = 0;
	s->pids = NULL;
	free(pids);
}

static const struct sleepers *sleepers_to_kill;

/* Only async-signal-safe calls: kill(), waitpid(), _exit(). */
static void kill_sleepers_and_exit(int sig)
{
	for (size_t i = 0; i < sleepers_to_kill->count; i++)
		kill(sleepers_to_kill->pids[i], SIGKILL);
	for (size_t i = 0; i < sleepers_to_kill->count; i++)
		waitpid(sleepers_to_kill->pids[i], NULL, 0);
	_exit(128 + sig);
}

void sleepers_kill_on_sigterm(const struct sleepers *s)
{
	struct sigaction sa = { .sa_handler = kill_sleepers_and_exit };

	sleepers_to_kill = s;
	sigaction(SIGTERM, &sa, NULL);
}
