/* SPDX-License-Identifier: GPL-2.0 */
/*
 * mp3: the one place where kernel versions differ.
 *
 * The module builds against Debian 12's 6.1, Debian 13's 6.12 and the
 * newest 7.x (trixie-backports). Each entry names the kernel version that
 * changed an interface and the upstream change, and gives the module one
 * name for both sides. No other file of the module tests a version.
 */
#ifndef MP3_COMPAT_H
#define MP3_COMPAT_H

#include <linux/device.h>
#include <linux/fs.h>
#include <linux/mm.h>
#include <linux/sched.h>
#include <linux/sched/coredump.h>
#include <linux/sched/signal.h>
#include <linux/swap.h>
#include <linux/user_namespace.h>
#include <linux/version.h>
#include <linux/workqueue.h>

/*
 * 6.3: vma->vm_flags became read-only; changes go through vm_flags_set()
 * and vm_flags_clear() (commit bc292ab00f6c, "mm: introduce vma->vm_flags
 * wrapper functions").
 */
#if LINUX_VERSION_CODE < KERNEL_VERSION(6, 3, 0)
static inline void vm_flags_set(struct vm_area_struct *vma, unsigned long flags)
{
	vma->vm_flags |= flags;
}

static inline void vm_flags_clear(struct vm_area_struct *vma, unsigned long flags)
{
	vma->vm_flags &= ~flags;
}
#endif

/*
 * 6.8: /proc/PID/maps names a mapped file by the inode of the path the
 * user mapped (an overlayfs file's), not by that of the backing file that
 * vma->vm_file is (commit 1beab7c553fc, "fs/proc: show correct device and
 * inode numbers in /proc/pid/maps"); before, overlayfs put the real file
 * in vm_file, and maps named that.
 */
#if LINUX_VERSION_CODE < KERNEL_VERSION(6, 8, 0)
static inline const struct inode *file_user_inode(const struct file *file)
{
	return file_inode(file);
}
#endif

/*
 * 6.4: class_create() lost its struct module argument (commit
 * 1aaba11da9aa, "driver core: class: remove module * from class_create()").
 */
#if LINUX_VERSION_CODE < KERNEL_VERSION(6, 4, 0)
#define mp3_class_create(name)	class_create(THIS_MODULE, name)
#else
#define mp3_class_create(name)	class_create(name)
#endif

/*
 * 6.17: system_dfl_wq is the name of the unbound system workqueue (commit
 * 128ea9f6ccfb, "workqueue: Add system_percpu_wq and system_dfl_wq"); 7.2
 * warns once for work queued on system_unbound_wq (commit 64d8eae3f895,
 * "workqueue: Add warnings and fallback if system_{unbound}_wq is used").
 */
#if LINUX_VERSION_CODE < KERNEL_VERSION(6, 17, 0)
#define mp3_unbound_wq		system_unbound_wq
#else
#define mp3_unbound_wq		system_dfl_wq
#endif

/*
 * The dumpability of @task's executable as ptrace judges a read: true if
 * its owner may read it, else the caller must hold CAP_SYS_PTRACE over
 * *@user_ns. Called under task_lock(@task), which keeps what *@user_ns
 * points to alive until task_unlock().
 *
 * 7.2 moved dumpability and the executable's user namespace from the mm
 * (get_dumpable(mm), SUID_DUMP_USER, mm->user_ns) to task->exec_state
 * (<linux/sched/exec_state.h>, TASK_DUMPABLE_*); task_exec_state_rcu() is
 * not exported, so the field is read as it does, under task_lock().
 *
 * Before 7.2 a task without an mm (a kernel thread, or a leader whose mm
 * is gone) has no dumpability of its own; such a task is treated as not
 * dumpable over the initial namespace, as ptrace itself does since "ptrace:
 * slightly saner 'get_dumpable()' logic" (7.1, backported to 6.1 and 6.12).
 */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(7, 2, 0)
#include <linux/sched/exec_state.h>

static inline bool mp3_task_dumpable(struct task_struct *task,
				     struct user_namespace **user_ns)
{
	struct task_exec_state *es;

	es = rcu_dereference_protected(task->exec_state,
				       lockdep_is_held(&task->alloc_lock));
	*user_ns = es->user_ns;
	return READ_ONCE(es->dumpable) == TASK_DUMPABLE_OWNER;
}
#else
static inline bool mp3_task_dumpable(struct task_struct *task,
				     struct user_namespace **user_ns)
{
	struct mm_struct *mm = task->mm;

	if (!mm) {
		*user_ns = &init_user_ns;
		return false;
	}
	*user_ns = mm->user_ns;
	return get_dumpable(mm) == SUID_DUMP_USER;
}
#endif

/*
 * 6.16: the sched_process_exit tracepoint passes whether the whole thread
 * group is dead (commit 3e816361e94a, "sched/tracepoints: Move and extend
 * the sched_process_exit() tracepoint"). Before, do_exit() has decremented
 * signal->live when it fires, so 0 means the same; two threads exiting at
 * once may both read it as 0, which the handler must allow for.
 * MP3_DEFINE_PROBE_EXIT(probe, handler) defines the probe with the
 * kernel's prototype, calling handler(task, group_dead).
 */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 16, 0)
#define MP3_DEFINE_PROBE_EXIT(probe, handler)					\
static void probe(void *data, struct task_struct *task, bool group_dead)	\
{										\
	handler(task, group_dead);						\
}
#else
#define MP3_DEFINE_PROBE_EXIT(probe, handler)					\
static void probe(void *data, struct task_struct *task)				\
{										\
	handler(task, !atomic_read(&task->signal->live));			\
}
#endif

/*
 * The swap slot of a folio in the swap cache. 6.1 reads it with
 * folio_swap_entry(); 6.12 and 7.3 have it in the folio (folio->swap),
 * which replaced the function in 6.6 (Matthew Wilcox's conversion of the
 * swap cache to folio->swap; the two sides are what this project's
 * kernels show, the release between them not checked in a history).
 */
#if LINUX_VERSION_CODE < KERNEL_VERSION(6, 6, 0)
static inline swp_entry_t mp3_folio_swap(struct folio *folio)
{
	return folio_swap_entry(folio);
}
#else
static inline swp_entry_t mp3_folio_swap(struct folio *folio)
{
	return folio->swap;
}
#endif

/*
 * Whether @pte holds a page's slot in swap (not a migration, device,
 * poison or marker entry), and then the slot in *@entry. 6.19 replaced
 * is_swap_pte(), pte_to_swp_entry() and non_swap_entry() with the
 * software leaf entries of <linux/leafops.h> (Lorenzo Stoakes' series
 * "mm: remove is_swap_[pte, pmd]() + non-swap entries, introduce leaf
 * entries", November 2025; 7.3 has only the new names).
 */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 19, 0)
#include <linux/leafops.h>

static inline bool mp3_pte_swap_entry(pte_t pte, swp_entry_t *entry)
{
	softleaf_t leaf = softleaf_from_pte(pte);

	*entry = leaf;
	return softleaf_is_swap(leaf);
}
#else
#include <linux/swapops.h>

static inline bool mp3_pte_swap_entry(pte_t pte, swp_entry_t *entry)
{
	if (!is_swap_pte(pte))
		return false;
	*entry = pte_to_swp_entry(pte);
	return !non_swap_entry(*entry);
}
#endif

#endif /* MP3_COMPAT_H */
