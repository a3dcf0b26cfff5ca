// SPDX-License-Identifier: GPL-2.0
/* pfprofctl add, del, list: the module's registrations and the PID file. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ctl.h"
#include "pidlist.h"
#include "procstatus.h"

#define LIST_MAX 4096

static const char pids_details[] =
	"The PIDs are also written to (or removed from) pfprofd's PID file, so that\n"
	"pfprofd registers them again after a restart or a module reload.\n";

/* Parses every argument as a PID; prints the bad one. */
static int parse_pids(const struct ctl_command *cmd, int argc, char **argv, pid_t *pids)
{
	if (argc < 1) {
		fprintf(stderr, "pfprofctl %s: which PIDs?\nTry 'pfprofctl %s --help' for more information.\n",
			cmd->name, cmd->name);
		return CTL_USAGE;
	}
	for (int i = 0; i < argc; i++) {
		if (!ctl_parse_pid(argv[i], &pids[i])) {
			fprintf(stderr, "pfprofctl %s: '%s' is not a PID\n", cmd->name, argv[i]);
			return CTL_USAGE;
		}
	}
	return -1;
}

static int update_pid_file(const struct ctl *ctl, bool add, const pid_t *pids, size_t n)
{
	int err;

	if (!n)
		return CTL_OK;
	err = add ? pidlist_add(ctl->config.pid_file, pids, n) :
		    pidlist_remove(ctl->config.pid_file, pids, n);
	if (!err)
		return CTL_OK;
	ctl_error(err, "updating %s", ctl->config.pid_file);
	if (err == -EACCES || err == -EPERM)
		ctl_hint("run pfprofctl as root to change what pfprofd keeps profiled");
	else if (err == -ENOENT)
		ctl_hint("is pfprof installed? the directory of %s is missing", ctl->config.pid_file);
	return CTL_FAILED;
}

/* Runs R or U for each PID; the ones that worked go into done[]. */
static int send_commands(const struct ctl *ctl, char command, const pid_t *pids, int n,
			 pid_t *done, size_t *nr_done)
{
	int status = CTL_OK;

	/* ENOENT from a write means "not registered"; from here, "no module". */
	if (access(ctl->config.status_file, F_OK))
		return ctl_module_error(-errno, ctl->config.status_file);
	for (int i = 0; i < n; i++) {
		int err = procstatus_command(ctl->config.status_file, command, pids[i]);
		char object[64];

		if (!err || (command == 'R' && err == -EEXIST) || (command == 'U' && err == -ENOENT)) {
			done[(*nr_done)++] = pids[i];
			continue;
		}
		snprintf(object, sizeof(object), "%s PID %d", command == 'R' ? "adding" : "removing",
			 (int)pids[i]);
		ctl_error(err, "%s", object);
		if (err == -EPERM)
			ctl_hint("you may profile only processes you could trace (your own, or any as root)");
		status = CTL_FAILED;
	}
	return status;
}

static int change(struct ctl *ctl, const char *name, char command, int argc, char **argv)
{
	const struct ctl_command *cmd = ctl_find_command(name);
	int status = ctl_options(cmd, pids_details, argc, argv, NULL, NULL, NULL, NULL);
	pid_t *pids, *done;
	size_t nr_done = 0;
	int n;

	if (status >= 0)
		return status;
	n = argc - optind;
	pids = calloc(n + 1, sizeof(*pids));
	done = calloc(n + 1, sizeof(*done));
	if (!pids || !done) {
		ctl_error(-ENOMEM, "%s", name);
		status = CTL_FAILED;
		goto out;
	}
	status = parse_pids(cmd, n, argv + optind, pids);
	if (status >= 0)
		goto out;
	status = send_commands(ctl, command, pids, n, done, &nr_done);
	if (status != CTL_NO_MODULE) {
		int file_status = update_pid_file(ctl, command == 'R', done, nr_done);

		if (status == CTL_OK)
			status = file_status;
	}
out:
	free(pids);
	free(done);
	return status;
}

int ctl_add(struct ctl *ctl, int argc, char **argv)
{
	return change(ctl, "add", 'R', argc, argv);
}

int ctl_del(struct ctl *ctl, int argc, char **argv)
{
	return change(ctl, "del", 'U', argc, argv);
}

static void print_process(pid_t pid, const char *state)
{
	char path[64], comm[64] = "?";
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/comm", (int)pid);
	f = fopen(path, "re");
	if (f) {
		if (fgets(comm, sizeof(comm), f))
			comm[strcspn(comm, "\n")] = '\0';
		fclose(f);
	}
	printf("%-8d %-16s %s\n", (int)pid, comm, state);
}

static bool contains(const pid_t *pids, size_t n, pid_t pid)
{
	for (size_t i = 0; i < n; i++)
		if (pids[i] == pid)
			return true;
	return false;
}

int ctl_list(struct ctl *ctl, int argc, char **argv)
{
	static const char details[] =
		"Columns: PID, command name, and whether the module profiles it now and\n"
		"whether pfprofd's PID file keeps it across restarts.\n";
	int status = ctl_options(ctl_find_command("list"), details, argc, argv, NULL, NULL,
				 NULL, NULL);
	struct pidlist kept = { 0 };
	pid_t registered[LIST_MAX];
	int n, err;

	if (status >= 0)
		return status;
	if (optind < argc)
		return ctl_unexpected_argument(ctl_find_command("list"), argv[optind]);
	n = procstatus_list(ctl->config.status_file, registered, LIST_MAX);
	if (n < 0)
		return ctl_module_error(n, ctl->config.status_file);
	err = pidlist_read(ctl->config.pid_file, &kept, NULL, NULL);
	if (err)
		ctl_error(err, "reading %s", ctl->config.pid_file);
	printf("%-8s %-16s %s\n", "PID", "COMMAND", "STATE");
	for (int i = 0; i < n; i++)
		print_process(registered[i], contains(kept.pids, kept.count, registered[i]) ?
				      "profiled, kept" : "profiled");
	for (size_t i = 0; i < kept.count; i++)
		if (!contains(registered, n, kept.pids[i]))
			print_process(kept.pids[i], "kept, not profiled");
	pidlist_free(&kept);
	return err ? CTL_FAILED : CTL_OK;
}
