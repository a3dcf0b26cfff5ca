// SPDX-License-Identifier: GPL-2.0
/*
 * pfprofctl add and del of PIDs and trees: the module's registrations and the
 * targets file (units, cgroups and command names: groups.c).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "add.h"
#include "ctl.h"
#include "targetsedit.h"
#include "targets.h"
#include "targetsfile.h"
#include "procstatus.h"

static const char pids_details[] =
	"The PIDs are also written to (or removed from) pfprofd's targets file, so\n"
	"that pfprofd registers them again after a restart or a module reload.\n"
	"With --tree each PID is the root of a tree: the process and every process it\n"
	"starts, and theirs, each from its fork (a line 'tree PID' in the targets file).\n"
	"With --unit the operands are systemd units (services, scopes, slices), with\n"
	"--cgroup cgroup v2 directories below /sys/fs/cgroup: every process in them,\n"
	"present and future, is profiled; pfprofd follows a unit through restarts and\n"
	"picks it up when it starts ('unit NAME', 'cgroup PATH' in the targets file).\n"
	"With --comm the operands are command names, as ps -o comm shows them (at most\n"
	"15 bytes): every process of that name, present and future, from its fork or\n"
	"its exec of a program of that name, until it is renamed ('comm NAME'); any\n"
	"user's, unless --user USER takes those of that user alone (a login name or a\n"
	"uid: 'user=USER comm NAME'), so that another user's program of that name\n"
	"does not join.\n"
	"With --maps the processes' faults are also placed in their mappings (heap,\n"
	"stack, each file...), for pfprofctl where ('maps PID', 'maps unit NAME'...;\n"
	"a process that joins a tree, unit, cgroup or name later has its faults placed\n"
	"from the next sample on); see pfprofctl(8).\n"
	"With --latency the processes' faults are also timed ('latency PID', 'latency\n"
	"unit NAME'...; an administrator's: while one is so profiled, every fault of\n"
	"the machine passes a kernel probe).\n"
	"With --pages every page the processes send to swap and take back is traced:\n"
	"its slot, its address, when, and the stall of its swap-in ('pages PID',\n"
	"'pages unit NAME'...; an administrator's: reclaim and every swap-in fault of\n"
	"the machine pass kernel probes).\n";

static const char del_details[] =
	"The PIDs are also removed from pfprofd's targets file, so that pfprofd\n"
	"does not register them again. With --tree each PID is a tree's root: the\n"
	"tree added with add --tree, the process and every process it started. With\n"
	"--unit, --cgroup or --comm the operands are the units, cgroups or names\n"
	"as added (a name with its --user): every process of each stops being\n"
	"profiled and its line leaves the targets file. A target added with --maps,\n"
	"--latency or --pages loses its fault maps, times or page trace with it; see\n"
	"pfprofctl(8).\n";

enum { OPT_TREE, OPT_UNIT, OPT_CGROUP, OPT_COMM, OPT_USER, OPT_MAPS, OPT_LATENCY, OPT_PAGES };

/* How the PIDs are registered, and the targets file's lines that keep them so. */
struct pids_kind {
	bool tree;
	unsigned int options;	/* TARGETSFILE_OPT_*: --maps, --latency, --pages */
};

/* Parses every operand as a PID; reports the bad one. */
static int parse_pids(const struct ctl_command *cmd, const struct ctl_call *call, pid_t *pids)
{
	for (int i = 0; i < call->nr_operands; i++)
		if (!ctl_parse_pid(call->operands[i], &pids[i]))
			return ctl_usage_error(cmd, "'%s' is not a PID", call->operands[i]);
	return -1;
}

/* del of a PID removes its line with or without options; add keeps those it had. */
static int update_targets_file(const struct ctl *ctl, bool add, struct pids_kind kind,
			       const pid_t *pids, size_t n)
{
	int err = 0;

	if (n)
		err = targetsfile_edit_pids(ctl->config.targets_file,
					    kind.tree ? TARGET_TREE : TARGET_PID,
					    kind.options, add, pids, n);
	return err ? ctl_targets_file_error(ctl, err) : PFPROF_EXIT_OK;
}

/* R (with the options), or T and then M and L; -EEXIST if the module had it. */
static int add_one(const char *file, struct pids_kind kind, pid_t pid)
{
	char name[16];
	struct target t = { .kind = kind.tree ? TARGET_TREE : TARGET_PID, .name = name,
			    .number = kind.tree ? (uint32_t)pid : 0 };
	int err;

	snprintf(name, sizeof(name), "%d", (int)pid);
	err = target_register(file, &t, 0, kind.options);
	return err == 1 ? -EEXIST : err;
}

/* R (with the options), U, or for a tree T (with M, L) and X. */
static int send_command(const struct ctl *ctl, bool add, struct pids_kind kind, pid_t pid)
{
	const char *file = ctl->config.status_file;

	if (add)
		return add_one(file, kind, pid);
	if (kind.tree)
		return procstatus_command(file, 'X', pid);
	return procstatus_command(file, 'U', pid);
}

/*
 * Whether the targets file keeps pid with all of options: the module cannot say
 * with which options a process it has is registered, the file can for those
 * added so.
 */
static bool kept_with(const struct ctl *ctl, pid_t pid, unsigned int options)
{
	struct target_list kept;
	bool found = false;

	if (target_list_read(ctl->config.targets_file, &kept, NULL, NULL))
		return false;
	for (size_t i = 0; i < kept.count && !found; i++)
		found = kept.targets[i].kind == TARGET_PID && target_pid(&kept.targets[i]) == pid &&
			(target_line_options(&kept.targets[i]) & options) == options;
	target_list_free(&kept);
	return found;
}

/* What to do about a PID that could not be added or removed. */
static void hint_failure(struct pids_kind kind, bool add, int err, pid_t pid)
{
	bool latency = kind.options & TARGETSFILE_OPT_LATENCY;
	bool pages = kind.options & TARGETSFILE_OPT_PAGES;

	if (kind.tree && add && err == -EINVAL)
		ctl_hint("the loaded mp3 module cannot follow trees%s: reload it "
			 "(modprobe -r mp3 && modprobe mp3)", kind.options ? " with these options" : "");
	if (!kind.tree && add && kind.options && err == -EINVAL)
		ctl_hint("the loaded mp3 module cannot %s: reload it (modprobe -r mp3 && modprobe mp3)",
			 pages ? "trace swapped pages (version 10)" :
			 latency ? "time faults (version 8)" : "place faults in mappings");
	if (!kind.tree && add && kind.options && err == -EEXIST)
		ctl_hint("PID %d is profiled already, not added with --%s: "
			 "pfprofctl del %d first", (int)pid,
			 targetsfile_option_words(kind.options), (int)pid);
	if (!(add && ctl_hint_option_refused(kind.options, err)) && err == -EPERM)
		ctl_hint("you may profile only processes you could trace (your own, or any as root)");
}

/* Adds or removes each PID (or tree); the ones that worked go into done[]. */
static int send_commands(const struct ctl *ctl, bool add, struct pids_kind kind, const pid_t *pids,
			 int n, pid_t *done, size_t *nr_done)
{
	int status = PFPROF_EXIT_OK;

	/* ENOENT from a write means "not registered"; from here, "no module". */
	if (access(ctl->config.status_file, F_OK)) {
		int err = -errno;

		/* Without the module nothing is profiled: del is the targets file's part. */
		if (add || !ctl_module_missing_note(ctl, err, "removing from %s only",
						     ctl->config.targets_file))
			return ctl_module_error(err, ctl->config.status_file);
		memcpy(done, pids, n * sizeof(*pids));
		*nr_done = n;
		return PFPROF_EXIT_OK;
	}
	for (int i = 0; i < n; i++) {
		int err = send_command(ctl, add, kind, pids[i]);
		bool done_before = add ? err == -EEXIST && (kind.tree || !kind.options ||
							    kept_with(ctl, pids[i], kind.options)) :
					 err == -ENOENT;

		if (!err || done_before) {
			done[(*nr_done)++] = pids[i];
			continue;
		}
		ctl_error(err, "%s %s %d", add ? "adding" : "removing",
			  kind.tree ? "the tree of PID" : "PID", (int)pids[i]);
		hint_failure(kind, add, err, pids[i]);
		status = PFPROF_EXIT_FAILED;
	}
	return status;
}

static int change(const struct ctl *ctl, const struct ctl_command *cmd, bool add,
		  const struct ctl_call *call)
{
	bool tree = call->option[OPT_TREE].set;
	unsigned int options = (call->option[OPT_MAPS].set ? TARGETSFILE_OPT_MAPS : 0) |
			       (call->option[OPT_LATENCY].set ? TARGETSFILE_OPT_LATENCY : 0) |
			       (call->option[OPT_PAGES].set ? TARGETSFILE_OPT_PAGES : 0);
	struct pids_kind kind = { .tree = tree, .options = options };
	int n = call->nr_operands, status;
	pid_t *pids, *done;
	size_t nr_done = 0;

	if (tree + call->option[OPT_UNIT].set + call->option[OPT_CGROUP].set +
	    call->option[OPT_COMM].set > 1)
		return ctl_usage_error(cmd, "--tree, --unit, --cgroup and --comm name different "
				       "things: give one of them");
	if (call->option[OPT_USER].set && !call->option[OPT_COMM].set)
		return ctl_usage_error(cmd, "--user limits a command name to one user's "
				       "processes: give it with --comm");
	if (call->option[OPT_UNIT].set)
		return ctl_change_groups(ctl, TARGET_UNIT, add, options, NULL, call);
	if (call->option[OPT_CGROUP].set)
		return ctl_change_groups(ctl, TARGET_CGROUP, add, options, NULL, call);
	if (call->option[OPT_COMM].set)
		return ctl_change_groups(ctl, TARGET_COMM, add, options,
					 call->option[OPT_USER].string, call);
	pids = calloc(n, sizeof(*pids));
	done = calloc(n, sizeof(*done));
	if (!pids || !done) {
		ctl_error(-ENOMEM, "%s", cmd->name);
		status = PFPROF_EXIT_FAILED;
		goto out;
	}
	status = parse_pids(cmd, call, pids);
	if (status >= 0)
		goto out;
	status = send_commands(ctl, add, kind, pids, n, done, &nr_done);
	if (status != PFPROF_EXIT_NO_MODULE) {
		int file_status = update_targets_file(ctl, add, kind, done, nr_done);

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

const struct ctl_command ctl_add_command = {
	.name = "add",
	.operands = "<pid>... | --unit <unit>... | --cgroup <path>... | --comm <name>...",
	.min_operands = 1, .max_operands = -1,
	.missing_operands = "which PIDs (or units, cgroups, names)?",
	.summary = "Profile these processes now and after restarts",
	.details = pids_details,
	.options = {
		[OPT_TREE] = { "tree", 't', CTL_OPERAND_KIND, NULL,
			       "each PID with every process it starts, from its fork" },
		[OPT_UNIT] = { "unit", 'u', CTL_OPERAND_KIND, NULL,
			       "the operands are systemd units: all their processes" },
		[OPT_CGROUP] = { "cgroup", 'g', CTL_OPERAND_KIND, NULL,
				 "the operands are cgroup v2 directories: their processes" },
		[OPT_COMM] = { "comm", 'C', CTL_OPERAND_KIND, NULL,
			       "the operands are command names: every process of each" },
		[OPT_USER] = { "user", 0, CTL_STRING, "USER",
			       "with --comm: that user's processes of each name alone" },
		[OPT_MAPS] = { "maps", 'm', CTL_STRING, NULL,
			       "place the faults in their mappings too (pfprofctl where)" },
		[OPT_LATENCY] = { "latency", 0, CTL_STRING, NULL,
				  "time the faults too, by a probe on every fault (root)" },
		[OPT_PAGES] = { "pages", 0, CTL_STRING, NULL,
				"trace pages sent to swap and back: kernel probes (root)" },
	},
	.run = add,
};

const struct ctl_command ctl_del_command = {
	.name = "del",
	.operands = "<pid>... | --unit <unit>... | --cgroup <path>... | --comm <name>...",
	.min_operands = 1, .max_operands = -1,
	.missing_operands = "which PIDs (or units, cgroups, names)?",
	.summary = "Stop profiling these processes",
	.details = del_details,
	.options = {
		[OPT_TREE] = { "tree", 't', CTL_OPERAND_KIND, NULL,
			       "each PID's tree: the process and all it started" },
		[OPT_UNIT] = { "unit", 'u', CTL_OPERAND_KIND, NULL,
			       "the operands are systemd units" },
		[OPT_CGROUP] = { "cgroup", 'g', CTL_OPERAND_KIND, NULL,
				 "the operands are cgroup v2 directories" },
		[OPT_COMM] = { "comm", 'C', CTL_OPERAND_KIND, NULL,
			       "the operands are command names" },
		[OPT_USER] = { "user", 0, CTL_STRING, "USER",
			       "with --comm: the names added with --user USER" },
	},
	.run = del,
};
