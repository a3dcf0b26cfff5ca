// SPDX-License-Identifier: GPL-2.0
/*
 * /proc/mp3/status: "R <pid> [maps] [latency] [pages]" registers (with maps:
 * where its faults are too, with latency: how long they took, with pages:
 * which pages go to swap and back), "U <pid>"
 * unregisters, "T <pid> <target>" registers a tree, "C <cgroup-id>
 * <target>" a cgroup, "N <target> <comm>" a command name, "P <target>
 * <uid> <comm>" one user's processes of a command name, "X <target>"
 * unregisters any of them, "M <target>" places the faults of a target's
 * processes, "L <target>" times them, "S <target> [charged]" traces
 * their pages (with charged: those of a cgroup's no process has too);
 * reading lists the registered PIDs the reader may read. One command per
 * write(), all or nothing.
 */
#include <linux/cgroup.h>
#include <linux/cred.h>
#include <linux/ctype.h>
#include <linux/kernel.h>
#include <linux/nsproxy.h>
#include <linux/proc_fs.h>
#include <linux/sched.h>
#include <linux/seq_file.h>
#include <linux/string.h>
#include <linux/uaccess.h>

#include "internal.h"

/*
 * World-writable on purpose, as the MP3 interface specifies: every command
 * is checked against the right of whoever opened the file to read the
 * target process (mp3_may_read() in access.c), and only the owner of a
 * registration or an administrator may end or change it.
 */
#define MP3_STATUS_MODE 0666

static struct proc_dir_entry *mp3_proc_dir;

static int mp3_status_show(struct seq_file *m, void *v)
{
	mp3_tasks_show(m);
	return 0;
}

/*
 * The opener's view of the cgroups: the root of its cgroup namespace on
 * the default hierarchy, held while the file is open ("C" is judged by it,
 * as cgroup_get_from_id() judges the writer).
 */
static struct cgroup *mp3_cgns_root_get(void)
{
	/* current's own nsproxy: it cannot change under us. */
	struct cgroup *root = current->nsproxy->cgroup_ns->root_cset->dfl_cgrp;

	cgroup_get(root);
	return root;
}

static struct cgroup *mp3_opener_cgns_root(const struct file *file)
{
	const struct seq_file *m = file->private_data;

	return m->private;
}

static int mp3_status_open(struct inode *inode, struct file *file)
{
	struct cgroup *root = mp3_cgns_root_get();
	int err = single_open(file, mp3_status_show, root);

	if (err)
		cgroup_put(root);
	return err;
}

static int mp3_status_release(struct inode *inode, struct file *file)
{
	cgroup_put(mp3_opener_cgns_root(file));
	return single_release(inode, file);
}

struct mp3_command {
	char verb;		/* R, U, T, X, C, N, P, M, L or S */
	int pid;		/* R, U, T */
	u64 cgroup_id;		/* C */
	u64 uid;		/* P, in the opener's user namespace */
	const char *comm;	/* N, P: in the caller's buffer */
	int target;		/* T, X, C, N, P, M, L, S */
	unsigned int measures;	/* R: "maps", "latency", "pages" */
	bool charged;		/* S: "charged" */
};

/*
 * A decimal number from @min to @max without a sign, then white space or
 * the end; *@s moves past it.
 */
static int mp3_parse_number(char **s, u64 min, u64 max, u64 *val)
{
	char *arg = skip_spaces(*s), *end = arg;

	while (isdigit(*end))
		end++;
	if (end == arg || (*end && !isspace(*end)))
		return -EINVAL;		/* kstrtou64() would accept a sign */
	*s = *end ? end + 1 : end;
	*end = '\0';
	return kstrtou64(arg, 10, val) || *val < min || *val > max ? -EINVAL : 0;
}

static int mp3_parse_int(char **s, int *val)
{
	u64 v;
	int err = mp3_parse_number(s, 1, INT_MAX, &v);

	*val = v;
	return err;
}

/*
 * The rest of the command as a command name: 1 to TASK_COMM_LEN - 1 bytes
 * (what the kernel keeps of a name), white space around it ignored.
 */
static int mp3_parse_comm(char *s, const char **comm)
{
	size_t len;

	s = skip_spaces(s);
	len = strlen(s);
	if (!len || len >= TASK_COMM_LEN)
		return -EINVAL;
	*comm = s;
	return 0;
}

/* An optional last word @word: whether it is there. */
static bool mp3_parse_word(char **s, const char *word)
{
	char *arg = skip_spaces(*s);
	size_t len = strlen(word);

	if (strncmp(arg, word, len) || (arg[len] && !isspace(arg[len])))
		return false;
	*s = arg + len;
	return true;
}

/*
 * Parses "R <pid> [maps] [latency] [pages]", "U <pid>", "T <pid> <target>",
 * "X <target>", "C <cgroup-id> <target>", "N <target> <comm>", "P <target>
 * <uid> <comm>", "M <target>", "L <target>" or "S <target> [charged]",
 * white space around.
 */
static int mp3_parse_command(char *buf, size_t len, struct mp3_command *c)
{
	char *args;
	int err;

	if (strlen(buf) != len)
		return -EINVAL;		/* embedded NUL */
	buf = strim(buf);
	if (!buf[0] || !strchr("RUTXCNPMLS", buf[0]) || !isspace(buf[1]))
		return -EINVAL;
	c->verb = buf[0];
	args = buf + 1;
	switch (c->verb) {
	case 'X':
	case 'M':
	case 'L':
		err = mp3_parse_int(&args, &c->target);
		break;
	case 'S':
		err = mp3_parse_int(&args, &c->target);
		if (!err && mp3_parse_word(&args, "charged"))
			c->charged = true;
		break;
	case 'C':
		err = mp3_parse_number(&args, 1, U64_MAX, &c->cgroup_id);
		if (!err)
			err = mp3_parse_int(&args, &c->target);
		break;
	case 'T':
		err = mp3_parse_int(&args, &c->pid);
		if (!err)
			err = mp3_parse_int(&args, &c->target);
		break;
	case 'N':
		err = mp3_parse_int(&args, &c->target);
		/* The name is the rest, spaces and all. */
		return err ? err : mp3_parse_comm(args, &c->comm);
	case 'P':
		err = mp3_parse_int(&args, &c->target);
		if (!err)
			err = mp3_parse_number(&args, 0, U32_MAX - 1, &c->uid);
		return err ? err : mp3_parse_comm(args, &c->comm);
	case 'R':
		err = mp3_parse_int(&args, &c->pid);
		if (!err && mp3_parse_word(&args, "maps"))
			c->measures |= MP3_MEASURE(MP3_MEASURE_MAPS);
		if (!err && mp3_parse_word(&args, "latency"))
			c->measures |= MP3_MEASURE(MP3_MEASURE_LATENCY);
		if (!err && mp3_parse_word(&args, "pages"))
			c->measures |= MP3_MEASURE(MP3_MEASURE_PAGES);
		break;
	default:
		err = mp3_parse_int(&args, &c->pid);
	}
	/* Nothing may follow the last number. */
	return err ? err : *skip_spaces(args) ? -EINVAL : 0;
}

static int mp3_run_command(const struct file *file, const struct mp3_command *c)
{
	/* One user's, by the opener's numbering of users. */
	const struct mp3_name name = {
		.comm = c->comm,
		.uid = c->verb == 'P' ? make_kuid(file->f_cred->user_ns, c->uid) : INVALID_UID,
	};

	if (c->verb == 'P' && !uid_valid(name.uid))
		return -EINVAL;
	switch (c->verb) {
	case 'R':
		return mp3_register(file, c->pid, 0, c->measures);
	case 'T':
		return mp3_register(file, c->pid, c->target, 0);
	case 'U':
		return mp3_unregister(file, c->pid);
	case 'C':
		return mp3_register_cgroup(file, c->cgroup_id, mp3_opener_cgns_root(file),
					   c->target);
	case 'N':
	case 'P':
		return mp3_register_comm(file, &name, c->target);
	case 'M':
		return mp3_measure_target(file, c->target, MP3_MEASURE_MAPS, false);
	case 'L':
		return mp3_measure_target(file, c->target, MP3_MEASURE_LATENCY, false);
	case 'S':
		return mp3_measure_target(file, c->target, MP3_MEASURE_PAGES, c->charged);
	default:
		return mp3_unregister_target(file, c->target);
	}
}

static ssize_t mp3_status_write(struct file *file, const char __user *ubuf,
				size_t count, loff_t *ppos)
{
	char buf[MP3_STATUS_MAX_WRITE + 1];
	struct mp3_command c = {};
	int err;

	if (count > MP3_STATUS_MAX_WRITE)
		return -EINVAL;
	if (copy_from_user(buf, ubuf, count))
		return -EFAULT;
	buf[count] = '\0';

	err = mp3_parse_command(buf, count, &c);
	if (!err)
		err = mp3_run_command(file, &c);
	return err ? err : count;
}

static const struct proc_ops mp3_status_ops = {
	.proc_open = mp3_status_open,
	.proc_read = seq_read,
	.proc_lseek = seq_lseek,
	.proc_release = mp3_status_release,
	.proc_write = mp3_status_write,
};

int mp3_status_create(void)
{
	mp3_proc_dir = proc_mkdir(MP3_PROC_DIR, NULL);
	if (!mp3_proc_dir)
		return -ENOMEM;
	if (!proc_create(MP3_PROC_STATUS, MP3_STATUS_MODE, mp3_proc_dir, &mp3_status_ops)) {
		proc_remove(mp3_proc_dir);
		return -ENOMEM;
	}
	return 0;
}

void mp3_status_remove(void)
{
	/* Waits for readers and writers already inside. */
	proc_remove(mp3_proc_dir);
}
