// SPDX-License-Identifier: GPL-2.0
/*
 * The "latency" measure (struct mp3_measure): how long the faults of the
 * processes that have it take. A kernel return probe on handle_mm_fault(),
 * armed while any process or group has latency. Its entry handler lets a
 * fault pass (no return probe) unless its process has latency, one lookup
 * in the hash of the timed processes kept here (the measure's hooks hash
 * and unhash each process's times: this file calls nothing above it); for
 * those, the time from entry to return goes into the process's log2
 * histogram (struct mp3_fault_times), which each visit takes whole into
 * MP3_RECORD_LATENCY records.
 *
 * A fault that returns VM_FAULT_RETRY has dropped its lock to wait (for a
 * page lock, for I/O, or to fall back from the VMA lock to the mmap lock)
 * and is handled again: the kernel counts it once, at the last attempt,
 * major if that one was retried or read from storage (mm_account_fault()).
 * The time of the attempts that retried is held for the thread meanwhile
 * (retries.c) and added to that last attempt's.
 */
#include <linux/atomic.h>
#include <linux/hashtable.h>
#include <linux/kprobes.h>
#include <linux/ktime.h>
#include <linux/log2.h>
#include <linux/mm.h>
#include <linux/moduleparam.h>
#include <linux/ptrace.h>
#include <linux/rcupdate.h>
#include <linux/pid.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/spinlock.h>

#include "internal.h"

struct mp3_fault_times {
	/* In mp3_timed_hash while attached, under mp3_timed_lock; read under RCU. */
	struct hlist_node node;
	struct pid *pid;		/* its process's, held by its entry */
	bool maps;			/* its faults are placed too: a time joins its fault */
	/* Taken and zeroed by the sample (atomic exchanges); [major][bucket]. */
	atomic64_t faults[2][MP3_LATENCY_BUCKETS];
	atomic64_t ns[2][MP3_LATENCY_BUCKETS];
	struct mp3_retries retries;
};

/* What the entry handler notes for the return handler. */
struct mp3_fault_start {
	u64 ns;
	unsigned long address;
	unsigned int flags;
};

/*
 * Faults handled at once by threads with latency, at most: each holds an
 * instance of the probe until its handler returns, a major fault for as
 * long as it waits. Beyond, a fault is not timed (latency_missed).
 */
static unsigned int latency_active = 1024;
module_param(latency_active, uint, 0444);
MODULE_PARM_DESC(latency_active,
		 "Faults of processes with latency timed at once, at most (default 1024)");

/* Processes hashed with times, and groups with latency: the probe stays armed. */
static atomic_t mp3_timed;
/*
 * The attached times by their process's struct pid, which the probe looks
 * up at every fault while armed (1024 buckets: the timed processes are few).
 */
static DEFINE_HASHTABLE(mp3_timed_hash, 10);
/*
 * Protects mp3_timed_hash's changes (readers: RCU). Taken from the probes
 * that hash a forked process: never held across anything that sleeps;
 * nests inside mp3_hash_lock.
 */
static DEFINE_SPINLOCK(mp3_timed_lock);
/* Whether mp3_fault_probe is registered; under mp3_lock. */
static bool mp3_latency_armed;
/*
 * Faults the probe could not time, since load; under mp3_lock. Folded
 * from the probe's nmissed at each sample and disarm: nmissed is an int,
 * which a probe kept full wraps in hours, and starts again at each arm.
 */
static u64 mp3_latency_missed;
/* The probe's nmissed at the last fold; under mp3_lock. */
static u32 mp3_latency_nmissed_folded;

/*
 * The times of @task's process, NULL if it has no latency; *@maps: whether
 * its faults are placed too. Under rcu_read_lock().
 */
static struct mp3_fault_times *mp3_fault_times_of(struct task_struct *task, bool *maps)
{
	struct pid *pid = task_tgid(task);
	struct mp3_fault_times *times;

	/* hash_add_rcu() published each with its fields set and its times zeroed. */
	hash_for_each_possible_rcu(mp3_timed_hash, times, node, (unsigned long)pid) {
		if (times->pid == pid) {
			*maps = READ_ONCE(times->maps);
			return times;
		}
	}
	return NULL;
}

static int mp3_fault_entered(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	struct mp3_fault_start *start = (struct mp3_fault_start *)ri->data;
	bool timed, maps;

	rcu_read_lock();
	timed = mp3_fault_times_of(current, &maps);
	rcu_read_unlock();
	if (!timed)
		return 1;	/* no return probe */
	/* handle_mm_fault(vma, address, flags, regs) */
	start->address = regs_get_kernel_argument(regs, 1);
	start->flags = regs_get_kernel_argument(regs, 2);
	start->ns = mp3_fault_clock();
	return 0;
}

/* The bucket of a fault that took @ns: see MP3_LATENCY_SHIFT in mp3.h. */
static unsigned int mp3_latency_bucket(u64 ns)
{
	return min_t(unsigned int, fls64(ns >> MP3_LATENCY_SHIFT), MP3_LATENCY_BUCKETS - 1);
}

/* @maps: the process's faults are placed, and this one gets its time there too. */
static void mp3_fault_time(struct mp3_fault_times *times, bool maps,
			   const struct mp3_fault_start *start, vm_fault_t ret, u64 now)
{
	u64 ns = now > start->ns ? now - start->ns : 0;
	unsigned int bucket;
	bool major;

	if (ret & VM_FAULT_RETRY) {
		mp3_retries_hold(&times->retries, start->address, ns, now);
		return;
	}
	ns += mp3_retries_take(&times->retries, start->address);
	/* Not counted as a fault (mm_account_fault()). */
	if (ret & VM_FAULT_ERROR)
		return;
	major = (ret & VM_FAULT_MAJOR) || (start->flags & FAULT_FLAG_TRIED);
	bucket = mp3_latency_bucket(ns);
	atomic64_add(ns, &times->ns[major][bucket]);
	atomic64_inc(&times->faults[major][bucket]);
	/* The perf event has just noted it in its CPU's buffer. */
	if (maps)
		mp3_fault_note_time(start->address, ns);
}

static int mp3_fault_returned(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	const struct mp3_fault_start *start = (const struct mp3_fault_start *)ri->data;
	u64 now = mp3_fault_clock();
	struct mp3_fault_times *times;
	bool maps;

	/* Looked up again: the process may have been unregistered while the fault slept. */
	rcu_read_lock();
	times = mp3_fault_times_of(current, &maps);
	if (times)
		mp3_fault_time(times, maps, start,
			       (__force vm_fault_t)regs_return_value(regs), now);
	rcu_read_unlock();
	return 0;
}

static struct kretprobe mp3_fault_probe = {
	.entry_handler = mp3_fault_entered,
	.handler = mp3_fault_returned,
	.data_size = sizeof(struct mp3_fault_start),
};

/* Timing faults passes every fault of the machine through a probe: for administrators only. */
static int mp3_latency_allowed(const struct file *file)
{
	return mp3_file_privileged(file) ? 0 : -EPERM;
}

static void *mp3_latency_attach(const struct mp3_measured *m, gfp_t gfp)
{
	struct mp3_fault_times *times = kzalloc(sizeof(*times), gfp);

	if (times)
		mp3_retries_init(&times->retries);
	return times;
}

/* Once unhashed, and no probe can be looking at it: after a grace period. */
static void mp3_latency_release(void *state)
{
	kfree(state);
}

static void mp3_latency_get(void)
{
	atomic_inc(&mp3_timed);
}

static void mp3_latency_put(void)
{
	atomic_dec(&mp3_timed);
}

static int mp3_latency_group_get(const struct mp3_group_view *g)
{
	mp3_latency_get();
	return 0;
}

static void mp3_latency_group_put(const struct mp3_group_view *g)
{
	mp3_latency_put();
}

/*
 * The faults of @m's process are timed into @state from now on (placed
 * too, with maps), until unhashed; each holds the probe armed. Under
 * mp3_hash_lock, from the probes too.
 */
static void mp3_latency_hashed(void *state, const struct mp3_measured *m)
{
	struct mp3_fault_times *times = state;

	times->pid = m->pid;
	times->maps = m->measures & MP3_MEASURE(MP3_MEASURE_MAPS);
	spin_lock(&mp3_timed_lock);
	hash_add_rcu(mp3_timed_hash, &times->node, (unsigned long)times->pid);
	spin_unlock(&mp3_timed_lock);
	mp3_latency_get();
}

static void mp3_latency_unhashed(void *state)
{
	struct mp3_fault_times *times = state;

	spin_lock(&mp3_timed_lock);
	hash_del_rcu(&times->node);
	spin_unlock(&mp3_timed_lock);
	mp3_latency_put();
}

/* Given maps ("M"), its faults are placed from now on: each time joins its fault. */
static void __mp3_latency_changed(void *state, const struct mp3_measured *m)
{
	struct mp3_fault_times *times = state;

	if (m->measures & MP3_MEASURE(MP3_MEASURE_MAPS))
		WRITE_ONCE(times->maps, true);
}

static int __mp3_latency_arm(void)
{
	int err;

	lockdep_assert_held(&mp3_lock);

	if (mp3_latency_armed)
		return 0;
	/* Registered again, the probe starts as new: nmissed was folded. */
	memset(&mp3_fault_probe.kp, 0, sizeof(mp3_fault_probe.kp));
	mp3_fault_probe.kp.symbol_name = "handle_mm_fault";
	mp3_fault_probe.nmissed = 0;
	mp3_latency_nmissed_folded = 0;
	mp3_fault_probe.maxactive = latency_active;
	err = register_kretprobe(&mp3_fault_probe);
	if (err) {
		/* The sampler tries again each tick if a fork raced a disarm. */
		pr_warn_ratelimited("no probe on handle_mm_fault: %d\n", err);
		return err;
	}
	mp3_latency_armed = true;
	return 0;
}

static void __mp3_latency_fold_missed(void)
{
	u32 nmissed = (u32)READ_ONCE(mp3_fault_probe.nmissed);

	mp3_latency_missed += (u32)(nmissed - mp3_latency_nmissed_folded);
	mp3_latency_nmissed_folded = nmissed;
}

/* Disarms the probe; waits until no handler runs. */
static void __mp3_latency_disarm(void)
{
	unregister_kretprobe(&mp3_fault_probe);
	__mp3_latency_fold_missed();
	mp3_latency_armed = false;
}

/*
 * Disarms the probe once nothing is timed, and arms it again if something
 * is while it is not: a process forked from a timed one joins without
 * mp3_lock, and may have taken its reference while a disarm was waiting.
 */
static void __mp3_latency_reconcile(void)
{
	bool timed = atomic_read(&mp3_timed);

	lockdep_assert_held(&mp3_lock);

	if (mp3_latency_armed && !timed)
		__mp3_latency_disarm();
	else if (!mp3_latency_armed && timed)
		__mp3_latency_arm();
}

static void __mp3_latency_stop(void)
{
	lockdep_assert_held(&mp3_lock);

	if (mp3_latency_armed)
		__mp3_latency_disarm();
}

static void __mp3_latency_losses(struct mp3_losses *losses)
{
	lockdep_assert_held(&mp3_lock);

	if (mp3_latency_armed)
		__mp3_latency_fold_missed();
	losses->latency_missed = mp3_latency_missed;
}

/* Each visit of a process with times: what its faults took, as records. */
static void __mp3_latency_visit(void *state, const struct mp3_measured *m)
{
	struct mp3_fault_times *times = state;

	lockdep_assert_held(&mp3_lock);

	for (int major = 0; major < 2; major++) {
		for (int b = 0; b < MP3_LATENCY_BUCKETS; b++) {
			u64 faults;

			/* Most buckets are empty: an exchange only for those that are not. */
			if (!atomic64_read(&times->faults[major][b]))
				continue;
			faults = atomic64_xchg(&times->faults[major][b], 0);
			__mp3_buffer_record_latency(pid_nr(m->pid), &m->tag, major, b, faults,
						    atomic64_xchg(&times->ns[major][b], 0));
		}
	}
}

const struct mp3_measure mp3_latency_measure = {
	.allowed = mp3_latency_allowed,
	.__arm = __mp3_latency_arm,
	.attach = mp3_latency_attach,
	.hashed = mp3_latency_hashed,
	.unhashed = mp3_latency_unhashed,
	.__changed = __mp3_latency_changed,
	.__visit = __mp3_latency_visit,
	.release = mp3_latency_release,
	.group_get = mp3_latency_group_get,
	.group_put = mp3_latency_group_put,
	.__reap = __mp3_latency_reconcile,
	.__losses = __mp3_latency_losses,
	.__stop = __mp3_latency_stop,
};
