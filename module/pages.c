// SPDX-License-Identifier: GPL-2.0
/*
 * The "pages" measure (struct mp3_measure): which pages of the processes
 * that have it go to swap and come back (MP3_RECORD_SWAP), anonymous and
 * shared memory (shmem: tmpfs, memfd, SysV, shared anonymous mappings),
 * and which pages of files they read again (MP3_RECORD_REFAULT). While
 * any process or group has it, the hooks of swapout.c (a probe where
 * reclaim unmaps a page, the tracepoint mm_vmscan_write_folio), of
 * swapin.c (return probes on the two swap-in faults) and of refaults.c (a
 * probe where the page cache takes in a page again) are armed. They note
 * events in per-CPU buffers (swapnotes.c), which each tick takes whole
 * into records of the processes still traced.
 */
#include <linux/atomic.h>
#include <linux/lockdep.h>
#include <linux/slab.h>
#include <linux/tracepoint.h>

#include "pages.h"

/* Processes hashed with a trace, and groups with pages: the hooks stay armed. */
static atomic_t mp3_traced;
/* Under mp3_lock: whether the hooks are registered; what was dropped since load. */
static bool mp3_pages_armed;
/* Disarmed and taken since: the buffers stay empty until the hooks are armed again. */
static bool mp3_swap_drained;
static u64 mp3_swap_dropped;

/*
 * Reclaim's pages and every swap-in fault pass the hooks: for
 * administrators only. A swap-out's process is its memory map's owner,
 * which only a kernel with memory cgroups knows.
 */
static int mp3_pages_allowed(const struct file *file)
{
	if (!IS_ENABLED(CONFIG_MEMCG))
		return -EOPNOTSUPP;
	return mp3_file_privileged(file) ? 0 : -EPERM;
}

static void *mp3_pages_attach(const struct mp3_measured *m, gfp_t gfp)
{
	struct mp3_page_trace *trace = kzalloc(sizeof(*trace), gfp);

	if (trace)
		mp3_retries_init(&trace->retries);
	return trace;
}

/* Once unhashed, and no hook can be looking at it: after a grace period. */
static void mp3_pages_release(void *state)
{
	kfree(state);
}

static void mp3_pages_get(void)
{
	atomic_inc(&mp3_traced);
}

static void mp3_pages_put(void)
{
	atomic_dec(&mp3_traced);
}

/* Armed, the eviction probe follows the "charged" cgroups (refaults.c). */
static int __mp3_pages_follow_evictions(void)
{
	return mp3_pages_armed ? __mp3_refaults_follow_evictions() : 0;
}

/*
 * A followed group has pages: with "charged", the pages charged to a
 * cgroup are its own where no process is theirs: its shmem written out
 * while none of its processes maps it (swapout.c), its file pages evicted
 * (refaults.c). Under mp3_lock.
 */
static int mp3_pages_group_get(const struct mp3_group_view *g)
{
	int err;

	if (g->charged) {
		err = __mp3_swap_cgroup_add(g);
		if (err)
			return err;
		err = __mp3_pages_follow_evictions();
		if (err) {
			__mp3_swap_cgroup_remove(g);
			return err;
		}
	}
	mp3_pages_get();
	return 0;
}

static void mp3_pages_group_put(const struct mp3_group_view *g)
{
	if (g->charged) {
		__mp3_swap_cgroup_remove(g);
		/* With a cgroup fewer, it can only unregister, which cannot fail. */
		WARN_ON_ONCE(__mp3_pages_follow_evictions());
	}
	mp3_pages_put();
}

/* @m's process is traced from now on, until unhashed. Under mp3_hash_lock, from the probes too. */
static void mp3_pages_hashed(void *state, const struct mp3_measured *m)
{
	struct mp3_page_trace *trace = state;

	trace->pid = m->pid;
	trace->tag = m->tag;
	mp3_swap_trace_hash(trace);
	mp3_pages_get();
}

static void mp3_pages_unhashed(void *state)
{
	mp3_swap_trace_unhash(state);
	mp3_pages_put();
}

/* The hooks, all or none: a kernel without one says which (ENOENT and the log). */
static int __mp3_pages_arm(void)
{
	int err;

	lockdep_assert_held(&mp3_lock);

	if (mp3_pages_armed)
		return 0;
	err = __mp3_swap_notes_alloc();
	if (err)
		return err;
	err = __mp3_swapout_arm();
	if (err)
		return err;
	err = __mp3_swapin_arm();
	if (err)
		goto swapout;
	err = __mp3_refaults_arm();
	if (err)
		goto swapin;
	mp3_pages_armed = true;
	mp3_swap_drained = false;
	return 0;

swapin:
	__mp3_swapin_disarm();
swapout:
	__mp3_swapout_disarm();
	return err;
}

/* Disarms the hooks; waits until none runs. */
static void __mp3_pages_disarm(void)
{
	__mp3_swapout_disarm();
	__mp3_swapin_disarm();
	__mp3_refaults_disarm();
	tracepoint_synchronize_unregister();
	mp3_swap_dropped += __mp3_swapin_missed() + __mp3_refaults_missed();
	mp3_pages_armed = false;
}

/*
 * Disarms the hooks once nothing is traced, and arms them again if
 * something is while they are not: a process forked from a traced one
 * joins without mp3_lock, and may have taken its reference while a disarm
 * was waiting.
 */
static void __mp3_pages_reconcile(void)
{
	bool traced = atomic_read(&mp3_traced);

	lockdep_assert_held(&mp3_lock);

	if (mp3_pages_armed && !traced)
		__mp3_pages_disarm();
	else if (!mp3_pages_armed && traced)
		__mp3_pages_arm();
}

/* Each tick, after the visits: the events noted since the last. */
static void __mp3_pages_tick(void)
{
	lockdep_assert_held(&mp3_lock);

	/* Disarmed and emptied: no lock of every CPU taken at each tick for nothing. */
	if (mp3_swap_drained)
		return;
	__mp3_swap_notes_write(&mp3_swap_dropped);
	/* A disarm waited for every hook: nothing is noted after this pass. */
	mp3_swap_drained = !mp3_pages_armed;
}

static void __mp3_pages_losses(struct mp3_losses *losses)
{
	lockdep_assert_held(&mp3_lock);

	if (mp3_pages_armed)
		mp3_swap_dropped += __mp3_swapin_missed() + __mp3_refaults_missed();
	losses->swap_dropped = mp3_swap_dropped + mp3_swapout_lost();
}

static void __mp3_pages_stop(void)
{
	lockdep_assert_held(&mp3_lock);

	if (mp3_pages_armed)
		__mp3_pages_disarm();
	mp3_swap_notes_free();
	mp3_swapout_free();
}

const struct mp3_measure mp3_pages_measure = {
	.allowed = mp3_pages_allowed,
	.__arm = __mp3_pages_arm,
	.attach = mp3_pages_attach,
	.hashed = mp3_pages_hashed,
	.unhashed = mp3_pages_unhashed,
	.release = mp3_pages_release,
	.group_get = mp3_pages_group_get,
	.group_put = mp3_pages_group_put,
	.__tick = __mp3_pages_tick,
	.__reap = __mp3_pages_reconcile,
	.__losses = __mp3_pages_losses,
	.__stop = __mp3_pages_stop,
};
