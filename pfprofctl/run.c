// SPDX-License-Identifier: GPL-2.0
/*
 * pfprofctl run: start a command that is profiled from its first
 * instruction, with every process it starts (its tree, numbered by its PID).
 */
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
			return PFPROF_EXIT_FAILED;
		}
	}
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

enum { OPT_NO_CHILDREN };

/*
 * The command's tree, or the command alone; a module without trees (before
 * version 3) takes the command alone, after a warning.
 */
static int register_command(const struct ctl *ctl, pid_t pid, bool children)
{
	int err;

	if (!children)
		return procstatus_command(ctl->config.status_file, 'R', pid);
	err = procstatus_tree(ctl->config.status_file, pid, (unsigned int)pid);
	if (err != -EINVAL)
		return err;
	ctl_error(0, "the loaded mp3 module cannot follow children; profiling the command "
		  "alone");
	ctl_hint("reload the module (modprobe -r mp3 && modprobe mp3) to load its installed version");
	return procstatus_command(ctl->config.status_file, 'R', pid);
}

static int run(struct ctl *ctl, const struct ctl_call *call)
{
	int go[2], err;
	pid_t pid;

	if (pipe2(go, O_CLOEXEC)) {
		ctl_error(-errno, "pipe");
		return PFPROF_EXIT_FAILED;
	}
	pid = fork();
	if (pid == 0) {
		close(go[1]);
		child(go[0], call->operands);
	}
	close(go[0]);
	if (pid < 0) {
		ctl_error(-errno, "fork");
		close(go[1]);
		return PFPROF_EXIT_FAILED;
	}
	err = register_command(ctl, pid, !call->option[OPT_NO_CHILDREN].set);
	if (err) {
		close(go[1]);	/* the child exits without running anything */
		waitpid(pid, NULL, 0);
		return ctl_module_error(err, ctl->config.status_file);
	}
	/* Ctrl-C is for the command; we stay to report how it ended. */
	signal(SIGINT, SIG_IGN);
	signal(SIGQUIT, SIG_IGN);
	if (write(go[1], "g", 1) != 1) {
		ctl_error(-errno, "starting %s", call->operands[0]);
		kill(pid, SIGKILL);
	}
	close(go[1]);
	return wait_status(pid);
}

const struct ctl_command ctl_run_command = {
	.name = "run", .operands = "[--] <command> [args...]", .min_operands = 1,
	.max_operands = -1, .missing_operands = "which command?",
	.summary = "Run a command, profiled from its first instruction",
	.details = "The command is registered with the module before it starts, so its\n"
		   "very first page faults are counted; it is not added to the targets file.\n"
		   "Every process it starts, and theirs, is profiled too, from its fork on\n"
		   "(records marked with the command's PID as their target).\n"
		   "Exit status: the command's, 128 + N if signal N killed it, 126/127 if it\n"
		   "could not be run, 3 if the module is not loaded.\n",
	.options = {
		[OPT_NO_CHILDREN] = { "no-children", 0, CTL_STRING, NULL,
				      "profile the command alone, not the processes it starts" },
	},
	.options_end_at_operand = true,
	.run = run,
};
