/* SPDX-License-Identifier: GPL-2.0 */
/*
 * mp3: where the faults of processes followed with "maps" are, in three
 * files, each calling only those below it:
 *
 * faultplace.c     each tick, the faults placed in their mappings, as records
 * faultcounters.c  the per-thread perf counters of the followed processes,
 *                  and their owners
 * faultbuffers.c   the memory the faults pass through, and the counters'
 *                  handler that notes them there
 */
#ifndef MP3_FAULTS_H
#define MP3_FAULTS_H

#include <linux/hashtable.h>
#include <linux/list.h>
#include <linux/perf_event.h>
#include <linux/rcupdate.h>
#include <linux/spinlock.h>
#include <linux/types.h>

#include "internal.h"

struct mm_struct;
struct pid;
struct task_struct;
struct vm_area_struct;

/* Faults one CPU holds between two ticks: 163 840 a second at 20 Hz. */
#define MP3_FAULTS_PER_CPU 8192
/* Faults waiting for a process's mmap lock, at most; beyond, not placed. */
#define MP3_FAULTS_DEFERRED 8192
/* Processes with maps leaving in one tick whose last faults are placed, at most. */
#define MP3_DEPARTED_MAX 4096

/*
 * Which memory map a fault was taken in, so that it is placed in that one
 * only (not in the one an exec installed since, nor in a process that has
 * its PID since): its process's owner (below), the task's exec generation
 * and the memory map's address. The address alone is no identity (a map
 * freed and another allocated there); neither is the exec generation
 * (execs are counted per task, and inherited), nor the PID. Together with
 * the owner they are: within one process and one exec generation there is
 * one memory map, but for a moment in exec (the new map installed, the
 * generation not yet counted) where the two maps are both allocated, so
 * differ by address.
 */
struct mp3_fault {
	unsigned long addr;	/* 0: the event gave none */
	u64 owner;		/* mp3_fault_owner.id of the counter that saw it */
	u64 exec_id;		/* the task's self_exec_id */
	const struct mm_struct *mm;	/* compared, never dereferenced */
	/*
	 * Its mapping, read when it was taken (mp3_fault_note()): by the
	 * tick, the process may have unmapped it. Counted in it only if mm
	 * is still the map of its process or held by its owner. Of kind
	 * MP3_MAPPING_UNRESOLVED if it was not read then: the tick looks for
	 * it in mm.
	 */
	struct mp3_mapping where;
	/* With latency: how long it took, joined by mp3_fault_note_time(); 0: not known. */
	u64 ns;
	pid_t tgid;		/* in the initial PID namespace */
	bool major;
	u8 ticks;		/* ticks it waited for the mmap lock */
};

/*
 * The process one entry's counters were made for, the context of its
 * counters' overflow handler (perf gives it to the counters the threads
 * inherit too). Its id is never reused, and its PID is held, so that
 * nobody else has it: a fault noted with this id is this process's, and
 * the process found by a number at the tick is this one if it has this
 * PID. Lives as long as counters hold it, then a grace period (a handler
 * may still be reading id); on mp3_fault_owners meanwhile, and on
 * mp3_followed_owners from its publication (at its creation under
 * mp3_lock, or by its own process's task work) until its process is
 * unfollowed: both hashes written under mp3_owners_lock, read under RCU.
 * Its other fields, once published, under mp3_lock.
 */
struct mp3_fault_owner {
	u64 id;
	struct pid *pid;
	struct mp3_record_tag tag;	/* its process's, constant */
	/*
	 * Its process's memory map, held (mm_users), and its exec generation
	 * when it was taken: from its counters on, and again at each exec.
	 * A process that exits before the tick has its last faults placed in
	 * it, its own being gone by then. Let go with the owner: an exited
	 * process's memory is freed up to a tick later. NULL: it had none (a
	 * kernel thread). Under mp3_owners_lock once published: read with
	 * mp3_fault_owner_mm().
	 */
	struct mm_struct *mm;
	u64 exec_id;
	/*
	 * The map its last exec replaced, and that map's generation, held
	 * until the tick after the exec has placed the faults the process
	 * took in it: a forked child's on its way to exec, or all of those of
	 * a program that execs another within a tick. Under mp3_owners_lock,
	 * on mp3_owners_replaced while it holds one; NULL: none.
	 */
	struct mm_struct *replaced_mm;
	u64 replaced_exec_id;
	u64 replaced_at;		/* the ticks' collections begun when the exec came */
	struct list_head replaced;
	unsigned int nr_threads;	/* mp3_fault_threads holding it */
	struct hlist_node node;
	struct hlist_node followed;
	struct rcu_head rcu;
};

struct mp3_fault_cpu {
	/*
	 * Protects the fields below: the handler appends to filling, the
	 * sampler swaps the two buffers, then reads spare without it (no
	 * handler writes there until the next swap, under mp3_lock).
	 */
	raw_spinlock_t lock;
	struct mp3_fault *filling;
	struct mp3_fault *spare;
	unsigned int len;
	u64 dropped;
	/*
	 * The last fault noted: a thread's inherited counter sees it again.
	 * Written under the lock by this CPU's handler, which alone may read
	 * them without it.
	 */
	const struct task_struct *last_task;
	unsigned long last_fault;
	/* Whether filling's last entry is that fault, not an older one: it had room. */
	bool last_kept;
};

/*
 * One thread's pair of counters, on its entry's list, under mp3_lock; the
 * context of their overflow handler (and of the counters its later threads
 * inherit), freed a grace period after them.
 */
struct mp3_fault_thread {
	struct list_head node;
	struct perf_event *minor;
	struct perf_event *major;
	struct mp3_fault_owner *owner;	/* the same for every thread of the list */
	const struct task_struct *task;	/* the thread they were made for; compared only */
	/*
	 * Its faults up to this number (min_flt + maj_flt) are counted in its
	 * process's counts already, and not noted: all of them until
	 * __mp3_faults_count_from_now() reads the number, right after the
	 * counts are read. Else a fault counted in task->min_flt just before
	 * the counts were read, whose event came once the counter was there
	 * (another CPU creates it), would be counted twice.
	 */
	unsigned long counted_to;
	struct rcu_head rcu;
};

/*
 * What one process (tgid and target) put into the records of this tick,
 * over all its runs: a process's faults may come in several runs (one a
 * CPU, and another wherever they alternate with another process's), and
 * its records are bounded per tick. Its faults not placed, and those of
 * the mappings past the bound, go into one unresolved record at the end
 * of the tick. Under mp3_lock, emptied at the end of each tick.
 */
struct mp3_fault_tally {
	pid_t tgid;			/* 0: a free slot */
	struct mp3_record_tag tag;
	unsigned int records;		/* its mappings' records so far in this tick */
	struct mp3_mapping_faults rest;	/* unresolved */
};

/*
 * A process's mapping records in one tick, at most: MP3_FAULT_RECORDS_MAX
 * less its unresolved record (the tally's) and the one maps.c may write
 * for the faults it took before its counters, in the tick that creates
 * them (__mp3_maps_record_unplaced()).
 */
#define MP3_TALLY_RECORDS (MP3_FAULT_RECORDS_MAX - 2)
/* Processes with faults in one tick, at most; the faults of the others are dropped. */
#define MP3_TALLY_MAX 4096
#define MP3_TALLY_SLOTS (2 * MP3_TALLY_MAX)
static_assert(MP3_TALLY_RECORDS >= 1);
static_assert((MP3_TALLY_SLOTS & (MP3_TALLY_SLOTS - 1)) == 0);

/*
 * The processes with counters that left in this tick's visits (exited, or
 * left their target): their entries are gone, and the faults they took
 * since the last tick are placed all the same. Sorted by tgid before the
 * faults are; emptied after. Allocated with the buffers, under mp3_lock.
 */
struct mp3_departed {
	pid_t tgid;
	bool place;	/* false: all its faults are unresolved */
	/* Its counters' owner (and its tag), which lives until they are released after the tick. */
	const struct mp3_fault_owner *owner;
};

/*
 * Allocated together at the first "maps" registration, freed at unload
 * (faultbuffers.c); the CPUs' buffers are filled by the handler under each
 * one's lock, the rest is the sampler's, under mp3_lock.
 */
extern struct mp3_fault_cpu __percpu *mp3_fault_cpus;
/*
 * The faults that wait for their process's mmap lock, in the order they
 * came: the sampler takes them (swapping the two arrays) before the CPUs'
 * buffers at each tick and puts back those whose lock is still held.
 */
extern struct mp3_fault *mp3_faults_waiting;
extern struct mp3_fault *mp3_faults_waiting_spare;
extern unsigned int mp3_nr_waiting;
/*
 * The processes with counters that left in this tick's visits, sorted by
 * tgid before the faults are placed, emptied after.
 */
extern struct mp3_departed *mp3_departed;
extern unsigned int mp3_nr_departed;
/*
 * The tallies of this tick: open addressing by (tgid, target), half full
 * at most; the slots used are listed in mp3_tally_used, to be written and
 * emptied.
 */
extern struct mp3_fault_tally *mp3_tally;
extern unsigned int *mp3_tally_used;
extern unsigned int mp3_nr_tally;

/* faultbuffers.c */
/* @vma as a faults record names it. */
void mp3_mapping_of(const struct vm_area_struct *vma, struct mp3_mapping *where);
/* The counters' overflow handler: notes the fault in this CPU's buffer. */
void mp3_fault_note(struct perf_event *event, struct perf_sample_data *data,
		    struct pt_regs *regs);
int __mp3_faults_alloc_buffers(void);
void mp3_faults_free_buffers(void);
/*
 * What @c holds, swapped out into c->spare so that the handler fills the
 * other; *@dropped: the faults it had no room for since the last take.
 */
unsigned int __mp3_faults_take(struct mp3_fault_cpu *c, u64 *dropped);

/* faultcounters.c */
/* The owner numbered @id, NULL once no counter holds it. */
const struct mp3_fault_owner *__mp3_fault_owner_find(u64 id);
/*
 * Under rcu_read_lock(): the owner of the process numbered @tgid now if
 * it is followed, and then its leader (NULL once reaped); else NULL.
 */
const struct mp3_fault_owner *__mp3_faults_followed(pid_t tgid, struct task_struct **leader);
/*
 * The memory map @owner holds, with a reference for the caller
 * (mmput_async()), and its exec generation in *@exec_id; NULL if none.
 */
struct mm_struct *mp3_fault_owner_mm(const struct mp3_fault_owner *owner, u64 *exec_id);
/*
 * The map @owner's last exec replaced, if it still holds it and it is
 * @mm, with a reference for the caller (mmput_async()), and its
 * generation in *@exec_id; else NULL.
 */
struct mm_struct *mp3_fault_owner_replaced_mm(const struct mp3_fault_owner *owner,
					      const struct mm_struct *mm, u64 *exec_id);
/*
 * Around each tick's collection: the maps execs replaced before it began
 * are let go once it has placed their faults.
 */
void __mp3_fault_owners_collection_begin(void);
void __mp3_fault_owners_collection_end(void);
/*
 * Under rcu_read_lock(): the owner numbered @id if its process is still
 * followed, though its number may be gone (reaped since its visit); else NULL.
 */
const struct mp3_fault_owner *__mp3_faults_followed_by_id(u64 id);

#endif /* MP3_FAULTS_H */
