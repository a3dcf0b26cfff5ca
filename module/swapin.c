// SPDX-License-Identifier: GPL-2.0
/*
 * The swap-ins of the traced processes' pages: return probes on the two
 * swap-in faults, do_swap_page() (anonymous: the slot is in the page table
 * entry) and shmem_fault() (the slot is the value shmem keeps in its page
 * cache for a page in swap). Each gives the faulting thread's process, the
 * virtual page, whether the fault counts as major (it read the page), and
 * the time the thread spent in it, its retried attempts added up
 * (retries.c). Kernel threads' swap-in faults (khugepaged's) are not the
 * process's and are left out.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/fs.h>
#include <linux/kprobes.h>
#include <linux/mm.h>
#include <linux/moduleparam.h>
#include <linux/ptrace.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>
#include <linux/string.h>
#include <linux/swap.h>
#include <linux/swapops.h>
#include <linux/xarray.h>

#include "compat.h"
#include "pages.h"

/* What a swap-in return probe notes at the fault's entry. */
struct mp3_swapin_start {
	u64 ns;
	unsigned long address;
	unsigned long slot;
	unsigned int flags;
	u32 mapping;
};

static void mp3_swapin_begin(struct mp3_swapin_start *start, const struct vm_fault *vmf,
			     swp_entry_t slot, u32 mapping)
{
	*start = (struct mp3_swapin_start){
		.slot = slot.val,
		.address = vmf->address & PAGE_MASK,
		.flags = vmf->flags,
		.mapping = mapping,
		.ns = mp3_fault_clock(),
	};
}

/* do_swap_page(vmf): the fault's page table entry holds the slot. 0: the return probe runs. */
static int mp3_anon_swapin_entered(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	struct vm_fault *vmf = (struct vm_fault *)regs_get_kernel_argument(regs, 0);
	swp_entry_t slot;

	if (!mp3_current_traced() || !mp3_pte_swap_entry(vmf->orig_pte, &slot))
		return 1;
	mp3_swapin_begin((struct mp3_swapin_start *)ri->data, vmf, slot, MP3_MAPPING_ANON);
	return 0;
}

/*
 * shmem_fault(vmf): a swap-in if shmem's page cache holds, at the page's
 * index, the value of the slot it went to instead of a folio (as
 * shmem_get_folio_gfp() finds it, under RCU).
 */
static int mp3_shmem_swapin_entered(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	struct vm_fault *vmf = (struct vm_fault *)regs_get_kernel_argument(regs, 0);
	void *entry;

	if (!mp3_current_traced())
		return 1;
	entry = xa_load(&file_inode(vmf->vma->vm_file)->i_mapping->i_pages, vmf->pgoff);
	if (!xa_is_value(entry))
		return 1;
	mp3_swapin_begin((struct mp3_swapin_start *)ri->data, vmf, radix_to_swp_entry(entry),
			 MP3_MAPPING_SHMEM);
	return 0;
}

/*
 * A swap-in fault of @trace's process returned @ret at @now. Major as the
 * kernel counts it (mm_account_fault()): read from swap, or retried.
 */
static void mp3_swapin_done(struct mp3_page_trace *trace, const struct pid *pid,
			    const struct mp3_swapin_start *start, vm_fault_t ret, u64 now)
{
	u64 ns = now > start->ns ? now - start->ns : 0;
	swp_entry_t slot = { .val = start->slot };
	bool read = (ret & VM_FAULT_MAJOR) || (start->flags & FAULT_FLAG_TRIED);
	struct mp3_swap_event e;

	if (ret & VM_FAULT_RETRY) {
		mp3_retries_hold(&trace->retries, start->address, ns, now);
		return;
	}
	ns += mp3_retries_take(&trace->retries, start->address);
	if (ret & VM_FAULT_ERROR)
		return;
	e = (struct mp3_swap_event){
		.type = MP3_RECORD_SWAP,
		.address = start->address,
		.offset = swp_offset(slot),
		.device = swp_type(slot),
		.event = MP3_SWAP_IN | (read ? MP3_SWAP_READ : 0),
		.mapping = start->mapping,
		.time_ns = now,
		.stall_ns = ns,
		.pages = 1,
	};
	mp3_swap_note(pid, &e);
}

static int mp3_swapin_returned(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	const struct mp3_swapin_start *start = (const struct mp3_swapin_start *)ri->data;
	u64 now = mp3_fault_clock();
	struct mp3_page_trace *trace;
	const struct pid *pid;

	/* Looked up again: the process may have been unregistered while the fault slept. */
	rcu_read_lock();
	pid = task_tgid(current);
	trace = mp3_trace_of(pid);
	if (trace)
		mp3_swapin_done(trace, pid, start, (__force vm_fault_t)regs_return_value(regs),
				now);
	rcu_read_unlock();
	return 0;
}

/* The swap-in faults' probes, registered and unregistered together; under mp3_lock. */
static struct kretprobe mp3_swapin_probes[] = {
	{ .entry_handler = mp3_anon_swapin_entered, .handler = mp3_swapin_returned,
	  .data_size = sizeof(struct mp3_swapin_start) },
	{ .entry_handler = mp3_shmem_swapin_entered, .handler = mp3_swapin_returned,
	  .data_size = sizeof(struct mp3_swapin_start) },
};

static const char *const mp3_swapin_symbols[] = { "do_swap_page", "shmem_fault" };
static_assert(ARRAY_SIZE(mp3_swapin_symbols) == ARRAY_SIZE(mp3_swapin_probes));
/* Under mp3_lock: each probe's nmissed already counted by __mp3_swapin_missed(). */
static u32 mp3_swapin_nmissed_folded[ARRAY_SIZE(mp3_swapin_probes)];

/* All or none, each registered as new: its nmissed from before was counted. */
int __mp3_swapin_arm(void)
{
	unsigned int i;
	int err;

	lockdep_assert_held(&mp3_lock);

	for (i = 0; i < ARRAY_SIZE(mp3_swapin_probes); i++) {
		struct kretprobe *rp = &mp3_swapin_probes[i];

		memset(&rp->kp, 0, sizeof(rp->kp));
		rp->kp.symbol_name = mp3_swapin_symbols[i];
		rp->nmissed = 0;
		rp->maxactive = mp3_pages_active;
		mp3_swapin_nmissed_folded[i] = 0;
		err = register_kretprobe(rp);
		if (err) {
			pr_warn_ratelimited("no probe on %s: %d\n", mp3_swapin_symbols[i], err);
			goto unregister;
		}
	}
	return 0;

unregister:
	while (i--)
		unregister_kretprobe(&mp3_swapin_probes[i]);
	return err;
}

void __mp3_swapin_disarm(void)
{
	lockdep_assert_held(&mp3_lock);

	for (unsigned int i = 0; i < ARRAY_SIZE(mp3_swapin_probes); i++)
		unregister_kretprobe(&mp3_swapin_probes[i]);
}

u64 __mp3_swapin_missed(void)
{
	u64 missed = 0;

	lockdep_assert_held(&mp3_lock);

	for (unsigned int i = 0; i < ARRAY_SIZE(mp3_swapin_probes); i++) {
		u32 nmissed = (u32)READ_ONCE(mp3_swapin_probes[i].nmissed);

		missed += (u32)(nmissed - mp3_swapin_nmissed_folded[i]);
		mp3_swapin_nmissed_folded[i] = nmissed;
	}
	return missed;
}
