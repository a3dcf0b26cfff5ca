// SPDX-License-Identifier: GPL-2.0
/*
 * mp3: sums the page faults and CPU time of registered processes every
 * sampling period and shares the samples with user space through a mapped
 * buffer. See include/uapi/linux/mp3.h for the interface.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/init.h>
#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/string.h>
#include <linux/sysfs.h>
#include <linux/time64.h>

#include "internal.h"

#define MP3_PERIOD_MS_MIN	1
#define MP3_PERIOD_MS_MAX	10000

static unsigned int period_ms = 50;

/* A decimal parameter from @min to @max; -EINVAL outside, the load refused. */
static int mp3_param_set_within(const char *val, const struct kernel_param *kp,
				unsigned int min, unsigned int max)
{
	unsigned int n;
	int err;

	err = kstrtouint(val, 10, &n);
	if (err)
		return err;
	if (n < min || n > max)
		return -EINVAL;
	*(unsigned int *)kp->arg = n;
	return 0;
}

static int period_ms_set(const char *val, const struct kernel_param *kp)
{
	return mp3_param_set_within(val, kp, MP3_PERIOD_MS_MIN, MP3_PERIOD_MS_MAX);
}

static const struct kernel_param_ops period_ms_ops = {
	.set = period_ms_set,
	.get = param_get_uint,
};

module_param_cb(period_ms, &period_ms_ops, &period_ms, 0444);
MODULE_PARM_DESC(period_ms, "Sampling period in milliseconds, 1..10000 (default 50)");

static bool records = true;
module_param(records, bool, 0444);
MODULE_PARM_DESC(records,
		 "Write one record per registered process and sample (default on); off: the summed samples only, for the least cost per process");

static unsigned int records_per_user = 1024;

static int records_per_user_set(const char *val, const struct kernel_param *kp)
{
	return mp3_param_set_within(val, kp, 1, MP3_USERS_RECORDS);
}

static const struct kernel_param_ops records_per_user_ops = {
	.set = records_per_user_set,
	.get = param_get_uint,
};

module_param_cb(records_per_user, &records_per_user_ops, &records_per_user, 0444);
MODULE_PARM_DESC(records_per_user,
		 "Records that the registrations of one user without CAP_SYS_PTRACE write in one sample, at most, 1..4096 (default 1024); users together write at most 4096, administrators' are not bounded");

/* Indexed by whether samples visit only the processes that may have changed. */
static const char *const mp3_sampler_names[] = { "visit", "events" };

/* What the sampler visits: asked for at load, then what runs (mp3_event_sampling). */
static bool sampler_events = true;

static int sampler_set(const char *val, const struct kernel_param *kp)
{
	int i = sysfs_match_string(mp3_sampler_names, val);

	if (i < 0)
		return i;
	*(bool *)kp->arg = i;
	return 0;
}

static int sampler_get(char *buffer, const struct kernel_param *kp)
{
	return sysfs_emit(buffer, "%s\n", mp3_sampler_names[*(bool *)kp->arg]);
}

static const struct kernel_param_ops sampler_ops = {
	.set = sampler_set,
	.get = sampler_get,
};

module_param_cb(sampler, &sampler_ops, &sampler_events, 0444);
MODULE_PARM_DESC(sampler,
		 "events (default): each sample visits the processes whose threads were woken or runnable since the last; visit: every registered process, every sample (also when this kernel lacks the wakeup tracepoints)");

static int __init mp3_init(void)
{
	u64 period_ns = (u64)period_ms * NSEC_PER_MSEC;
	int err;

	/*
	 * The probes run where preemption is off (the wakeup tracepoints under
	 * the runqueue lock) and take spinlock_t and task_lock() and allocate
	 * with GFP_ATOMIC there: all of which sleep on PREEMPT_RT. And the
	 * faults' handler, with interrupts off, releases an mmap lock it
	 * tried: PREEMPT_RT's last reader to leave wakes a waiting writer
	 * under raw_spin_lock_irq(), which turns interrupts on.
	 */
	if (IS_ENABLED(CONFIG_PREEMPT_RT)) {
		pr_err("not loaded: PREEMPT_RT kernels are not supported (its probes would sleep where preemption is off)\n");
		return -EOPNOTSUPP;
	}

	/* First: which sampler runs decides what the buffer's header says. */
	err = mp3_follow_init(&sampler_events);
	if (err)
		return err;
	mp3_event_sampling = sampler_events;

	err = mp3_buffer_create(period_ns, records, sampler_events, records_per_user);
	if (err)
		return err;
	mp3_sampler_init(period_ns);

	err = mp3_chardev_create();
	if (err)
		goto destroy_buffer;

	/* Last: a registration starts the sampler, which needs all the rest. */
	err = mp3_status_create();
	if (err)
		goto remove_chardev;

	pr_info("loaded, sampling every %u ms, %s%s\n", period_ms,
		sampler_events ? "the processes that ran" : "every process",
		records ? "" : ", without per-process records");
	return 0;

remove_chardev:
	mp3_chardev_remove();
destroy_buffer:
	mp3_buffer_destroy();
	return err;
}

static void __exit mp3_exit(void)
{
	/* User-visible interfaces first, so nothing new can start... */
	mp3_status_remove();
	mp3_chardev_remove();
	/* ...then the probes, so that no entry is added or looked at... */
	mp3_follow_stop();
	/* ...then the sampler, which may still re-arm itself until cancelled. */
	mp3_sampler_stop_sync();
	mp3_release_all();
	mp3_faults_destroy();
	mp3_buffer_destroy();
	pr_info("unloaded\n");
}

module_init(mp3_init);
module_exit(mp3_exit);

MODULE_LICENSE("GPL");
MODULE_AUTHOR("pfprof developers");
MODULE_DESCRIPTION("Page-fault and CPU-time profiler with a shared sample buffer");
