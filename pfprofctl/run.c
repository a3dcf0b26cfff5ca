// SPDX-License-Identifier: GPL-2.0
/* pfprofctl run: start a command that is profiled from its first instruction. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "ctl.h"
#include "procstatus.h"

/* The child waits on the pipe; EOF without a byte means "do not run". */
static void child(int go_fd, char **argv)
{
	char go;

	if (read(go_fd, &go, 1) != 1)
		_exit(127);
	close(go_fd);
	execvp(argv[0], argv);
	fprintf(stderr, "pfprofctl run: cannot run %s: %s\n", argv[0], strerror(errno));
	_exit(errno == ENOENT ? 127 : 126);
}

/* The command's exit status, or 128 + the signal that killed it. */
static int wait_status(pid_t pid)
{
	int status;

	while (waitpid(pid, &status, 0) < 0) {
		if (errno != EINTR) {
			ctl_error(-errno, "waiting for PID %d", (int)pid);
			return CTL_FAILED;
		}
	}
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

int ctl_run(struct ctl *ctl, int argc, char **argv)
{
	static const char details[] =
		"The command is registered with the module before it starts, so its\n"
		"very first page faults are counted; it is not added to the PID file.\n"
		"Exit status: the command's, 128 + N if signal N killed it, 126/127 if it\n"
		"could not be run, 3 if the module is not loaded.\n";
	int status = ctl_options(ctl_find_command("run"), details, argc, argv, NULL, NULL,
				 NULL, NULL);
	int go[2], err;
	pid_t pid;

	if (status >= 0)
		return status;
	if (optind == argc) {
		fprintf(stderr, "pfprofctl run: which command?\n");
		return CTL_USAGE;
	}
	if (pipe2(go, O_CLOEXEC)) {
		ctl_error(-errno, "pipe");
		return CTL_FAILED;
	}
	pid = fork();
	if (pid == 0) {
		close(go[1]);
		child(go[0], argv + optind);
	}
	close(go[0]);
	if (pid < 0) {
		ctl_error(-errno, "fork");
		close(go[1]);
		return CTL_FAILED;
	}
	err = procstatus_command(ctl->config.status_file, 'R', pid);
	if (err) {
		close(go[1]);	/* the child exits without running anything */
		waitpid(pid, NULL, 0);
		return ctl_module_error(err, ctl->config.status_file);
	}
	/* Ctrl-C is for the command; we stay to report how it ended. */
	signal(SIGINT, SIG_IGN);
	signal(SIGQUIT, SIG_IGN);
	if (write(go[1], "g", 1) != 1) {
		ctl_error(-errno, "starting %s", argv[optind]);
		kill(pid, SIGKILL);
	}
	close(go[1]);
	return wait_status(pid);
}
