// SPDX-License-Identifier: GPL-2.0
/*
 * pfprofctl: the command people type to profile processes with pfprof.
 * Exit status: enum pfprof_exit (pfprof.h) and pfprofctl(8).
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ctl.h"
#include "output.h"

static void usage(FILE *out)
{
	fprintf(out, "Usage: pfprofctl [-c FILE] <command> [args...]\n"
		"Profile page faults and CPU time of processes with the mp3 module.\n\n"
		"Commands:\n");
	for (size_t i = 0; ctl_commands[i]; i++)
		fprintf(out, "  %-8s %s\n", ctl_commands[i]->name, ctl_commands[i]->summary);
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

	opterr = 0;	/* said below, as pfprofctl rather than as argv[0] */
	while ((opt = getopt_long(argc, argv, "+c:hV", options, NULL)) != -1) {
		switch (opt) {
		case 'c':
			ctl->config_path = optarg;
			break;
		case 'h':
			usage(stdout);
			return PFPROF_EXIT_OK;
		case 'V':
			printf("pfprofctl (pfprof) %s\n", pfprof_version);
			return PFPROF_EXIT_OK;
		default:
			if (optopt == 'c')
				fprintf(stderr, "pfprofctl: -c wants a file\n");
			else if (optopt)
				fprintf(stderr, "pfprofctl: unknown option '-%c'\n", optopt);
			else
				fprintf(stderr, "pfprofctl: unknown option '%s'\n", argv[optind - 1]);
			fprintf(stderr, "Try 'pfprofctl --help' for more information.\n");
			return PFPROF_EXIT_USAGE;
		}
	}
	if (optind == argc) {
		usage(stderr);
		return PFPROF_EXIT_USAGE;
	}
	return -1;
}

/* Words people type for a command of pfprofctl's, from other tools. */
static const struct {
	const char *word;
	const char *command;
} command_synonyms[] = {
	{ "remove", "del" }, { "rm", "del" }, { "delete", "del" }, { "unregister", "del" },
	{ "register", "add" }, { "ls", "list" }, { "show", "status" }, { "info", "status" },
	{ "tail", "follow" }, { "watch", "top" },
};

static void unknown_command(const char *word)
{
	for (size_t i = 0; i < sizeof(command_synonyms) / sizeof(command_synonyms[0]); i++) {
		if (strcmp(word, command_synonyms[i].word))
			continue;
		fprintf(stderr, "pfprofctl: unknown command '%s'; did you mean '%s'?\n", word,
			command_synonyms[i].command);
		return;
	}
	fprintf(stderr, "pfprofctl: unknown command '%s'\n"
		"Try 'pfprofctl --help' for more information.\n", word);
}

/* The configuration's problems shown; the rest are counted, in case it is another file. */
#define CONFIG_PROBLEMS_SHOWN 3

static void report_config(void *ctx, const char *file, unsigned int line, const char *message)
{
	unsigned int *problems = ctx;

	if (++*problems <= CONFIG_PROBLEMS_SHOWN)
		fprintf(stderr, "pfprofctl: %s:%u: %s (line ignored)\n", file, line, message);
}

static int load_config(struct ctl *ctl)
{
	const char *path = ctl->config_path ? ctl->config_path : PFPROF_CONFIG_PATH;
	unsigned int problems = 0;
	int err = config_load_file(&ctl->config, ctl->config_path, report_config, &problems);

	if (problems > CONFIG_PROBLEMS_SHOWN)
		fprintf(stderr, "pfprofctl: %s: %u more lines ignored; is it pfprofd's configuration "
			"(see pfprofd.conf(5))?\n", path, problems - CONFIG_PROBLEMS_SHOWN);
	if (!err)
		return 0;
	ctl_error(err, "reading %s", path);
	return PFPROF_EXIT_FAILED;
}

int main(int argc, char **argv)
{
	struct ctl ctl = { 0 };
	const struct ctl_command *cmd;
	struct ctl_call call;
	int status = parse_global(&ctl, argc, argv);

	if (status >= 0)
		return status;
	argc -= optind;
	argv += optind;
	cmd = ctl_find_command(argv[0]);
	if (!cmd) {
		unknown_command(argv[0]);
		return PFPROF_EXIT_USAGE;
	}
	status = ctl_parse_call(cmd, argc, argv, &call);
	if (status >= 0)
		return status;
	if (call.config_path)
		ctl.config_path = call.config_path;
	if (load_config(&ctl))
		return PFPROF_EXIT_FAILED;
	status = cmd->run(&ctl, &call);
	/* Whatever the command did, output it could not write fails it. */
	return finish_stdout("pfprofctl") == EXIT_SUCCESS ? status : PFPROF_EXIT_FAILED;
}
