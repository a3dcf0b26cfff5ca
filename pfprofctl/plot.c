// SPDX-License-Identifier: GPL-2.0
/* pfprofctl plot: cumulative faults and CPU time from the logs, via gnuplot. */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "ctl.h"
#include "logformat.h"

#ifndef PFPROF_PLOT_SCRIPT
#define PFPROF_PLOT_SCRIPT "/usr/local/share/pfprof/pfprof-log.gp"
#endif

enum { OPT_OUT };

static int append_file(FILE *to, const char *path)
{
	char buf[65536];
	FILE *from = fopen(path, "re");
	size_t n;

	if (!from)
		return -errno;
	while ((n = fread(buf, 1, sizeof(buf), from)) > 0)
		fwrite(buf, 1, n, to);
	fclose(from);
	return ferror(to) ? -EIO : 0;
}

/*
 * Copies every log, oldest first, into one file for gnuplot (so that no
 * file name goes through a shell). Returns how many logs, or -errno.
 */
static int gather_logs(const struct pfprof_config *config, FILE *to)
{
	char path[PATH_MAX];
	int n = 0;

	for (int i = config->keep; i >= 0; i--) {
		int err = logformat_path(path, sizeof(path), config->log_dir, LOG_SAMPLES, i);

		if (!err)
			err = append_file(to, path);
		if (err == -ENOENT)
			continue;
		if (err) {
			ctl_error(err, "reading %s", path);
			return err;
		}
		n++;
	}
	return fflush(to) ? -errno : n;
}

/* 0, or the exit status of gnuplot (127: not installed), or -errno. */
static int run_gnuplot(const char *script, const char *data, const char *label, const char *out)
{
	char *expr;
	int status;
	pid_t pid;

	if (asprintf(&expr, "files='%s'; label='%s'; out='%s'", data, label, out) < 0)
		return -ENOMEM;
	pid = fork();
	if (pid == 0) {
		execlp("gnuplot", "gnuplot", "-e", expr, script, (char *)NULL);
		fprintf(stderr, "pfprofctl: running gnuplot: %s\n", strerror(errno));
		_exit(errno == ENOENT ? 127 : 126);
	}
	free(expr);
	if (pid < 0)
		return -errno;
	if (waitpid(pid, &status, 0) < 0)
		return -errno;
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

static int plot(const struct ctl *ctl, const char *script, const char *out)
{
	char data[] = "/tmp/pfprof-plot.XXXXXX";
	int fd = mkstemp(data), n, rc;
	FILE *f;

	if (fd < 0 || !(f = fdopen(fd, "w"))) {
		ctl_error(-errno, "creating %s", data);
		return PFPROF_EXIT_FAILED;
	}
	n = gather_logs(&ctl->config, f);
	fclose(f);
	if (n == 0) {
		ctl_error(-ENOENT, "no logs in %s", ctl->config.log_dir);
		ctl_hint("pfprofd writes them; see: pfprofctl status");
	}
	rc = n > 0 ? run_gnuplot(script, data, ctl->config.log_dir, out) : PFPROF_EXIT_FAILED;
	unlink(data);
	if (n <= 0)
		return PFPROF_EXIT_FAILED;
	if (rc == 127)
		ctl_hint("is gnuplot installed? apt install gnuplot-nox");
	else if (rc < 0)
		ctl_error(rc, "running gnuplot");
	else if (rc)
		ctl_error(0, "gnuplot %s exited with status %d", script, rc);
	else
		printf("wrote %s from %d log file%s\n", out, n, n == 1 ? "" : "s");
	return rc ? PFPROF_EXIT_FAILED : PFPROF_EXIT_OK;
}

static int run(struct ctl *ctl, const struct ctl_call *call)
{
	const char *out = call->option[OPT_OUT].set ? call->option[OPT_OUT].string : "pfprof.png";
	const char *script = getenv("PFPROF_PLOT_SCRIPT");

	/* They go inside '...' on gnuplot's command line. */
	if (strchr(out, '\'') || strchr(ctl->config.log_dir, '\'')) {
		ctl_error(-EINVAL, "a single quote in %s or %s", out, ctl->config.log_dir);
		return PFPROF_EXIT_FAILED;
	}
	return plot(ctl, script ? script : PFPROF_PLOT_SCRIPT, out);
}

const struct ctl_command ctl_plot_command = {
	.name = "plot", .operands = "",
	.summary = "Plot cumulative faults and CPU time from the logs (PNG)",
	.details = "Reads every log in the log directory, oldest first, and draws the\n"
		   "cumulative minor and major faults and CPU time against time.\n"
		   "The gnuplot script is " PFPROF_PLOT_SCRIPT " (PFPROF_PLOT_SCRIPT overrides).\n",
	.options = {
		[OPT_OUT] = { "out", 'o', CTL_STRING, "FILE",
			      "the PNG to write (default pfprof.png)" },
	},
	.run = run,
};
