// SPDX-License-Identifier: GPL-2.0
/*
 * The file pages the traced processes read again after reclaim dropped
 * them from the page cache: a probe on filemap_add_folio(), where the page
 * cache takes in a file's page, in the context of the thread that reads it
 * (a fault, read(2), or the readahead either started). A page is read
 * again when reclaim left a shadow in its place: the kernel then calls
 * workingset_refault() and counts it (workingset_refault_file), once the
 * page is in. Swap-ins pass workingset_refault() too, but never
 * filemap_add_folio(): probing the latter leaves them their cost.
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

/* Registered as new at each arm, under mp3_lock. */
static struct kprobe mp3_refault_probe;

/*
 * Whether reclaim left a shadow in @mapping where @nr pages from @index go:
 * what __filemap_add_folio() hands workingset_refault(), read under RCU.
 */
static bool mp3_shadow_left(struct address_space *mapping, pgoff_t index, unsigned long nr)
{
	unsigned long at = index;

	return xa_is_value(xa_find(&mapping->i_pages, &at, index + nr - 1, XA_PRESENT));
}

/*
 * filemap_add_folio(mapping, folio, index, gfp): @folio about to go in at
 * @index. A write's page (__GFP_WRITE) is no refault, as the kernel counts.
 */
static int mp3_refault_entered(struct kprobe *p, struct pt_regs *regs)
{
	struct address_space *mapping = (struct address_space *)regs_get_kernel_argument(regs, 0);
	struct folio *folio = (struct folio *)regs_get_kernel_argument(regs, 1);
	pgoff_t index = regs_get_kernel_argument(regs, 2);
	gfp_t gfp = (__force gfp_t)regs_get_kernel_argument(regs, 3);
	unsigned long nr;

	if ((gfp & __GFP_WRITE) || !mp3_current_traced())
		return 0;
	nr = folio_nr_pages(folio);
	if (!mp3_shadow_left(mapping, index, nr))
		return 0;
	mp3_swap_note(task_tgid(current), &(struct mp3_swap_event){
		.type = MP3_RECORD_REFAULT,
		.offset = index,
		.inode = mapping->host->i_ino,
		.dev = new_encode_dev(mapping->host->i_sb->s_dev),
		.mapping = MP3_MAPPING_FILE,
		.time_ns = mp3_fault_clock(),
		.pages = nr,
	});
	return 0;
}

int __mp3_refaults_arm(void)
{
	int err;

	lockdep_assert_held(&mp3_lock);

	memset(&mp3_refault_probe, 0, sizeof(mp3_refault_probe));
	mp3_refault_probe.symbol_name = "filemap_add_folio";
	mp3_refault_probe.pre_handler = mp3_refault_entered;
	err = register_kprobe(&mp3_refault_probe);
	if (err)
		pr_warn_ratelimited("no probe on filemap_add_folio: %d\n", err);
	return err;
}

/* Returns once no handler runs (unregister_kprobe() waits). */
void __mp3_refaults_disarm(void)
{
	lockdep_assert_held(&mp3_lock);

	unregister_kprobe(&mp3_refault_probe);
}
