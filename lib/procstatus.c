// SPDX-License-Identifier: GPL-2.0
#include "procstatus.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include <linux/mp3.h>

#include "growarray.h"

/* The module takes exactly one command per write(). */
static int write_text(const char *status_file, const char *cmd, int len)
{
	int fd, err = 0;
	ssize_t written;

	fd = open(status_file, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	written = write(fd, cmd, len);
	if (written != len)
		err = written < 0 ? -errno : -EIO;	/* a short write leaves errno as it was */
	close(fd);
	return err;
}

/* end follows the PID. */
static int write_command(const char *status_file, char command, pid_t pid, const char *end)
{
	char cmd[32];
	int len = snprintf(cmd, sizeof(cmd), "%c %d%s", command, (int)pid, end);

	return write_text(status_file, cmd, len);
}

int procstatus_register(const char *status_file, pid_t pid, unsigned int options)
{
	const char *words = targetsfile_option_words(options);
	char cmd[48];
	int len = snprintf(cmd, sizeof(cmd), "R %d%s%s\n", (int)pid, *words ? " " : "", words);

	return write_text(status_file, cmd, len);
}

int procstatus_tree(const char *status_file, pid_t pid, unsigned int target)
{
	char cmd[40];
	int len = snprintf(cmd, sizeof(cmd), "T %d %u\n", (int)pid, target);

	return write_text(status_file, cmd, len);
}

/* "<verb> <target>\n". */
static int write_target_command(const char *status_file, char verb, unsigned int target)
{
	char cmd[24];
	int len = snprintf(cmd, sizeof(cmd), "%c %u\n", verb, target);

	return write_text(status_file, cmd, len);
}

/*
 * "S <target> charged\n"; where the module is older than version 13
 * (EINVAL) or the target has pages without them (EBUSY: pages asked
 * before, by an older pfprofd), "S <target>\n".
 */
static int write_cgroup_pages(const char *status_file, unsigned int target)
{
	char cmd[40];
	int len = snprintf(cmd, sizeof(cmd), "S %u charged\n", target);
	int err = write_text(status_file, cmd, len);

	if (err == -EINVAL || err == -EBUSY)
		err = write_target_command(status_file, 'S', target);
	return err;
}

int procstatus_target_option(const char *status_file, unsigned int option, unsigned int target,
			     enum target_kind kind)
{
	/* Each option's letter, by its flag's place. */
	static const char letters[TARGETSFILE_NR_OPTS] = { 'M', 'L', 'S' };

	if (option == TARGETSFILE_OPT_PAGES && (kind == TARGET_CGROUP || kind == TARGET_UNIT))
		return write_cgroup_pages(status_file, target);
	return write_target_command(status_file, letters[__builtin_ctz(option)], target);
}

int procstatus_target_options(const char *status_file, unsigned int options, unsigned int target,
			      enum target_kind kind)
{
	int err = 0;

	for (unsigned int o = 1; !err && (o & TARGETSFILE_OPTS); o <<= 1)
		if (options & o)
			err = procstatus_target_option(status_file, o, target, kind);
	return err;
}

int procstatus_untarget(const char *status_file, unsigned int target)
{
	return write_target_command(status_file, 'X', target);
}

/* Writes cmd, a registration of target; "X" first if another group has the target. */
static int follow(const char *status_file, unsigned int target, const char *cmd, int len)
{
	int err = write_text(status_file, cmd, len);

	if (err == -EBUSY) {
		procstatus_untarget(status_file, target);
		err = write_text(status_file, cmd, len);
	}
	return err == -EEXIST ? 1 : err;
}

int procstatus_follow_cgroup(const char *status_file, uint64_t cgroup_id, unsigned int target)
{
	char cmd[48];
	int len = snprintf(cmd, sizeof(cmd), "C %" PRIu64 " %u\n", cgroup_id, target);

	return follow(status_file, target, cmd, len);
}

int procstatus_follow_comm(const char *status_file, const char *comm, uid_t uid,
			   unsigned int target)
{
	char cmd[MP3_STATUS_MAX_WRITE + 1];
	int len = uid == (uid_t)-1 ? snprintf(cmd, sizeof(cmd), "N %u %s\n", target, comm) :
		  snprintf(cmd, sizeof(cmd), "P %u %u %s\n", target, (unsigned int)uid, comm);

	if (len >= (int)sizeof(cmd))
		return -EINVAL;
	return follow(status_file, target, cmd, len);
}

int procstatus_command(const char *status_file, char command, pid_t pid)
{
	return write_command(status_file, command, pid, "\n");
}

int procstatus_command_bare(const char *status_file, char command, pid_t pid)
{
	return write_command(status_file, command, pid, "");
}

int procstatus_list(const char *status_file, struct pidlist *list)
{
	FILE *f = fopen(status_file, "re");
	size_t cap = 0;
	int pid, err = 0;

	*list = (struct pidlist){ 0 };
	if (!f)
		return -errno;
	while (!err && fscanf(f, "%d", &pid) == 1) {
		pid_t *pids = grow_array(list->pids, &cap, list->count, sizeof(*pids), 64);

		if (!pids) {
			err = -ENOMEM;
			break;
		}
		list->pids = pids;
		list->pids[list->count++] = pid;
	}
	if (!err && ferror(f))
		err = -EIO;
	fclose(f);
	if (err)
		pidlist_free(list);
	return err;
}
