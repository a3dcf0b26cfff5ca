// SPDX-License-Identifier: GPL-2.0
/*
 * pfprofctl add/del --unit and --cgroup. Every name is checked before
 * anything changes, so that one bad name leaves the module and the PID file
 * as they were. A running unit or an existing cgroup is registered at once,
 * under the caller's credentials; the PID file keeps the name, and pfprofd
 * follows it from then on (a unit's restarts, a cgroup made later).
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/mp3.h>

#include "cgroupfs.h"
#include "ctl.h"
#include "pidlist.h"
#include "procstatus.h"
#include "targets.h"

static int check_unit(const char *name, bool add)
{
	char path[PATH_MAX];
	const char *why;
	int err = cgroupfs_check_unit_name(name, &why);

	if (err) {
		ctl_error(0, "unit '%s': %s", name, why);
		return PFPROF_EXIT_USAGE;
	}
	if (add && cgroupfs_find_unit(CGROUPFS_ROOT, name, path, sizeof(path)) &&
	    !cgroupfs_unit_file_exists(name)) {
		ctl_error(-ENOENT, "unit %s", name);
		ctl_hint("it is not running, and systemd has no unit file of that name "
			 "(systemctl list-units --all lists the units)");
		return PFPROF_EXIT_FAILED;
	}
	return PFPROF_EXIT_OK;
}

static int check_cgroup(const char *path, bool add)
{
	const char *why = NULL;
	uint64_t id;
	int err = cgroupfs_check_path(CGROUPFS_ROOT, path, &why);

	if (!err)
		err = cgroupfs_id(path, &id);
	/* A cgroup that is gone can still be deleted. */
	if (!err || (!add && err == -ENOENT))
		return PFPROF_EXIT_OK;
	if (err == -ENOTSUP)
		why = "not on a cgroup v2 file system";
	ctl_error(err, "cgroup %s%s%s", path, why ? ": " : "", why ? why : "");
	if (err == -EINVAL)
		ctl_hint("give the cgroup's directory as it is, below %s "
			 "(e.g. %s/system.slice/nginx.service)", CGROUPFS_ROOT, CGROUPFS_ROOT);
	return err == -EINVAL ? PFPROF_EXIT_USAGE : PFPROF_EXIT_FAILED;
}

/* Whether the PID file can take names too: no number of another, room in the module. */
static int check_room(const struct ctl *ctl, enum target_kind kind, char **names, int n)
{
	struct target_list kept;
	size_t followed = 0;
	int err = target_list_read(ctl->config.pid_file, &kept);

	if (err) {
		ctl_error(err, "reading %s", ctl->config.pid_file);
		return PFPROF_EXIT_FAILED;
	}
	for (int i = 0; i < n && !err; i++) {
		const struct target *other = target_list_collision(&kept, kind, names[i]);

		if (other) {
			ctl_error(0, "%s %s has the number of %s %s, which %s keeps (a hash collision)",
				  target_kind_word(kind), names[i], target_kind_word(other->kind),
				  other->name, ctl->config.pid_file);
			ctl_hint("profile it by another name: its cgroup's path, or its unit");
			err = -EEXIST;
		}
	}
	for (size_t i = 0; i < kept.count; i++)
		followed += kept.targets[i].kind != TARGET_TREE;
	for (int i = 0; i < n; i++)
		followed += !target_list_find(&kept, target_number(kind, names[i]));
	target_list_free(&kept);
	if (!err && followed > MP3_CGROUPS_MAX) {
		ctl_error(-ENOSPC, "%zu cgroups and units", followed);
		ctl_hint("the module follows at most %d at once", MP3_CGROUPS_MAX);
		err = -ENOSPC;
	}
	return err ? PFPROF_EXIT_FAILED : PFPROF_EXIT_OK;
}

/* Registers the target of a running unit or an existing cgroup now; 0 or -errno. */
static int follow_now(const struct ctl *ctl, enum target_kind kind, const char *name)
{
	struct target t = { .kind = kind, .name = (char *)name,
			    .number = target_number(kind, name) };
	char path[PATH_MAX];
	uint64_t id;
	int err;

	if (!target_cgroup(&t, path, sizeof(path)) || cgroupfs_id(path, &id))
		return 0;	/* pfprofd registers it when it appears */
	err = procstatus_follow_cgroup(ctl->config.status_file, id, t.number);
	return err > 0 ? 0 : err;
}

static int send_commands(const struct ctl *ctl, enum target_kind kind, bool add, char **names,
			 int n)
{
	int status = PFPROF_EXIT_OK;

	if (access(ctl->config.status_file, F_OK))
		return ctl_module_error(-errno, ctl->config.status_file);
	for (int i = 0; i < n; i++) {
		int err = add ? follow_now(ctl, kind, names[i]) :
				procstatus_untarget(ctl->config.status_file,
						    target_number(kind, names[i]));

		if (!err || (!add && err == -ENOENT))
			continue;
		ctl_error(err, "%s %s %s", add ? "adding" : "removing", target_kind_word(kind),
			  names[i]);
		if (err == -EINVAL)
			ctl_hint("the loaded mp3 module cannot follow cgroups: reload it "
				 "(modprobe -r mp3 && modprobe mp3)");
		status = PFPROF_EXIT_FAILED;
	}
	return status;
}

int ctl_change_cgroups(struct ctl *ctl, enum target_kind kind, bool add,
		       const struct ctl_call *call)
{
	enum pidlist_kind line = kind == TARGET_UNIT ? PIDLIST_UNIT : PIDLIST_CGROUP;
	char **names = call->operands;
	int n = call->nr_operands, status = PFPROF_EXIT_OK, err;

	for (int i = 0; i < n && status == PFPROF_EXIT_OK; i++)
		status = kind == TARGET_UNIT ? check_unit(names[i], add) :
					       check_cgroup(names[i], add);
	if (status == PFPROF_EXIT_OK && add)
		status = check_room(ctl, kind, names, n);
	if (status != PFPROF_EXIT_OK)
		return status;
	status = send_commands(ctl, kind, add, names, n);
	if (status == PFPROF_EXIT_NO_MODULE)
		return status;
	err = pidlist_edit_values(ctl->config.pid_file, line, add, (const char *const *)names, n);
	return err ? ctl_pid_file_error(ctl, err) : status;
}
