// SPDX-License-Identifier: GPL-2.0
#include "gnuplot.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "atomicfile.h"
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

void gnuplot_set_output(FILE *f, bool svg, int width, int height, const char *path)
{
	fprintf(f, "set terminal %s size %d,%d noenhanced\nset output '", svg ? "svg" : "pngcairo",
		width, height);
	gnuplot_quote(f, path);
	fputs("'\n", f);
}

int gnuplot_draw(const char *out, const char *dir_template,
		 int (*write_inputs)(const char *dir, const char *temp, char *script, void *ctx),
		 void *ctx)
{
	char dir[PATH_MAX], script[PATH_MAX];
	struct atomic_file picture;
	int err, rc = 0;

	snprintf(dir, sizeof(dir), "%s", dir_template);
	if (!mkdtemp(dir)) {
		ctl_error(-errno, "creating %s", dir);
		return -1;
	}
	err = atomic_file_begin(&picture, out);
	if (err) {
		ctl_error(err, "writing %s", out);
		gnuplot_remove_dir(dir);
		return -1;
	}
	err = write_inputs(dir, picture.temp, script, ctx);
	if (err)
		ctl_error(err, "writing gnuplot's input in %s", dir);
	else if ((rc = gnuplot_run(NULL, script)))
		gnuplot_failed(rc, script);
	gnuplot_remove_dir(dir);
	if (err || rc) {
		atomic_file_abort(&picture);
		return -1;
	}
	err = atomic_file_commit(&picture, gnuplot_new_file_mode(), false);
	if (err)
		ctl_error(err, "writing %s", out);
	return err ? -1 : 0;
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

bool ctl_picture_option_ok(const struct ctl_command *cmd, const struct ctl_call *call, int opt)
{
	if (!call->option[opt].set || ctl_picture_of(call->option[opt].string) != CTL_PICTURE_OTHER)
		return true;
	ctl_usage_error(cmd, "%s wants a .png or .svg file, not '%s'", call->option[opt].typed,
			call->option[opt].string);
	return false;
}
