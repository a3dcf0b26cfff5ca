// SPDX-License-Identifier: GPL-2.0
/*
 * A target registered with the module, with its options: the one way
 * pfprofctl and pfprofd register what the targets file names. Apart from
 * targets.c, as targetuser.c is: it looks up a command name's user.
 */
#include <errno.h>

#include "procstatus.h"
#include "targets.h"

/*
 * "C", "N" or "P": a group's registration; 0 taken now, 1 the module had
 * it, or -errno: -ESRCH for a command name's user that does not exist.
 */
static int register_group(const char *status_file, const struct target *t, uint64_t cgroup_id)
{
	uid_t uid;

	if (t->kind != TARGET_COMM)
		return procstatus_follow_cgroup(status_file, cgroup_id, t->number);
	if (target_user_uid(t, &uid))
		return -ESRCH;
	return procstatus_follow_comm(status_file, t->name, uid, t->number);
}

int target_register(const char *status_file, const struct target *t, uint64_t cgroup_id,
		    unsigned int options)
{
	int err, options_err;

	switch (t->kind) {
	case TARGET_PID:
		err = procstatus_register(status_file, target_pid(t), options);
		return err == -EEXIST ? 1 : err;
	case TARGET_TREE:
		err = procstatus_tree(status_file, target_pid(t), t->number);
		err = err == -EEXIST ? 1 : err;
		break;
	default:
		err = register_group(status_file, t, cgroup_id);
		break;
	}
	if (err < 0)
		return err;
	/* On a target that has them already, "M" and "L" change nothing. */
	options_err = procstatus_target_options(status_file, options, t->number, t->kind);
	return options_err ? options_err : err;
}
