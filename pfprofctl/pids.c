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

static const char pids_details[] =
	"The PIDs are also written to (or removed from) pfprofd's PID file, so that\n"
	"pfprofd registers them again after a restart or a module reload.\n"
	"With --tree each PID is the root of a tree: the process and every process it\n"
	"starts, and theirs, each from its fork (a line 'tree PID' in the PID file).\n";

enum { OPT_TREE };

/* Parses every operand as a PID; reports the bad one. */
static int parse_pids(const struct ctl_command *cmd, const struct ctl_call *call, pid_t *pids)
{
	for (int i = 0; i < call->nr_operands; i++)
		if (!ctl_parse_pid(call->operands[i], &pids[i]))
			return ctl_usage_error(cmd, "'%s' is not a PID", call->operands[i]);
	return -1;
}

static int update_pid_file(const struct ctl *ctl, bool add, bool tree, const pid_t *pids,
			   size_t n)
{
	int err;

	if (!n)
		return PFPROF_EXIT_OK;
	if (tree)
		err = add ? pidlist_add_trees(ctl->config.pid_file, pids, n) :
			    pidlist_remove_trees(ctl->config.pid_file, pids, n);
	else
		err = add ? pidlist_add(ctl->config.pid_file, pids, n) :
			    pidlist_remove(ctl->config.pid_file, pids, n);
	if (!err)
		return PFPROF_EXIT_OK;
	ctl_error(err, "updating %s", ctl->config.pid_file);
	if (err == -EACCES || err == -EPERM)
		ctl_hint("run pfprofctl as root to change what pfprofd keeps profiled");
	else if (err == -ENOENT)
		ctl_hint("is pfprof installed? the directory of %s is missing", ctl->config.pid_file);
	return PFPROF_EXIT_FAILED;
}

/* R, U, or for a tree T (its number is its root's PID) and X. */
static int send_command(const struct ctl *ctl, bool add, bool tree, pid_t pid)
{
	if (tree && add)
		return procstatus_tree(ctl->config.status_file, pid, (unsigned int)pid);
	return procstatus_command(ctl->config.status_file,
				  tree ? 'X' : add ? 'R' : 'U', pid);
}

/* Adds or removes each PID (or tree); the ones that worked go into done[]. */
static int send_commands(const struct ctl *ctl, bool add, bool tree, const pid_t *pids, int n,
			 pid_t *done, size_t *nr_done)
{
	int status = PFPROF_EXIT_OK;

	/* ENOENT from a write means "not registered"; from here, "no module". */
	if (access(ctl->config.status_file, F_OK))
		return ctl_module_error(-errno, ctl->config.status_file);
	for (int i = 0; i < n; i++) {
		int err = send_command(ctl, add, tree, pids[i]);

		if (!err || (add && err == -EEXIST) || (!add && err == -ENOENT)) {
			done[(*nr_done)++] = pids[i];
			continue;
		}
		ctl_error(err, "%s %s %d", add ? "adding" : "removing",
			  tree ? "the tree of PID" : "PID", (int)pids[i]);
		if (tree && add && err == -EINVAL)
			ctl_hint("the loaded mp3 module cannot follow trees: reload it "
				 "(modprobe -r mp3 && modprobe mp3)");
		if (err == -EPERM)
			ctl_hint("you may profile only processes you could trace (your own, or any as root)");
		status = PFPROF_EXIT_FAILED;
	}
	return status;
}

static int change(struct ctl *ctl, const struct ctl_command *cmd, bool add,
		  const struct ctl_call *call)
{
	bool tree = call->option[OPT_TREE].set;
	int n = call->nr_operands, status;
	pid_t *pids = calloc(n, sizeof(*pids)), *done = calloc(n, sizeof(*done));
	size_t nr_done = 0;

	if (!pids || !done) {
		ctl_error(-ENOMEM, "%s", cmd->name);
		status = PFPROF_EXIT_FAILED;
		goto out;
	}
	status = parse_pids(cmd, call, pids);
	if (status >= 0)
		goto out;
	status = send_commands(ctl, add, tree, pids, n, done, &nr_done);
	if (status != PFPROF_EXIT_NO_MODULE) {
		int file_status = update_pid_file(ctl, add, tree, done, nr_done);

		if (status == PFPROF_EXIT_OK)
			status = file_status;
	}
out:
	free(pids);
	free(done);
	return status;
}

static int add(struct ctl *ctl, const struct ctl_call *call)
{
	return change(ctl, &ctl_add_command, true, call);
}

static int del(struct ctl *ctl, const struct ctl_call *call)
{
	return change(ctl, &ctl_del_command, false, call);
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

/* The parent of pid, from /proc; 0 if gone. */
static pid_t parent_of(pid_t pid)
{
	char path[64], *line = NULL, *close_paren;
	size_t size = 0;
	int ppid = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	f = fopen(path, "re");
	if (!f)
		return 0;
	/* "pid (comm) state ppid ...": comm may hold spaces and parentheses. */
	if (getline(&line, &size, f) > 0 && (close_paren = strrchr(line, ')')))
		sscanf(close_paren + 1, " %*c %d", &ppid);
	free(line);
	fclose(f);
	return ppid;
}

/* Whether pid is root or descends from it, as /proc says now. */
static bool in_tree(pid_t pid, pid_t root)
{
	for (int depth = 0; pid > 1 && depth < 1024; depth++, pid = parent_of(pid))
		if (pid == root)
			return true;
	return false;
}

static void print_tree(pid_t root, const struct pidlist *registered)
{
	size_t members = 0;
	char state[64];

	for (size_t i = 0; i < registered->count; i++)
		members += in_tree(registered->pids[i], root);
	snprintf(state, sizeof(state), "tree kept, %zu processes profiled", members);
	print_process(root, state);
}

static bool contains(const struct pidlist *list, pid_t pid)
{
	for (size_t i = 0; i < list->count; i++)
		if (list->pids[i] == pid)
			return true;
	return false;
}

static int list(struct ctl *ctl, const struct ctl_call *call)
{
	struct pidlist kept = { 0 }, trees = { 0 }, registered;
	int err;

	(void)call;
	err = procstatus_list(ctl->config.status_file, &registered);
	if (err)
		return ctl_module_error(err, ctl->config.status_file);
	err = pidlist_read(ctl->config.pid_file, &kept, NULL, NULL);
	if (!err)
		err = pidlist_read_trees(ctl->config.pid_file, &trees);
	if (err)
		ctl_error(err, "reading %s", ctl->config.pid_file);
	printf("%-8s %-16s %s\n", "PID", "COMMAND", "STATE");
	for (size_t i = 0; i < registered.count; i++)
		print_process(registered.pids[i], contains(&kept, registered.pids[i]) ?
				      "profiled, kept" : "profiled");
	for (size_t i = 0; i < kept.count; i++)
		if (!contains(&registered, kept.pids[i]))
			print_process(kept.pids[i], "kept, not profiled");
	for (size_t i = 0; i < trees.count; i++)
		print_tree(trees.pids[i], &registered);
	pidlist_free(&trees);
	pidlist_free(&kept);
	pidlist_free(&registered);
	return err ? PFPROF_EXIT_FAILED : PFPROF_EXIT_OK;
}

const struct ctl_command ctl_add_command = {
	.name = "add", .operands = "<pid>...", .min_operands = 1, .max_operands = -1,
	.missing_operands = "which PIDs?",
	.summary = "Profile these processes now and after restarts",
	.details = pids_details,
	.options = {
		[OPT_TREE] = { "tree", 't', CTL_STRING, NULL,
			       "each PID with every process it starts, from its fork" },
	},
	.run = add,
};

const struct ctl_command ctl_del_command = {
	.name = "del", .operands = "<pid>...", .min_operands = 1, .max_operands = -1,
	.missing_operands = "which PIDs?",
	.summary = "Stop profiling these processes",
	.details = pids_details,
	.options = {
		[OPT_TREE] = { "tree", 't', CTL_STRING, NULL,
			       "each PID's tree: the process and all it started" },
	},
	.run = del,
};

const struct ctl_command ctl_list_command = {
	.name = "list", .operands = "",
	.summary = "List the profiled processes",
	.details = "Columns: PID, command name, and whether the module profiles it now and\n"
		   "whether pfprofd's PID file keeps it across restarts; then each tree the\n"
		   "PID file keeps, by its root, with how many of its processes are profiled.\n",
	.run = list,
};
