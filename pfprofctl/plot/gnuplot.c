// SPDX-License-Identifier: GPL-2.0
#include "gnuplot.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "ctl.h"

int gnuplot_run(const char *expr, const char *script)
{
	int status;
	pid_t pid = fork();

	if (pid == 0) {
		if (expr)
			execlp("gnuplot", "gnuplot", "-e", expr, script, (char *)NULL);
		else
			execlp("gnuplot", "gnuplot", script, (char *)NULL);
		fprintf(stderr, "pfprofctl: running gnuplot: %s\n", strerror(errno));
		_exit(errno == ENOENT ? 127 : 126);
	}
	if (pid < 0)
		return -errno;
	if (waitpid(pid, &status, 0) < 0)
		return -errno;
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

void gnuplot_quote(FILE *f, const char *name)
{
	for (; *name; name++)
		fputs(*name == '\'' ? "''" : (char[]){ *name, '\0' }, f);
}

void gnuplot_failed(int rc, const char *script)
{
	if (rc == 127)
		ctl_hint("is gnuplot installed? apt install gnuplot-nox");
	else if (rc < 0)
		ctl_error(rc, "running gnuplot");
	else
		ctl_error(0, "gnuplot %s exited with status %d", script, rc);
}

void gnuplot_remove_dir(const char *dir)
{
	DIR *d = opendir(dir);
	const struct dirent *e;

	while (d && (e = readdir(d)))
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
			unlinkat(dirfd(d), e->d_name, 0);
	if (d)
		closedir(d);
	if (rmdir(dir))
		ctl_error(-errno, "removing %s", dir);
}

mode_t gnuplot_new_file_mode(void)
{
	mode_t mask = umask(0);

	umask(mask);
	return 0666 & ~mask;
}

enum ctl_picture ctl_picture_of(const char *path)
{
	const char *dot = strrchr(path, '.');

	if (dot && !strcasecmp(dot, ".png"))
		return CTL_PICTURE_PNG;
	if (dot && !strcasecmp(dot, ".svg"))
		return CTL_PICTURE_SVG;
	return CTL_PICTURE_OTHER;
}
