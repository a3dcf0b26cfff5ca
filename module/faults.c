// SPDX-License-Identifier: GPL-2.0
/*
 * Where the faults of a process registered with "maps" are. Each of its
 * threads gets two kernel perf counters, minor and major page faults, with
 * a period of 1: their overflow handler runs at every fault the task's
 * counters count (mm_account_fault(), when the fault has registers) and
 * notes the faulting address in a per-CPU buffer. The counters are
 * inherited by the threads created later, not by child processes. Each
 * tick the sampler takes the buffers whole, sorts what they hold by process
 * and address, and places each fault in its mapping under the process's
 * mmap lock, tried without waiting: a tick never stalls behind a writer.
 * Why counters and not a tracepoint or a kretprobe: docs/faults.md.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/fs.h>
#include <linux/list.h>
#include <linux/magic.h>
#include <linux/mm.h>
#include <linux/perf_event.h>
#include <linux/percpu.h>
#include <linux/pid.h>
#include <linux/rcupdate.h>
#include <linux/sched/mm.h>
#include <linux/sched/signal.h>
#include <linux/sched/task.h>
#include <linux/slab.h>
#include <linux/sort.h>
#include <linux/spinlock.h>
#include <linux/vmalloc.h>

#include "compat.h"
#include "internal.h"

/* Faults one CPU holds between two ticks: 163 840 a second at 20 Hz. */
#define MP3_FAULTS_PER_CPU 8192

struct mp3_fault {
	unsigned long addr;	/* 0: the event gave none */
	pid_t tgid;		/* in the initial PID namespace */
	bool major;
};

struct mp3_fault_cpu {
	/* Protects the fields below: the handler appends, the sampler swaps. */
	raw_spinlock_t lock;
	struct mp3_fault *filling;
	struct mp3_fault *spare;
	unsigned int len;
	u64 dropped;
	/* The last fault noted: a thread's inherited counter sees it again. */
	const struct task_struct *last_task;
	unsigned long last_fault;
};

/* One thread's pair of counters, on its entry's list, under mp3_lock. */
struct mp3_fault_thread {
	struct list_head node;
	struct perf_event *minor;
	struct perf_event *major;
};

/*
 * Allocated with the first "maps" registration, freed at unload; the
 * sampler's copy of the buffers; the counters of processes no longer
 * followed, released at the end of the tick (releasing sleeps, and a
 * process leaves in the middle of an RCU read-side section). All under
 * mp3_lock, as is mp3_faults_dropped_total's writer.
 */
static struct mp3_fault_cpu __percpu *mp3_fault_cpus;
static struct mp3_fault *mp3_faults_taken;
static LIST_HEAD(mp3_faults_unfollowed);
static u64 mp3_faults_dropped_total;

static void mp3_fault_note(struct perf_event *event, struct perf_sample_data *data,
			   struct pt_regs *regs)
{
	struct mp3_fault_cpu *cpu = this_cpu_ptr(mp3_fault_cpus);
	/* mm_account_fault() counted the fault in the task before the event. */
	unsigned long fault = current->min_flt + current->maj_flt;

	/*
	 * No interrupt handler takes a fault that reaches here, and the
	 * sampler holds the lock only from process context: no irqsave.
	 */
	raw_spin_lock(&cpu->lock);
	if (cpu->last_task == current && cpu->last_fault == fault)
		goto out;
	cpu->last_task = current;
	cpu->last_fault = fault;
	if (cpu->len == MP3_FAULTS_PER_CPU) {
		cpu->dropped++;
		goto out;
	}
	cpu->filling[cpu->len++] = (struct mp3_fault) {
		.addr = data->sample_flags & PERF_SAMPLE_ADDR ? data->addr : 0,
		.tgid = current->tgid,
		.major = event->attr.config == PERF_COUNT_SW_PAGE_FAULTS_MAJ,
	};
out:
	raw_spin_unlock(&cpu->lock);
}

static void mp3_faults_free_buffers(void)
{
	int cpu;

	if (!mp3_fault_cpus)
		return;
	for_each_possible_cpu(cpu) {
		kvfree(per_cpu_ptr(mp3_fault_cpus, cpu)->filling);
		kvfree(per_cpu_ptr(mp3_fault_cpus, cpu)->spare);
	}
	free_percpu(mp3_fault_cpus);
	mp3_fault_cpus = NULL;
	kvfree(mp3_faults_taken);
	mp3_faults_taken = NULL;
}

/* The buffers, at the first registration that asks for them. */
static int __mp3_faults_alloc_buffers(void)
{
	struct mp3_fault_cpu *c;
	int cpu;

	lockdep_assert_held(&mp3_lock);

	if (mp3_fault_cpus)
		return 0;
	mp3_fault_cpus = alloc_percpu(struct mp3_fault_cpu);
	if (!mp3_fault_cpus)
		return -ENOMEM;
	for_each_possible_cpu(cpu) {
		c = per_cpu_ptr(mp3_fault_cpus, cpu);
		raw_spin_lock_init(&c->lock);
		c->filling = kvcalloc(MP3_FAULTS_PER_CPU, sizeof(*c->filling), GFP_KERNEL);
		c->spare = kvcalloc(MP3_FAULTS_PER_CPU, sizeof(*c->spare), GFP_KERNEL);
		if (!c->filling || !c->spare)
			goto nomem;
	}
	mp3_faults_taken = kvcalloc(array_size(num_possible_cpus(), MP3_FAULTS_PER_CPU),
				    sizeof(*mp3_faults_taken), GFP_KERNEL);
	if (!mp3_faults_taken)
		goto nomem;
	return 0;

nomem:
	mp3_faults_free_buffers();
	return -ENOMEM;
}

static struct perf_event *mp3_fault_counter(struct task_struct *task, u64 config)
{
	struct perf_event_attr attr = {
		.type = PERF_TYPE_SOFTWARE,
		.size = sizeof(attr),
		.config = config,
		.sample_period = 1,
		/* Threads created later get their own, processes forked do not. */
		.inherit = 1,
		.inherit_thread = 1,
	};

	return perf_event_create_kernel_counter(&attr, -1, task, mp3_fault_note, NULL);
}

static void mp3_fault_thread_release(struct mp3_fault_thread *thread)
{
	/* Also tears down the counters the thread's later threads inherited. */
	if (thread->minor)
		perf_event_release_kernel(thread->minor);
	if (thread->major)
		perf_event_release_kernel(thread->major);
	kfree(thread);
}

static int mp3_fault_thread_add(struct task_struct *task, struct list_head *threads)
{
	struct mp3_fault_thread *thread = kzalloc(sizeof(*thread), GFP_KERNEL);
	struct perf_event *event;

	if (!thread)
		return -ENOMEM;
	event = mp3_fault_counter(task, PERF_COUNT_SW_PAGE_FAULTS_MIN);
	if (IS_ERR(event))
		goto fail;
	thread->minor = event;
	event = mp3_fault_counter(task, PERF_COUNT_SW_PAGE_FAULTS_MAJ);
	if (IS_ERR(event))
		goto fail;
	thread->major = event;
	list_add_tail(&thread->node, threads);
	return 0;

fail:
	mp3_fault_thread_release(thread);
	return PTR_ERR(event);
}

static bool mp3_fault_thread_followed(const struct task_struct *task,
				      const struct list_head *threads)
{
	const struct mp3_fault_thread *thread;

	/* The counter holds its task: the pointer is not reused meanwhile. */
	list_for_each_entry(thread, threads, node)
		if (thread->minor->hw.target == task)
			return true;
	return false;
}

/* A thread of @leader's process without counters of ours, held; NULL if none. */
static struct task_struct *mp3_fault_next_thread(struct task_struct *leader,
						 const struct list_head *threads)
{
	struct task_struct *t, *found = NULL;

	rcu_read_lock();
	for_each_thread(leader, t) {
		if (!mp3_fault_thread_followed(t, threads)) {
			found = get_task_struct(t);
			break;
		}
	}
	rcu_read_unlock();
	return found;
}

int __mp3_faults_follow(struct task_struct *leader, struct list_head *threads)
{
	struct task_struct *task;
	int err;

	lockdep_assert_held(&mp3_lock);

	err = __mp3_faults_alloc_buffers();
	if (err)
		return err;
	/*
	 * Until every thread has counters: one created meanwhile by a thread
	 * that had them inherited them, and the handler takes the fault that
	 * both see once.
	 */
	while ((task = mp3_fault_next_thread(leader, threads))) {
		err = mp3_fault_thread_add(task, threads);
		put_task_struct(task);
		if (err) {
			__mp3_faults_unfollow(threads);
			__mp3_faults_release();
			return err;
		}
	}
	return 0;
}

void __mp3_faults_unfollow(struct list_head *threads)
{
	lockdep_assert_held(&mp3_lock);

	list_splice_tail_init(threads, &mp3_faults_unfollowed);
}

void __mp3_faults_release(void)
{
	struct mp3_fault_thread *thread, *next;

	lockdep_assert_held(&mp3_lock);
	might_sleep();

	list_for_each_entry_safe(thread, next, &mp3_faults_unfollowed, node) {
		list_del(&thread->node);
		mp3_fault_thread_release(thread);
	}
}

static int mp3_fault_cmp(const void *a, const void *b)
{
	const struct mp3_fault *x = a, *y = b;

	if (x->tgid != y->tgid)
		return x->tgid < y->tgid ? -1 : 1;
	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	return 0;
}

/* The faults the buffers hold, into mp3_faults_taken, sorted; how many. */
static size_t __mp3_faults_take(void)
{
	struct mp3_fault_cpu *c;
	size_t taken = 0;
	unsigned int len;
	int cpu;

	for_each_possible_cpu(cpu) {
		c = per_cpu_ptr(mp3_fault_cpus, cpu);
		raw_spin_lock_irq(&c->lock);
		swap(c->filling, c->spare);
		len = c->len;
		c->len = 0;
		mp3_faults_dropped_total += c->dropped;
		c->dropped = 0;
		raw_spin_unlock_irq(&c->lock);
		memcpy(mp3_faults_taken + taken, c->spare, len * sizeof(*c->spare));
		taken += len;
	}
	sort(mp3_faults_taken, taken, sizeof(*mp3_faults_taken), mp3_fault_cmp, NULL);
	return taken;
}

u64 mp3_faults_dropped(void)
{
	return READ_ONCE(mp3_faults_dropped_total);
}

/* As /proc/<pid>/maps names it (show_map_vma()). */
static u32 mp3_mapping_kind(const struct vm_area_struct *vma)
{
	const struct mm_struct *mm = vma->vm_mm;

	if (vma->vm_file)
		return file_inode(vma->vm_file)->i_sb->s_magic == TMPFS_MAGIC ?
		       MP3_MAPPING_SHMEM : MP3_MAPPING_FILE;
	if (vma->vm_start <= mm->brk && vma->vm_end >= mm->start_brk)
		return MP3_MAPPING_HEAP;
	if (vma->vm_start <= mm->start_stack && vma->vm_end >= mm->start_stack)
		return MP3_MAPPING_STACK;
	return MP3_MAPPING_ANON;
}

static void mp3_mapping_set(struct mp3_mapping_faults *m, const struct vm_area_struct *vma)
{
	*m = (struct mp3_mapping_faults) {};
	if (!vma)
		return;
	m->start = vma->vm_start;
	m->inode = vma->vm_file ? file_inode(vma->vm_file)->i_ino : 0;
	m->kind = mp3_mapping_kind(vma);
}

static void mp3_mapping_count(struct mp3_mapping_faults *m, const struct mp3_fault *f)
{
	if (f->major)
		m->major++;
	else
		m->minor++;
}

/* The mapping of @mm (read-locked, or NULL) that holds @addr; NULL if none. */
static struct vm_area_struct *mp3_mapping_of(struct mm_struct *mm, unsigned long addr)
{
	struct vm_area_struct *vma = mm && addr ? find_vma(mm, addr) : NULL;

	return vma && vma->vm_start <= addr ? vma : NULL;
}

/*
 * Records the faults from @f to @end, all of one process, each placed in
 * its mapping of @mm (read-locked; NULL: none placed).
 */
static void __mp3_faults_record_placed(pid_t tgid, u32 target, struct mm_struct *mm,
				       const struct mp3_fault *f, const struct mp3_fault *end)
{
	struct mp3_mapping_faults unresolved = {}, m = {};
	struct vm_area_struct *vma, *current_vma = NULL;

	for (; f < end; f++) {
		vma = mp3_mapping_of(mm, f->addr);
		if (!vma) {
			mp3_mapping_count(&unresolved, f);
			continue;
		}
		if (vma != current_vma) {
			if (current_vma)
				__mp3_buffer_record_faults(tgid, target, &m);
			current_vma = vma;
			mp3_mapping_set(&m, vma);
		}
		mp3_mapping_count(&m, f);
	}
	if (current_vma)
		__mp3_buffer_record_faults(tgid, target, &m);
	if (unresolved.minor || unresolved.major)
		__mp3_buffer_record_faults(tgid, target, &unresolved);
}

/*
 * The faults from @f to @end, of one registered process whose leader is
 * @leader (NULL once reaped), as records. Under rcu_read_lock(): the last
 * reference to the address space is dropped asynchronously.
 */
static void __mp3_faults_record(u32 target, struct task_struct *leader,
				const struct mp3_fault *f, const struct mp3_fault *end)
{
	struct mm_struct *mm = leader ? get_task_mm(leader) : NULL;

	if (mm && !mmap_read_trylock(mm)) {
		mmput_async(mm);
		mm = NULL;
	}
	__mp3_faults_record_placed(f->tgid, target, mm, f, end);
	if (mm) {
		mmap_read_unlock(mm);
		mmput_async(mm);
	}
}

/*
 * Each tick: the faults noted since the last one, as records of the
 * processes still registered with "maps"; then the counters of those no
 * longer followed are released.
 */
void __mp3_faults_collect(void)
{
	const struct mp3_fault *f, *run, *end;
	struct task_struct *leader;
	u32 target;

	lockdep_assert_held(&mp3_lock);

	if (mp3_fault_cpus) {
		end = mp3_faults_taken + __mp3_faults_take();
		rcu_read_lock();
		for (f = mp3_faults_taken; f < end; f = run) {
			for (run = f; run < end && run->tgid == f->tgid; run++)
				;
			if (mp3_tasks_maps(f->tgid, &target, &leader))
				__mp3_faults_record(target, leader, f, run);
		}
		rcu_read_unlock();
	}
	__mp3_faults_release();
}

void mp3_faults_destroy(void)
{
	if (!mp3_fault_cpus)
		return;
	/*
	 * A handler interrupted by the release of its counter may still be
	 * writing: it runs with preemption disabled, an RCU read-side
	 * section, so once a grace period is over none runs the module's
	 * code or touches its buffers.
	 */
	synchronize_rcu();
	mp3_faults_free_buffers();
}
