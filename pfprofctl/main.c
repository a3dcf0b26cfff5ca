// SPDX-License-Identifier: GPL-2.0
/*
 * pfprofctl: the command people type to profile processes with pfprof.
 * Exit status: see the CTL_* values in ctl.h and pfprofctl(8).
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "ctl.h"

#define VERSION "0.1"

static const struct ctl_command commands[] = {
	{ "add", "<pid>...", "Profile these processes now and after restarts", ctl_add },
	{ "del", "<pid>...", "Stop profiling these processes", ctl_del },
	{ "list", "", "List the profiled processes", ctl_list },
	{ "status", "", "Show the module, the device, the daemon and the logs", ctl_status },
	{ "follow", "[-n N] [--count N]", "Print samples as they are taken", ctl_follow },
	{ "run", "[--] <command> [args...]", "Run a command, profiled from its first instruction",
	  ctl_run },
	{ "plot", "[--out FILE]", "Plot cumulative faults and CPU time from the logs (PNG)",
	  ctl_plot },
};

const struct ctl_command *ctl_find_command(const char *name)
{
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		if (!strcmp(commands[i].name, name))
			return &commands[i];
	return NULL;
}

static void usage(FILE *out)
{
	fprintf(out, "Usage: pfprofctl [-c FILE] <command> [args...]\n"
		"Profile page faults and CPU time of processes with the mp3 module.\n\n"
		"Commands:\n");
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		fprintf(out, "  %-7s %-26s %s\n", commands[i].name, commands[i].args,
			commands[i].summary);
	fprintf(out, "\nOptions:\n"
		"  -c, --config FILE  pfprofd's configuration (default " PFPROF_CONFIG_PATH ")\n"
		"  -h, --help         this help; 'pfprofctl <command> --help' for a command\n"
		"  -V, --version      the version\n\n"
		"Exit status: 0 success, 1 failure, 2 usage error, 3 the mp3 module is not\n"
		"loaded, 4 (status) pfprofd is not running. See pfprofctl(8).\n");
}

/* Global options stop at the command name. */
static int parse_global(struct ctl *ctl, int argc, char **argv)
{
	static const struct option options[] = {
		{ "config", required_argument, NULL, 'c' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ 0 }
	};
	int opt;

	while ((opt = getopt_long(argc, argv, "+c:hV", options, NULL)) != -1) {
		switch (opt) {
		case 'c':
			ctl->config_path = optarg;
			break;
		case 'h':
			usage(stdout);
			return CTL_OK;
		case 'V':
			printf("pfprofctl (pfprof) " VERSION "\n");
			return CTL_OK;
		default:
			fprintf(stderr, "Try 'pfprofctl --help' for more information.\n");
			return CTL_USAGE;
		}
	}
	if (optind == argc) {
		usage(stderr);
		return CTL_USAGE;
	}
	return -1;
}

static void report_config(void *ctx, const char *file, unsigned int line, const char *message)
{
	(void)ctx;
	fprintf(stderr, "pfprofctl: %s:%u: %s (line ignored)\n", file, line, message);
}

static int load_config(struct ctl *ctl)
{
	const char *path = ctl->config_path ? ctl->config_path : PFPROF_CONFIG_PATH;
	int err = config_load(&ctl->config, path, report_config, NULL);

	if (!err || (err == -ENOENT && !ctl->config_path))
		return 0;
	ctl_error(err, "reading %s", path);
	return CTL_FAILED;
}

int main(int argc, char **argv)
{
	struct ctl ctl = { 0 };
	const struct ctl_command *cmd;
	int status = parse_global(&ctl, argc, argv);

	if (status >= 0)
		return status;
	cmd = ctl_find_command(argv[optind]);
	if (!cmd) {
		fprintf(stderr, "pfprofctl: unknown command '%s'\n"
			"Try 'pfprofctl --help' for more information.\n", argv[optind]);
		return CTL_USAGE;
	}
	if (load_config(&ctl))
		return CTL_FAILED;
	status = cmd->run(&ctl, argc - optind, argv + optind);
	if (fflush(stdout) || ferror(stdout)) {
		ctl_error(-errno, "writing to standard output");
		return CTL_FAILED;
	}
	return status;
}
