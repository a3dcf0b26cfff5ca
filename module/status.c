// SPDX-License-Identifier: GPL-2.0
/*
 * /proc/mp3/status: "R <pid>" registers, "U <pid>" unregisters, reading
 * lists the registered PIDs. One command per write(), all or nothing.
 */
#include <linux/ctype.h>
#include <linux/kernel.h>
#include <linux/proc_fs.h>
#include <linux/seq_file.h>
#include <linux/string.h>
#include <linux/uaccess.h>

#include "internal.h"

/*
 * World-writable on purpose, as the MP3 interface specifies: every command
 * is checked against the right of whoever opened the file to read the
 * target process (mp3_may_read() in tasks.c).
 */
#define MP3_STATUS_MODE 0666

static struct proc_dir_entry *mp3_proc_dir;

static int mp3_status_show(struct seq_file *m, void *v)
{
	mp3_show(m);
	return 0;
}

static int mp3_status_open(struct inode *inode, struct file *file)
{
	return single_open(file, mp3_status_show, NULL);
}

/* Parses "<R|U> <decimal pid>" with optional white space around it. */
static int mp3_parse_command(char *buf, size_t len, char *cmd, pid_t *nr)
{
	char *arg;
	int val;

	if (strlen(buf) != len)
		return -EINVAL;		/* embedded NUL */
	buf = strim(buf);
	if ((buf[0] != 'R' && buf[0] != 'U') || !isspace(buf[1]))
		return -EINVAL;
	arg = skip_spaces(buf + 1);
	if (!isdigit(*arg))
		return -EINVAL;		/* kstrtoint() would accept a sign */
	if (kstrtoint(arg, 10, &val) || val <= 0)
		return -EINVAL;
	*cmd = buf[0];
	*nr = val;
	return 0;
}

static ssize_t mp3_status_write(struct file *file, const char __user *ubuf,
				size_t count, loff_t *ppos)
{
	char buf[MP3_STATUS_MAX_WRITE + 1];
	char cmd;
	pid_t nr;
	int err;

	if (count > MP3_STATUS_MAX_WRITE)
		return -EINVAL;
	if (copy_from_user(buf, ubuf, count))
		return -EFAULT;
	buf[count] = '\0';

	err = mp3_parse_command(buf, count, &cmd, &nr);
	if (err)
		return err;
	err = cmd == 'R' ? mp3_register(file, nr) : mp3_unregister(file, nr);
	return err ? err : count;
}

static const struct proc_ops mp3_status_ops = {
	.proc_open = mp3_status_open,
	.proc_read = seq_read,
	.proc_lseek = seq_lseek,
	.proc_release = single_release,
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
