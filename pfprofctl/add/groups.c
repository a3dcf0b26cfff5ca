// SPDX-License-Identifier: GPL-2.0
/*
 * pfprofctl add/del --unit, --cgroup and --comm. Every name is checked
 * before anything changes, so that one bad name leaves the module and the
 * targets file as they were. A running unit, an existing cgroup or a command
 * name is registered at once, under the caller's credentials; the targets file
 * keeps the name, and pfprofd follows it from then on (a unit's restarts, a
 * cgroup made later, the module loaded again).
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/mp3.h>

#include "cgroupfs.h"
#include "add.h"
#include "ctl.h"
#include "targetsedit.h"
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
	if (err == -EINVAL && access(path, F_OK) && errno == ENOENT)
		ctl_error(-ENOENT, "cgroup %s", path);	/* a typo more often than a form */
	else
		ctl_error(err, "cgroup %s%s%s", path, why ? ": " : "", why ? why : "");
	if (err == -EINVAL)
		ctl_hint("give the cgroup's directory as it is, below %s "
			 "(e.g. %s/system.slice/nginx.service)", CGROUPFS_ROOT, CGROUPFS_ROOT);
	return err == -EINVAL ? PFPROF_EXIT_USAGE : PFPROF_EXIT_FAILED;
}

static int check_comm(const char *name)
{
	if (target_comm_valid(name))
		return PFPROF_EXIT_OK;
	ctl_error(0, "command name '%s': not 1 to %d printable bytes without white space or '#'",
		  name, TARGET_COMM_MAX);
	if (strlen(name) > TARGET_COMM_MAX)
		ctl_hint("the kernel keeps the first %d bytes of a name: --comm '%.*s'",
			 TARGET_COMM_MAX, TARGET_COMM_MAX, name);
	return PFPROF_EXIT_USAGE;
}

/* A directory as completion gives it (a '/' at its end) is taken without the '/'. */
static void strip_trailing_slashes(char *path)
{
	size_t len = strlen(path);

	while (len > 1 && path[len - 1] == '/')
		path[--len] = '\0';
}

static int check_name(enum target_kind kind, char *name, bool add)
{
	switch (kind) {
	case TARGET_UNIT:
		return check_unit(name, add);
	case TARGET_COMM:
		return check_comm(name);
	default:
		strip_trailing_slashes(name);
		return check_cgroup(name, add);
	}
}

/* How many the module follows at once: the names, or the cgroups and units. */
static bool followed_alike(enum target_kind a, enum target_kind b)
{
	return a != TARGET_PID && a != TARGET_TREE && b != TARGET_PID && b != TARGET_TREE &&
	       (a == TARGET_COMM) == (b == TARGET_COMM);
}

/* Whether names[i] is one the targets file does not have yet, given once. */
static bool is_new(const struct target_list *kept, enum target_kind kind, const char *user,
		   char **names, int i)
{
	for (int j = 0; j < i; j++)
		if (!strcmp(names[j], names[i]))
			return false;
	return !target_list_find(kept, target_number(kind, names[i], user));
}

static int check_collisions(const struct ctl *ctl, const struct target_list *kept,
			    enum target_kind kind, const char *user, char **names, int n)
{
	for (int i = 0; i < n; i++) {
		const struct target *other = target_list_collision(kept, kind, names[i], user);

		if (other) {
			ctl_error(0, "%s %s has the number of %s %s, which %s keeps (a hash collision)",
				  target_kind_word(kind), names[i], target_kind_word(other->kind),
				  other->name, ctl->config.targets_file);
			ctl_hint("profile it by another name: its cgroup's path, or its unit");
			return -EEXIST;
		}
	}
	return 0;
}

/* Whether the targets file can take names too: no number of another, room in the module. */
static int check_room(const struct ctl *ctl, enum target_kind kind, const char *user,
		      char **names, int n)
{
	int max = kind == TARGET_COMM ? MP3_COMMS_MAX : MP3_CGROUPS_MAX;
	struct target_list kept;
	size_t followed = 0;
	int err = target_list_read(ctl->config.targets_file, &kept, NULL, NULL);

	if (err) {
		ctl_error(err, "reading %s", ctl->config.targets_file);
		return PFPROF_EXIT_FAILED;
	}
	err = check_collisions(ctl, &kept, kind, user, names, n);
	for (size_t i = 0; i < kept.count; i++)
		followed += followed_alike(kept.targets[i].kind, kind);
	for (int i = 0; i < n; i++)
		followed += is_new(&kept, kind, user, names, i);
	target_list_free(&kept);
	if (!err && followed > (size_t)max) {
		ctl_error(-ENOSPC, "%zu %s", followed,
			  kind == TARGET_COMM ? "command names" : "cgroups and units");
		ctl_hint("the module follows at most %d at once", max);
		err = -ENOSPC;
	}
	return err ? PFPROF_EXIT_FAILED : PFPROF_EXIT_OK;
}

/* Registers a command name, or the target of a running unit or existing cgroup, now. */
static int follow_now(const struct ctl *ctl, enum target_kind kind, unsigned int options,
		      const char *user, const char *name)
{
	struct target t = { .kind = kind, .name = (char *)name, .user = (char *)user,
			    .number = target_number(kind, name, user),
			    .options = options };
	char path[PATH_MAX];
	uint64_t id = 0;
	int err;

	if (kind != TARGET_COMM && (!target_cgroup(&t, path, sizeof(path)) ||
				    cgroupfs_id(path, &id)))
		return 0;	/* pfprofd registers it when it appears */
	err = target_register(ctl->config.status_file, &t, id, options);
	return err < 0 ? err : 0;
}

static int send_commands(const struct ctl *ctl, enum target_kind kind, bool add,
			 unsigned int options, const char *user, char **names, int n)
{
	int status = PFPROF_EXIT_OK;

	if (access(ctl->config.status_file, F_OK)) {
		int err = -errno;

		/* Without the module nothing is followed: del is the targets file's part. */
		if (!add && ctl_module_missing_note(ctl, err, "removing from %s only",
						    ctl->config.targets_file))
			return PFPROF_EXIT_OK;
		return ctl_module_error(err, ctl->config.status_file);
	}
	for (int i = 0; i < n; i++) {
		int err = add ? follow_now(ctl, kind, options, user, names[i]) :
				procstatus_untarget(ctl->config.status_file,
						    target_number(kind, names[i], user));

		if (!err || (!add && err == -ENOENT))
			continue;
		ctl_error(err, "%s %s %s", add ? "adding" : "removing", target_kind_word(kind),
			  names[i]);
		if (err == -EINVAL)
			ctl_hint("the loaded mp3 module cannot follow %s%s: reload it "
				 "(modprobe -r mp3 && modprobe mp3)",
				 kind == TARGET_COMM ? user ? "one user's command names" :
				 "command names" : "cgroups", options ? " with these options" : "");
		ctl_hint_option_refused(options, err);
		status = PFPROF_EXIT_FAILED;
	}
	return status;
}

/* A --user that names nobody fails before anything changes; a name without one is anyone's. */
static int check_user(enum target_kind kind, const char *user, bool add)
{
	const struct target t = { .kind = kind, .user = (char *)user };
	uid_t uid;
	int err;

	if (!user) {
		if (add && kind == TARGET_COMM)
			ctl_hint("any user's process of that name joins: --user USER takes one "
				 "user's alone");
		return PFPROF_EXIT_OK;
	}
	if (!targetsfile_valid_user(user)) {
		ctl_error(0, "user '%s': not 1 to %d bytes without white space or '#'", user,
			  TARGETSFILE_USER_MAX - 1);
		return PFPROF_EXIT_USAGE;
	}
	err = target_user_uid(&t, &uid);
	if (err == -ENOENT && add) {
		ctl_error(0, "user %s: no such user", user);
		ctl_hint("give a login name (getent passwd lists them) or a uid");
		return PFPROF_EXIT_FAILED;
	}
	if (err && add) {
		ctl_error(err, "looking up user %s", user);
		return PFPROF_EXIT_FAILED;
	}
	return PFPROF_EXIT_OK;
}

int ctl_change_groups(const struct ctl *ctl, enum target_kind kind, bool add, unsigned int options,
		      const char *user, const struct ctl_call *call)
{
	char **names = call->operands;
	int n = call->nr_operands, status, err;

	status = check_user(kind, user, add);
	for (int i = 0; i < n && status == PFPROF_EXIT_OK; i++)
		status = check_name(kind, names[i], add);
	if (status == PFPROF_EXIT_OK && add)
		status = check_room(ctl, kind, user, names, n);
	if (status != PFPROF_EXIT_OK)
		return status;
	status = send_commands(ctl, kind, add, options, user, names, n);
	if (status == PFPROF_EXIT_NO_MODULE)
		return status;
	err = targetsfile_edit_user_values(ctl->config.targets_file, kind,
					   options, user, add, (const char *const *)names, n);
	return err ? ctl_targets_file_error(ctl, err) : status;
}
