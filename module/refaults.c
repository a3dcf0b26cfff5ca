// SPDX-License-Identifier: GPL-2.0
/*
 * The file pages the traced processes read again after reclaim dropped
 * them from the page cache: a probe on workingset_refault(folio, shadow),
 * which the page cache calls when it takes in a page in whose place
 * reclaim left a shadow (filemap_add_folio()), in the context of the
 * thread that reads it (a fault, read(2), or the readahead either
 * started). Swap-ins pass it too (their shadows are the swap cache's):
 * swapin.c has those.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/fs.h>
#include <linux/kdev_t.h>
#include <linux/kprobes.h>
#include <linux/mm.h>
#include <linux/mm_inline.h>
#include <linux/ptrace.h>
#include <linux/sched.h>
#include <linux/sched/signal.h>

#include "pages.h"

/* Registered as new at each arm, under mp3_lock. */
static struct kprobe mp3_refault_probe;

/* workingset_refault(folio, shadow): the folio is locked, in its file's page cache. */
static int mp3_refault_entered(struct kprobe *p, struct pt_regs *regs)
{
	struct folio *folio = (struct folio *)regs_get_kernel_argument(regs, 0);
	struct inode *host;
	struct mp3_swap_event e;

	if (!folio_is_file_lru(folio) || !mp3_current_traced())
		return 0;
	host = folio->mapping->host;
	e = (struct mp3_swap_event){
		.type = MP3_RECORD_REFAULT,
		.offset = folio->index,
		.inode = host->i_ino,
		.dev = new_encode_dev(host->i_sb->s_dev),
		.mapping = MP3_MAPPING_FILE,
		.time_ns = mp3_fault_clock(),
		.pages = folio_nr_pages(folio),
	};
	mp3_swap_note(task_tgid(current), &e);
	return 0;
}

int __mp3_refaults_arm(void)
{
	int err;

	lockdep_assert_held(&mp3_lock);

	memset(&mp3_refault_probe, 0, sizeof(mp3_refault_probe));
	mp3_refault_probe.symbol_name = "workingset_refault";
	mp3_refault_probe.pre_handler = mp3_refault_entered;
	err = register_kprobe(&mp3_refault_probe);
	if (err)
		pr_warn_ratelimited("no probe on workingset_refault: %d\n", err);
	return err;
}

/* Returns once no handler runs (unregister_kprobe() waits). */
void __mp3_refaults_disarm(void)
{
	lockdep_assert_held(&mp3_lock);

	unregister_kprobe(&mp3_refault_probe);
}
