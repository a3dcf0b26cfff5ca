// SPDX-License-Identifier: GPL-2.0
/*
 * A fault that returns VM_FAULT_RETRY has dropped its lock to wait (for a
 * page lock, for I/O, or to fall back from the VMA lock to the mmap lock)
 * and is handled again: its time is in the attempts before the last. The
 * time of a thread's attempts that retried is held here, per process, and
 * taken by its next attempt at the same address (latency.c, pages.c).
 */
#include <linux/sched.h>
#include <linux/spinlock.h>
#include <linux/timekeeping.h>

#include "internal.h"

/*
 * The clock of the probes' handlers: an entry handler may run in the int3
 * handler, which is as an NMI (a kernel without ftrace, where a probe is a
 * breakpoint), where ktime_get()'s seqcount may not be read. The fast
 * clock's readings may step back by a little across CPUs: a duration is
 * never negative.
 */
u64 mp3_fault_clock(void)
{
	return ktime_get_mono_fast_ns();
}

void mp3_retries_init(struct mp3_retries *r)
{
	raw_spin_lock_init(&r->lock);
}

static bool mp3_retry_is_current(const struct mp3_retry *r)
{
	return r->task == current && r->pid == current->pid;
}

void mp3_retries_hold(struct mp3_retries *r, unsigned long address, u64 ns, u64 now)
{
	struct mp3_retry *slot = NULL;
	unsigned long flags;

	raw_spin_lock_irqsave(&r->lock, flags);
	for (int i = 0; i < MP3_RETRIES_HELD; i++) {
		struct mp3_retry *h = &r->held[i];

		if (mp3_retry_is_current(h)) {
			/* Retried again: the same fault, or one given up (a fatal signal). */
			h->ns = h->address == address ? h->ns + ns : ns;
			h->address = address;
			h->held_at = now;
			goto unlock;
		}
		if (!slot || (slot->task && (!h->task || h->held_at < slot->held_at)))
			slot = h;
	}
	if (!slot->task)
		WRITE_ONCE(r->nr, r->nr + 1);
	*slot = (struct mp3_retry){ .task = current, .pid = current->pid, .address = address,
				    .ns = ns, .held_at = now };
unlock:
	raw_spin_unlock_irqrestore(&r->lock, flags);
}

u64 mp3_retries_take(struct mp3_retries *r, unsigned long address)
{
	unsigned long flags;
	u64 ns = 0;

	if (!READ_ONCE(r->nr))
		return 0;
	raw_spin_lock_irqsave(&r->lock, flags);
	for (int i = 0; i < MP3_RETRIES_HELD; i++) {
		struct mp3_retry *h = &r->held[i];

		if (!mp3_retry_is_current(h))
			continue;
		/* Another address: the attempt held was given up (a fatal signal). */
		if (h->address == address)
			ns = h->ns;
		h->task = NULL;
		WRITE_ONCE(r->nr, r->nr - 1);
		break;
	}
	raw_spin_unlock_irqrestore(&r->lock, flags);
	return ns;
}
