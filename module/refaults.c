// SPDX-License-Identifier: GPL-2.0
/*
 * The file pages the traced processes read again after reclaim dropped
 * them from the page cache: a return probe on filemap_add_folio(), where
 * the page cache takes in a file's page, in the context of the thread that
 * reads it (a fault, read(2), or the readahead either started). A page is
 * read again when reclaim left a shadow in its place: the kernel then calls
 * workingset_refault() and counts it (workingset_refault_file), once the
 * page is in. Noted at the return, if it went in: a large folio the page
 * cache refused (a page of its range there already) is tried again
 * smaller, and counted once, as the kernel does. Swap-ins pass
 * workingset_refault() too, but never filemap_add_folio(): probing the
 * latter leaves them their cost.
 *
 * And the file pages reclaim evicts of the followed cgroups that asked for
 * their own records ("S <target> charged"): a probe on
 * __filemap_remove_folio(), where a page leaves the page cache, with the
 * shadow a refault will find when reclaim evicts it (none on truncation).
 * Not on workingset_eviction(), which makes the shadow: every swap-out
 * passes it too (docs/design/pages.md). A page cache page has no process;
 * its memory cgroup says whose it is. Registered only while a cgroup is
 * "charged": every page that leaves any file's page cache on the machine
 * passes it. A kernel without it can trace pages, not "charged" (ENOENT).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/fs.h>
#include <linux/kdev_t.h>
#include <linux/kprobes.h>
#include <linux/mm.h>
#include <linux/pagemap.h>
#include <linux/ptrace.h>
#include <linux/sched.h>
#include <linux/sched/signal.h>
#include <linux/xarray.h>

#include "pages.h"

/* Registered as new at each arm, under mp3_lock; the refault probe's nmissed counted. */
static struct kretprobe mp3_refault_probe;
static struct kprobe mp3_eviction_probe;
static u32 mp3_refault_nmissed_folded;
/* Under mp3_lock: whether the eviction probe is registered. */
static bool mp3_evictions_followed;

/*
 * Whether reclaim left a shadow in @mapping where @nr pages from @index go:
 * what __filemap_add_folio() hands workingset_refault(), read under RCU.
 */
static bool mp3_shadow_left(struct address_space *mapping, pgoff_t index, unsigned long nr)
{
	unsigned long at = index;

	return xa_is_value(xa_find(&mapping->i_pages, &at, index + nr - 1, XA_PRESENT));
}

/* An event of @nr pages of @host's file from page @index, now. */
static struct mp3_swap_event mp3_file_page_event(u32 type, const struct inode *host,
						 pgoff_t index, unsigned long nr)
{
	return (struct mp3_swap_event){
		.type = type,
		.offset = index,
		.inode = host->i_ino,
		.dev = new_encode_dev(host->i_sb->s_dev),
		.mapping = MP3_MAPPING_FILE,
		.time_ns = mp3_fault_clock(),
		.pages = nr,
	};
}

/*
 * filemap_add_folio(mapping, folio, index, gfp): @folio about to go in at
 * @index. A write's page (__GFP_WRITE) is no refault, as the kernel counts.
 * 0: the refault is in the instance's data, to be noted at the return.
 */
static int mp3_refault_entered(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	struct address_space *mapping = (struct address_space *)regs_get_kernel_argument(regs, 0);
	struct folio *folio = (struct folio *)regs_get_kernel_argument(regs, 1);
	pgoff_t index = regs_get_kernel_argument(regs, 2);
	gfp_t gfp = (__force gfp_t)regs_get_kernel_argument(regs, 3);
	unsigned long nr;

	if ((gfp & __GFP_WRITE) || !mp3_current_traced())
		return 1;
	nr = folio_nr_pages(folio);
	if (!mp3_shadow_left(mapping, index, nr))
		return 1;
	*(struct mp3_swap_event *)ri->data = mp3_file_page_event(MP3_RECORD_REFAULT, mapping->host,
								  index, nr);
	return 0;
}

/* The page cache took the page in (0), or refused it: no refault then. */
static int mp3_refault_returned(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	if (!regs_return_value(regs))
		mp3_swap_note(task_tgid(current), (const struct mp3_swap_event *)ri->data);
	return 0;
}

/*
 * __filemap_remove_folio(folio, shadow): @folio leaves its mapping, locked,
 * under the mapping's i_pages lock. With a shadow, reclaim evicts it, its
 * memory cgroup pinned: noted as the cgroup's if that is followed.
 */
static int mp3_eviction_entered(struct kprobe *p, struct pt_regs *regs)
{
	struct folio *folio = (struct folio *)regs_get_kernel_argument(regs, 0);
	void *shadow = (void *)regs_get_kernel_argument(regs, 1);
	struct mp3_swap_event e;
	struct mp3_record_tag tag;
	bool found;

	if (!shadow)
		return 0;
	rcu_read_lock();
	found = mp3_folio_cgroup_tag(folio, &tag);
	rcu_read_unlock();
	if (!found)
		return 0;
	e = mp3_file_page_event(MP3_RECORD_CGROUP_EVICT, folio->mapping->host, folio->index,
				folio_nr_pages(folio));
	mp3_swap_note_cgroup(&tag, &e);
	return 0;
}

int __mp3_refaults_arm(void)
{
	int err;

	lockdep_assert_held(&mp3_lock);

	mp3_refault_probe = (struct kretprobe){
		.kp.symbol_name = "filemap_add_folio",
		.entry_handler = mp3_refault_entered,
		.handler = mp3_refault_returned,
		.data_size = sizeof(struct mp3_swap_event),
		.maxactive = mp3_pages_active,
	};
	mp3_refault_nmissed_folded = 0;
	err = register_kretprobe(&mp3_refault_probe);
	if (err) {
		pr_warn_ratelimited("no probe on filemap_add_folio: %d\n", err);
		return err;
	}
	mp3_evictions_followed = false;
	err = __mp3_refaults_follow_evictions();
	if (err)
		goto refault;
	return 0;

refault:
	unregister_kretprobe(&mp3_refault_probe);
	return err;
}

/*
 * Registered, not enabled and disabled: a probe registered while kprobes
 * are off (debugfs' kprobes/enabled) is armed when they are on again, one
 * enabled then is not.
 */
int __mp3_refaults_follow_evictions(void)
{
	bool wanted = __mp3_swap_cgroups_charged();
	int err;

	lockdep_assert_held(&mp3_lock);

	if (wanted == mp3_evictions_followed)
		return 0;
	if (!wanted) {
		unregister_kprobe(&mp3_eviction_probe);
		mp3_evictions_followed = false;
		return 0;
	}
	mp3_eviction_probe = (struct kprobe){
		.symbol_name = "__filemap_remove_folio",
		.pre_handler = mp3_eviction_entered,
	};
	err = register_kprobe(&mp3_eviction_probe);
	if (err) {
		pr_warn_ratelimited("no probe on __filemap_remove_folio: %d\n", err);
		return err;
	}
	mp3_evictions_followed = true;
	return 0;
}

/* Returns once no handler runs (unregister_*probe() wait). */
void __mp3_refaults_disarm(void)
{
	lockdep_assert_held(&mp3_lock);

	if (mp3_evictions_followed)
		unregister_kprobe(&mp3_eviction_probe);
	mp3_evictions_followed = false;
	unregister_kretprobe(&mp3_refault_probe);
}

u64 __mp3_refaults_missed(void)
{
	u32 nmissed = (u32)READ_ONCE(mp3_refault_probe.nmissed);
	u64 missed = (u32)(nmissed - mp3_refault_nmissed_folded);

	lockdep_assert_held(&mp3_lock);

	mp3_refault_nmissed_folded = nmissed;
	return missed;
}
