// SPDX-License-Identifier: GPL-2.0
/*
 * The sampler: a delayed work item that runs while at least one process is
 * registered or a group followed; the probes are attached meanwhile. Tick k
 * of a run is due at epoch + k * period, an absolute deadline, so a period
 * that is not a whole number of jiffies (50 ms at HZ=250 is 12.5) still
 * averages exactly 1/period; re-arming with a relative, rounded delay would
 * drift (19.2 Hz at HZ=250).
 */
#include <linux/jiffies.h>
#include <linux/ktime.h>
#include <linux/workqueue.h>

#include "compat.h"
#include "internal.h"

struct mp3_sampler {
	struct delayed_work work;
	u64 period_ns;
	/* The fields below are protected by mp3_lock. */
	bool running;
	u64 epoch;		/* jiffies at the start of this run */
	u64 tick;		/* number of the next tick in this run */
};

static struct mp3_sampler mp3_sampler;

static u64 __mp3_sampler_deadline(void)
{
	return mp3_sampler.epoch + nsecs_to_jiffies64(mp3_sampler.tick * mp3_sampler.period_ns);
}

static void __mp3_sampler_arm(void)
{
	u64 now = get_jiffies_64();
	u64 deadline = __mp3_sampler_deadline();

	/* After a stall of over a second, start afresh instead of bursting. */
	if (time_after64(now, deadline + HZ)) {
		mp3_sampler.epoch = now;
		mp3_sampler.tick = 0;
		deadline = now;
	}
	queue_delayed_work(mp3_unbound_wq, &mp3_sampler.work,
			   time_after64(deadline, now) ? deadline - now : 0);
	mp3_sampler.tick++;
}

void __mp3_sampler_start(void)
{
	lockdep_assert_held(&mp3_lock);

	if (mp3_sampler.running)
		return;
	mp3_sampler.running = true;
	mp3_sampler.epoch = get_jiffies_64();
	mp3_sampler.tick = 1;
	__mp3_sampler_arm();
}

bool __mp3_sampler_running(void)
{
	lockdep_assert_held(&mp3_lock);

	return mp3_sampler.running;
}

/* What the parts lost since load, handed down to the ring's header. */
static struct mp3_losses __mp3_losses_since_load(void)
{
	struct mp3_losses losses = {
		.follow_skipped = mp3_tasks_skipped(),
		.follow_missed = mp3_tasks_missed(),
	};

	__mp3_measures_losses(&losses);
	return losses;
}

static void mp3_sampler_fn(struct work_struct *work)
{
	struct mp3_sample_values values = {};
	struct mp3_losses losses;
	bool published = false, registered;
	u64 start_ns;

	mutex_lock(&mp3_lock);
	__mp3_tasks_sample_begin();
	start_ns = ktime_get_ns();
	/* Before the visits: what a newcomer took until its counters is in its records. */
	__mp3_tasks_follow_measures();
	registered = __mp3_tasks_collect(&values);
	__mp3_measures_tick();
	/* Releasing a counter sleeps: not in the visits' RCU sections. */
	__mp3_measures_reap();
	if (registered) {
		__mp3_sampler_arm();
	} else {
		mp3_sampler.running = false;
		/* Nothing is followed: no wakeup, fork or exit needs to call us. */
		__mp3_follow_detach();
	}
	/*
	 * A sample every period while processes are registered or groups
	 * followed, busy or not; a process that exited or was unregistered in
	 * this period still gets its last sample.
	 */
	if (registered || values.nr_procs || __mp3_buffer_records_pending()) {
		losses = __mp3_losses_since_load();
		__mp3_buffer_publish(&values, &losses, ktime_get_ns() - start_ns);
		published = true;
	}
	__mp3_tasks_sample_end();
	mutex_unlock(&mp3_lock);

	if (published)
		mp3_buffer_wake_readers();
}

void mp3_sampler_init(u64 period_ns)
{
	INIT_DELAYED_WORK(&mp3_sampler.work, mp3_sampler_fn);
	mp3_sampler.period_ns = period_ns;
	mp3_sampler.running = false;
}

void mp3_sampler_stop_sync(void)
{
	/* Copes with the work re-arming itself while it is being cancelled. */
	cancel_delayed_work_sync(&mp3_sampler.work);
}
