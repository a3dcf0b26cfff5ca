// SPDX-License-Identifier: GPL-2.0
/*
 * The character device (major 423, minor 0): mmap() of the sample buffer,
 * and read()/poll() to wait for new samples. The cdev's owner keeps the
 * module loaded while the device is open or mapped.
 */
#include <linux/cdev.h>
#include <linux/device.h>
#include <linux/fs.h>
#include <linux/module.h>
#include <linux/poll.h>
#include <linux/slab.h>
#include <linux/uaccess.h>

#include "compat.h"
#include "internal.h"

/* Per open file: the head it last read, 0 before its first read(). */
struct mp3_reader {
	u64 seen_head;
};

static struct cdev mp3_cdev;
static struct class *mp3_class;

static int mp3_open(struct inode *inode, struct file *file)
{
	struct mp3_reader *reader;

	reader = kzalloc(sizeof(*reader), GFP_KERNEL);
	if (!reader)
		return -ENOMEM;
	file->private_data = reader;
	return 0;
}

static int mp3_release(struct inode *inode, struct file *file)
{
	kfree(file->private_data);
	return 0;
}

static bool mp3_reader_behind(struct mp3_reader *reader, u64 *head)
{
	*head = mp3_buffer_head();
	return *head != READ_ONCE(reader->seen_head);
}

/*
 * Concurrent read()s of one file may both return the same head; each
 * reader still sees every sample through the ring itself.
 */
static ssize_t mp3_read(struct file *file, char __user *buf, size_t count,
			loff_t *ppos)
{
	struct mp3_reader *reader = file->private_data;
	u64 head;
	int err;

	if (count < sizeof(head))
		return -EINVAL;
	if (file->f_flags & O_NONBLOCK) {
		if (!mp3_reader_behind(reader, &head))
			return -EAGAIN;
	} else {
		err = wait_event_interruptible(*mp3_buffer_readers(),
					       mp3_reader_behind(reader, &head));
		if (err)
			return err;
	}
	if (copy_to_user(buf, &head, sizeof(head)))
		return -EFAULT;
	WRITE_ONCE(reader->seen_head, head);
	return sizeof(head);
}

static __poll_t mp3_poll(struct file *file, poll_table *wait)
{
	struct mp3_reader *reader = file->private_data;
	u64 head;

	poll_wait(file, mp3_buffer_readers(), wait);
	return mp3_reader_behind(reader, &head) ? EPOLLIN | EPOLLRDNORM : 0;
}

static int mp3_mmap(struct file *file, struct vm_area_struct *vma)
{
	return mp3_buffer_mmap(vma);
}

static const struct file_operations mp3_fops = {
	.owner = THIS_MODULE,
	.open = mp3_open,
	.release = mp3_release,
	.read = mp3_read,
	.poll = mp3_poll,
	.mmap = mp3_mmap,
	.llseek = noop_llseek,
};

int mp3_chardev_create(void)
{
	dev_t devt = MKDEV(MP3_CHRDEV_MAJOR, MP3_CHRDEV_MINOR);
	struct device *dev;
	int err;

	err = register_chrdev_region(devt, 1, MP3_DEVICE_NAME);
	if (err)
		return err;

	cdev_init(&mp3_cdev, &mp3_fops);
	mp3_cdev.owner = THIS_MODULE;
	err = cdev_add(&mp3_cdev, devt, 1);
	if (err)
		goto unregister_region;

	mp3_class = mp3_class_create(MP3_DEVICE_NAME);
	if (IS_ERR(mp3_class)) {
		err = PTR_ERR(mp3_class);
		goto del_cdev;
	}
	/* The class device is what udev and devtmpfs see. */
	dev = device_create(mp3_class, NULL, devt, NULL, MP3_DEVICE_NAME);
	if (IS_ERR(dev)) {
		err = PTR_ERR(dev);
		goto destroy_class;
	}
	return 0;

destroy_class:
	class_destroy(mp3_class);
del_cdev:
	cdev_del(&mp3_cdev);
unregister_region:
	unregister_chrdev_region(devt, 1);
	return err;
}

void mp3_chardev_remove(void)
{
	dev_t devt = MKDEV(MP3_CHRDEV_MAJOR, MP3_CHRDEV_MINOR);

	device_destroy(mp3_class, devt);
	class_destroy(mp3_class);
	cdev_del(&mp3_cdev);
	unregister_chrdev_region(devt, 1);
}
