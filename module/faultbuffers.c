// SPDX-License-Identifier: GPL-2.0
/*
 * The memory the faults of processes followed with "maps" pass through:
 * each CPU's two buffers, which the counters' overflow handler fills
 * (mp3_fault_note(): the faulting address, the process, its memory map
 * and the mapping the fault was in) and the sampler swaps out each tick;
 * the faults waiting for an mmap lock; the processes departed in a tick;
 * the tallies of a tick. All allocated at the first "maps" registration,
 * freed at unload.
 */
#include <linux/fs.h>
#include <linux/kdev_t.h>
#include <linux/magic.h>
#include <linux/mm.h>
#include <linux/mmap_lock.h>
#include <linux/percpu.h>
#include <linux/perf_event.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/spinlock.h>

#include "compat.h"
#include "faults.h"

struct mp3_fault_cpu __percpu *mp3_fault_cpus;
struct mp3_fault *mp3_faults_waiting;
struct mp3_fault *mp3_faults_waiting_spare;
unsigned int mp3_nr_waiting;
struct mp3_departed *mp3_departed;
unsigned int mp3_nr_departed;
struct mp3_fault_tally *mp3_tally;
unsigned int *mp3_tally_used;
unsigned int mp3_nr_tally;

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

void mp3_mapping_of(const struct vm_area_struct *vma, struct mp3_mapping *where)
{
	/* As /proc/<pid>/maps names it, which pfprofd reads names from. */
	const struct inode *inode = vma->vm_file ? file_user_inode(vma->vm_file) : NULL;

	*where = (struct mp3_mapping) {
		.start = vma->vm_start,
		.inode = inode ? inode->i_ino : 0,
		.dev = inode ? new_encode_dev(inode->i_sb->s_dev) : 0,
		.kind = mp3_mapping_kind(vma),
	};
}

/*
 * The mapping of @mm that holds @addr, read at the fault: by the tick, a
 * server's worker may have unmapped it (a file it sent, a pool it freed,
 * its heap trimmed). The faulting thread holds the mapping's lock or the
 * mmap lock but after a fault that let it go (VM_FAULT_COMPLETED), which
 * the handler cannot tell: the mmap lock is tried, never waited for.
 * *@where is left unresolved when not read: the tick looks.
 */
static void mp3_fault_mapping_now(struct mm_struct *mm, unsigned long addr,
				  struct mp3_mapping *where)
{
	const struct vm_area_struct *vma;

	if (!mm || !addr || !mmap_read_trylock(mm))
		return;
	vma = vma_lookup(mm, addr);
	if (vma)
		mp3_mapping_of(vma, where);
	mmap_read_unlock(mm);
}

void mp3_fault_note(struct perf_event *event, struct perf_sample_data *data,
		    struct pt_regs *regs)
{
	/* Freed a grace period after its counters: this handler runs in an RCU section. */
	const struct mp3_fault_thread *thread = event->overflow_handler_context;
	const struct mp3_fault_owner *owner = thread->owner;
	struct mp3_fault_cpu *cpu = this_cpu_ptr(mp3_fault_cpus);
	/* mm_account_fault() counted the fault in the task before the event. */
	unsigned long fault = current->min_flt + current->maj_flt;
	unsigned long addr = data->sample_flags & PERF_SAMPLE_ADDR ? data->addr : 0;
	struct mp3_mapping where = { .kind = MP3_MAPPING_UNRESOLVED };

	if (current == thread->task && fault <= READ_ONCE(thread->counted_to))
		return;
	/*
	 * Only this CPU's handler writes the last fault noted, and never two
	 * at once (no interrupt handler takes a fault that reaches here): read
	 * without the lock, so that a fault seen again is not looked up again.
	 */
	if (cpu->last_task == current && cpu->last_fault == fault)
		return;
	/*
	 * Before the CPU's lock: the mmap lock is never taken under it. Not
	 * for a fault a full buffer will drop (len read without the lock: a
	 * hint only).
	 */
	if (data_race(cpu->len) < MP3_FAULTS_PER_CPU)
		mp3_fault_mapping_now(current->mm, addr, &where);

	/* The sampler holds the lock only from process context: no irqsave. */
	raw_spin_lock(&cpu->lock);
	cpu->last_task = current;
	cpu->last_fault = fault;
	cpu->last_kept = cpu->len < MP3_FAULTS_PER_CPU;
	if (!cpu->last_kept) {
		cpu->dropped++;
		goto out;
	}
	cpu->filling[cpu->len++] = (struct mp3_fault) {
		.addr = addr,
		.owner = owner->id,
		/* Written by current only: no tearing to fear from its own read. */
		.exec_id = current->self_exec_id,
		.mm = current->mm,
		.where = where,
		.tgid = current->tgid,
		.major = event->attr.config == PERF_COUNT_SW_PAGE_FAULTS_MAJ,
	};
out:
	raw_spin_unlock(&cpu->lock);
}

void mp3_fault_note_time(unsigned long address, u64 ns)
{
	/* Published ready by __mp3_faults_alloc_buffers(), freed only at unload. */
	struct mp3_fault_cpu __percpu *cpus = smp_load_acquire(&mp3_fault_cpus);
	struct mp3_fault_cpu *cpu;
	struct mp3_fault *f;

	if (!cpus)
		return;
	cpu = this_cpu_ptr(cpus);
	raw_spin_lock(&cpu->lock);
	f = cpu->len && cpu->last_kept ? &cpu->filling[cpu->len - 1] : NULL;
	/* The fault this CPU noted last is this one: same thread, same count, same address. */
	if (f && !f->ns && cpu->last_task == current &&
	    cpu->last_fault == current->min_flt + current->maj_flt && f->addr == address)
		f->ns = ns;
	raw_spin_unlock(&cpu->lock);
}

static void mp3_fault_cpus_free(struct mp3_fault_cpu __percpu *cpus)
{
	int cpu;

	if (!cpus)
		return;
	for_each_possible_cpu(cpu) {
		kvfree(per_cpu_ptr(cpus, cpu)->filling);
		kvfree(per_cpu_ptr(cpus, cpu)->spare);
	}
	free_percpu(cpus);
}

static struct mp3_fault_cpu __percpu *mp3_fault_cpus_alloc(void)
{
	struct mp3_fault_cpu __percpu *cpus = alloc_percpu(struct mp3_fault_cpu);
	struct mp3_fault_cpu *c;
	int cpu;

	if (!cpus)
		return NULL;
	for_each_possible_cpu(cpu) {
		c = per_cpu_ptr(cpus, cpu);
		raw_spin_lock_init(&c->lock);
		c->filling = kvcalloc(MP3_FAULTS_PER_CPU, sizeof(*c->filling), GFP_KERNEL);
		c->spare = kvcalloc(MP3_FAULTS_PER_CPU, sizeof(*c->spare), GFP_KERNEL);
		if (!c->filling || !c->spare)
			goto fail;
	}
	return cpus;
fail:
	mp3_fault_cpus_free(cpus);
	return NULL;
}

void mp3_faults_free_buffers(void)
{
	kvfree(mp3_faults_waiting);
	kvfree(mp3_faults_waiting_spare);
	kvfree(mp3_departed);
	kvfree(mp3_tally);
	kvfree(mp3_tally_used);
	mp3_faults_waiting = NULL;
	mp3_faults_waiting_spare = NULL;
	mp3_departed = NULL;
	mp3_tally = NULL;
	mp3_tally_used = NULL;
	mp3_nr_waiting = 0;
	mp3_nr_departed = 0;
	mp3_nr_tally = 0;
	mp3_fault_cpus_free(mp3_fault_cpus);
	mp3_fault_cpus = NULL;
}

/* The buffers, at the first registration that asks for them. */
int __mp3_faults_alloc_buffers(void)
{
	struct mp3_fault_cpu __percpu *cpus;

	lockdep_assert_held(&mp3_lock);

	if (mp3_fault_cpus)
		return 0;
	cpus = mp3_fault_cpus_alloc();
	mp3_faults_waiting = kvcalloc(MP3_FAULTS_DEFERRED, sizeof(*mp3_faults_waiting),
				      GFP_KERNEL);
	mp3_faults_waiting_spare = kvcalloc(MP3_FAULTS_DEFERRED,
					    sizeof(*mp3_faults_waiting_spare), GFP_KERNEL);
	mp3_departed = kvcalloc(MP3_DEPARTED_MAX, sizeof(*mp3_departed), GFP_KERNEL);
	mp3_tally = kvcalloc(MP3_TALLY_SLOTS, sizeof(*mp3_tally), GFP_KERNEL);
	mp3_tally_used = kvcalloc(MP3_TALLY_MAX, sizeof(*mp3_tally_used), GFP_KERNEL);
	if (!cpus || !mp3_faults_waiting || !mp3_faults_waiting_spare || !mp3_departed ||
	    !mp3_tally || !mp3_tally_used)
		goto fail;
	/*
	 * Last, and ready: the return probe of a timed process with maps reads
	 * it without mp3_lock (mp3_fault_note_time()), possibly before any
	 * counter exists.
	 */
	smp_store_release(&mp3_fault_cpus, cpus);
	return 0;
fail:
	mp3_fault_cpus_free(cpus);
	mp3_faults_free_buffers();
	return -ENOMEM;
}

unsigned int __mp3_faults_take(struct mp3_fault_cpu *c, u64 *dropped)
{
	unsigned int len;

	raw_spin_lock_irq(&c->lock);
	swap(c->filling, c->spare);
	len = c->len;
	c->len = 0;
	*dropped = c->dropped;
	c->dropped = 0;
	raw_spin_unlock_irq(&c->lock);
	return len;
}
