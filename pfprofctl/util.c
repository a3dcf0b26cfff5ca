// SPDX-License-Identifier: GPL-2.0
/* pfprofctl: messages, hints, argument parsing. */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ctl.h"

#define MAX_OPTIONS 8

void ctl_error(int err, const char *fmt, ...)
{
	va_list ap;

	fputs("pfprofctl: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	if (err)
		fprintf(stderr, ": %s", strerror(-err));
	fputc('\n', stderr);
}

void ctl_hint(const char *fmt, ...)
{
	va_list ap;

	fputs("pfprofctl: hint: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

int ctl_module_error(int err, const char *object)
{
	ctl_error(err, "%s", object);
	if (err == -ENOENT || err == -ENXIO || err == -ENODEV) {
		ctl_hint("the mp3 module is not loaded; load it with: modprobe mp3");
		return CTL_NO_MODULE;
	}
	if (err == -EACCES || err == -EPERM)
		ctl_hint("you need more privileges for %s (root, or the group that owns it)",
			 object);
	return CTL_FAILED;
}

bool ctl_parse_pid(const char *arg, pid_t *pid)
{
	char *end;
	long v;

	if (*arg < '0' || *arg > '9')
		return false;
	errno = 0;
	v = strtol(arg, &end, 10);
	if (errno || *end || v <= 0 || v > INT_MAX)
		return false;
	*pid = (pid_t)v;
	return true;
}

static void command_help(const struct ctl_command *cmd, const char *details)
{
	printf("Usage: pfprofctl %s %s\n%s.\n%s", cmd->name, cmd->args, cmd->summary,
	       details ? details : "");
}

int ctl_options(const struct ctl_command *cmd, const char *details, int argc, char **argv,
		const char *shortopts, const struct option *extra,
		bool (*on_option)(int opt, const char *arg, void *ctx), void *ctx)
{
	struct option options[MAX_OPTIONS + 2] = { { "help", no_argument, NULL, 'h' } };
	char optstring[32];
	int n = 1, opt;

	for (; extra && extra[n - 1].name && n <= MAX_OPTIONS; n++)
		options[n] = extra[n - 1];
	/* '+': options end at the first argument (run -- cmd takes its own). */
	snprintf(optstring, sizeof(optstring), "+h%s", shortopts ? shortopts : "");
	optind = 1;
	while ((opt = getopt_long(argc, argv, optstring, options, NULL)) != -1) {
		if (opt == 'h') {
			command_help(cmd, details);
			return CTL_OK;
		}
		if (opt == '?' || !on_option || !on_option(opt, optarg, ctx)) {
			fprintf(stderr, "Try 'pfprofctl %s --help' for more information.\n",
				cmd->name);
			return CTL_USAGE;
		}
	}
	return -1;
}

int ctl_unexpected_argument(const struct ctl_command *cmd, const char *arg)
{
	fprintf(stderr, "pfprofctl %s: unexpected argument '%s'\n"
		"Try 'pfprofctl %s --help' for more information.\n", cmd->name, arg, cmd->name);
	return CTL_USAGE;
}
