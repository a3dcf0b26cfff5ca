/* SPDX-License-Identifier: GPL-2.0 */
/*
 * mp3: internal interfaces between the parts of the module.
 *
 * main.c     load/unload and the period_ms parameter
 * core.c     mp3_lock, and what takes it for several parts: registration
 * buffer.c   the vmalloc()ed buffer and sample publication
 * tasks.c    the list of registered processes and their fault/CPU counters
 * sampler.c  the periodic delayed work item
 * status.c   /proc/mp3/status
 * chardev.c  the character device: mmap, read and poll
 * compat.h   what differs between the kernel versions the module supports
 */
#ifndef MP3_INTERNAL_H
#define MP3_INTERNAL_H

#include <linux/mutex.h>
#include <linux/types.h>
#include <linux/mp3.h>

struct file;
struct mp3_task;
struct seq_file;

/* What one sampling period adds up to over all registered processes. */
struct mp3_sample_values {
	u64 minor_faults;
	u64 major_faults;
	u64 cpu_ns;
	u32 nr_procs;
};

/*
 * mp3_lock (core.c) protects the list of registered processes and their
 * counter snapshots (tasks.c), the sampler's running state (sampler.c) and
 * makes sample publication single-writer (buffer.c). Functions named
 * __mp3_* expect it held.
 */
extern struct mutex mp3_lock;

int mp3_register(const struct file *file, pid_t nr);
int mp3_unregister(const struct file *file, pid_t nr);
void mp3_show(struct seq_file *m);
void mp3_release_all(void);

int mp3_buffer_create(u64 period_ns, bool records);
void mp3_buffer_destroy(void);
/*
 * One process's record in the sample being gathered; tgid in the initial PID
 * namespace. Nothing when the module was loaded with records=N.
 */
void __mp3_buffer_record_counts(u32 tgid, const struct mp3_sample_values *delta);
void __mp3_buffer_record_comm(u32 tgid, const char *comm);
void __mp3_buffer_publish(const struct mp3_sample_values *values, u64 cost_ns);
u64 mp3_buffer_head(void);
int mp3_buffer_mmap(struct vm_area_struct *vma);

/* The process numbered @nr where @file's /proc is mounted, if its opener may read it. */
struct mp3_task *mp3_task_create(const struct file *file, pid_t nr);
void mp3_task_destroy(struct mp3_task *entry);
int __mp3_tasks_add(struct mp3_task *entry);
struct mp3_task *__mp3_tasks_unlink(const struct file *file, pid_t nr);
void __mp3_tasks_show(struct seq_file *m);
bool __mp3_tasks_collect(struct mp3_sample_values *values);
void __mp3_tasks_destroy_all(void);

void mp3_sampler_init(u64 period_ns);
void __mp3_sampler_start(void);
void mp3_sampler_stop_sync(void);

int mp3_status_create(void);
void mp3_status_remove(void);

int mp3_chardev_create(void);
void mp3_chardev_remove(void);
void mp3_chardev_notify(void);

#endif /* MP3_INTERNAL_H */
