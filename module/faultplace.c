// SPDX-License-Identifier: GPL-2.0
/*
 * Where the faults of processes followed with "maps" are: each tick, after
 * the visits, the sampler takes the CPUs' buffers whole and counts each
 * fault in its mapping: the one that holds its address now, looked up
 * under the process's mmap lock, tried without waiting (a tick never
 * stalls behind a writer), if it is the one the handler read at the fault;
 * else, unmapped or replaced since, the one the handler read. The faults
 * the handler could not look up, of a process whose lock a writer holds,
 * wait for a later tick. Either way only in the memory map the process
 * has (or its owner held for it), in which the fault was taken. The faults of
 * one process in a row form a run, counted per mapping; a process's
 * records in a tick are bounded (its tally), the rest summed into its
 * unresolved record.
 */
#include <linux/bsearch.h>
#include <linux/hash.h>
#include <linux/log2.h>
#include <linux/mm.h>
#include <linux/percpu.h>
#include <linux/pid.h>
#include <linux/pid_namespace.h>
#include <linux/rcupdate.h>
#include <linux/sched/mm.h>
#include <linux/sort.h>
#include <linux/string.h>

#include "faults.h"

/* Mappings a run of faults counts in before it writes them out. */
#define MP3_RUN_MAPPINGS 8
/*
 * Ticks a fault waits for its process's mmap lock (a second at the default
 * period of 50 ms): then not placed.
 */
#define MP3_DEFER_TICKS 20

/* Faults not placed since load, and summed into an unresolved record; under mp3_lock. */
static u64 mp3_faults_dropped_total;
static u64 mp3_faults_summed_total;

/*
 * The faults of one process that come in a row in the buffers, counted per
 * mapping and written out as records when the row ends, or when it has
 * counted in MP3_RUN_MAPPINGS mappings and meets another. The sampler's,
 * under mp3_lock and rcu_read_lock().
 */
struct mp3_fault_run {
	pid_t tgid;			/* 0: none yet */
	bool followed;			/* registered with maps */
	struct mp3_record_tag tag;
	struct mp3_fault_tally *tally;	/* NULL: no room, its faults are dropped */
	/* The process found by its number, and its memory map then: what a fault must match. */
	const struct pid *pid;
	u64 exec_id;
	u64 owner;			/* an owner id found to have that pid; 0: none yet */
	u64 refused;			/* the last one found not to */
	struct mm_struct *mm;		/* held; NULL: its faults are not placed */
	const struct mm_struct *taken_in;	/* its faults' map (compared only): one a run */
	bool locked;			/* mm read-locked: mappings are looked up in it */
	bool busy;			/* a writer held the mmap lock: faults to look up wait */
	unsigned int nr;		/* mappings counted in */
	unsigned int last;		/* the one the last fault was in */
	/* Each one's mapping in mm, once a fault was looked up in it; else NULL. */
	const struct vm_area_struct *vmas[MP3_RUN_MAPPINGS];
	struct mp3_mapping_faults counts[MP3_RUN_MAPPINGS];
};

u64 mp3_faults_dropped(void)
{
	return READ_ONCE(mp3_faults_dropped_total);
}

u64 mp3_faults_summed(void)
{
	return READ_ONCE(mp3_faults_summed_total);
}

static bool mp3_vma_holds(const struct vm_area_struct *vma, unsigned long addr)
{
	return vma->vm_start <= addr && addr < vma->vm_end;
}

static void __mp3_fault_sum(struct mp3_mapping_faults *into, const struct mp3_mapping_faults *m)
{
	into->minor = min_t(u64, (u64)into->minor + m->minor, U32_MAX);
	into->major = min_t(u64, (u64)into->major + m->major, U32_MAX);
	into->minor_ns += m->minor_ns;
	into->major_ns += m->major_ns;
}

/* Within the bound, a record of @m; past it, @m is summed into the unresolved one. */
static void __mp3_fault_tally_write(struct mp3_fault_tally *tally,
				    const struct mp3_mapping_faults *m)
{
	if (tally->records < MP3_TALLY_RECORDS) {
		tally->records++;
		__mp3_buffer_record_faults(tally->tgid, &tally->tag, m);
		return;
	}
	WRITE_ONCE(mp3_faults_summed_total, mp3_faults_summed_total + m->minor + m->major);
	__mp3_fault_sum(&tally->rest, m);
}

static u32 mp3_tally_hash(pid_t tgid, u32 target)
{
	return hash_32((u32)tgid ^ hash_32(target, 32), ilog2(MP3_TALLY_SLOTS));
}

/* The tally of (@tgid, @tag's target) in this tick, begun if new; NULL if MP3_TALLY_MAX are. */
static struct mp3_fault_tally *__mp3_fault_tally(pid_t tgid, const struct mp3_record_tag *tag)
{
	u32 i = mp3_tally_hash(tgid, tag->target);
	struct mp3_fault_tally *t;

	/* Never more than half full: the walk ends at a free slot. */
	for (;; i = (i + 1) & (MP3_TALLY_SLOTS - 1)) {
		t = &mp3_tally[i];
		if (!t->tgid)
			break;
		if (t->tgid == tgid && t->tag.target == tag->target)
			return t;
	}
	if (mp3_nr_tally == MP3_TALLY_MAX)
		return NULL;
	mp3_tally_used[mp3_nr_tally++] = i;
	*t = (struct mp3_fault_tally) {
		.tgid = tgid,
		.tag = *tag,
		.rest.where.kind = MP3_MAPPING_UNRESOLVED,
	};
	return t;
}

/* At the end of the tick: each process's unresolved record; the tallies emptied. */
static void __mp3_fault_tally_end(void)
{
	struct mp3_fault_tally *t;

	for (unsigned int i = 0; i < mp3_nr_tally; i++) {
		t = &mp3_tally[mp3_tally_used[i]];
		if (t->rest.minor || t->rest.major)
			__mp3_buffer_record_faults(t->tgid, &t->tag, &t->rest);
		t->tgid = 0;
	}
	mp3_nr_tally = 0;
}

static void __mp3_fault_run_write(struct mp3_fault_run *run)
{
	for (unsigned int i = 0; i < run->nr; i++)
		__mp3_fault_tally_write(run->tally, &run->counts[i]);
	run->nr = 0;
}

/*
 * The counts of the mapping @where, starting them if it is new to the run;
 * @vma: that mapping in run->mm, if known, where the next faults are
 * looked for first.
 */
static struct mp3_mapping_faults *
__mp3_fault_run_counts(struct mp3_fault_run *run, const struct mp3_mapping *where,
		       const struct vm_area_struct *vma)
{
	unsigned int i;

	for (i = 0; i < run->nr; i++)
		if (!memcmp(&run->counts[i].where, where, sizeof(*where)))
			goto found;
	if (run->nr == MP3_RUN_MAPPINGS)
		__mp3_fault_run_write(run);
	i = run->nr++;
	run->vmas[i] = NULL;
	run->counts[i] = (struct mp3_mapping_faults) { .where = *where };
found:
	if (vma)
		run->vmas[i] = vma;
	run->last = i;
	return &run->counts[i];
}

/*
 * The mapping of run->mm that holds @addr now, NULL if none; *@i: the
 * index of its counts in the run, run->nr if it has none yet.
 */
static const struct vm_area_struct *
__mp3_fault_run_vma(struct mp3_fault_run *run, unsigned long addr, unsigned int *i)
{
	const struct vm_area_struct *vma;

	if (run->nr && run->vmas[run->last] && mp3_vma_holds(run->vmas[run->last], addr)) {
		*i = run->last;
		return run->vmas[*i];
	}
	for (*i = 0; *i < run->nr; (*i)++)
		if (run->vmas[*i] && mp3_vma_holds(run->vmas[*i], addr))
			return run->vmas[*i];
	vma = find_vma(run->mm, addr);
	return vma && vma->vm_start <= addr ? vma : NULL;
}

/* The same file, or anonymous memory of one kind, wherever it starts now. */
static bool mp3_mapping_same(const struct mp3_mapping *a, const struct mp3_mapping *b)
{
	return a->kind == b->kind && a->inode == b->inode && a->dev == b->dev;
}

/*
 * The counts of @f's mapping: the one that holds its address now, if it
 * is the mapping the handler read at the fault or the handler read none
 * (a stack that grew since is one mapping, as the tick finds it); else
 * the one the handler read, unmapped or replaced since; NULL if neither
 * is known.
 */
static struct mp3_mapping_faults *
__mp3_fault_run_mapping(struct mp3_fault_run *run, const struct mp3_fault *f)
{
	bool noted = f->where.kind != MP3_MAPPING_UNRESOLVED;
	const struct vm_area_struct *vma = NULL;
	struct mp3_mapping now;
	unsigned int i = 0;

	if (f->addr && run->locked)
		vma = __mp3_fault_run_vma(run, f->addr, &i);
	if (vma && i < run->nr && (!noted || mp3_mapping_same(&run->counts[i].where, &f->where))) {
		run->last = i;
		return &run->counts[i];
	}
	if (vma && i == run->nr) {
		mp3_mapping_of(vma, &now);
		if (!noted || mp3_mapping_same(&now, &f->where))
			return __mp3_fault_run_counts(run, &now, vma);
	}
	return noted ? __mp3_fault_run_counts(run, &f->where, NULL) : NULL;
}

/* Keeps @f for the next tick; false if it waited long enough, or no room is left. */
static bool __mp3_fault_wait(const struct mp3_fault *f)
{
	if (f->ticks + 1 >= MP3_DEFER_TICKS || mp3_nr_waiting == MP3_FAULTS_DEFERRED)
		return false;
	mp3_faults_waiting[mp3_nr_waiting] = *f;
	mp3_faults_waiting[mp3_nr_waiting++].ticks++;
	return true;
}

/*
 * Whether @f was taken in run->mm: by the process the run found (an owner
 * that holds its PID, which nobody else can have meanwhile), in the exec
 * generation and memory map it has now.
 */
static bool __mp3_fault_run_owns(struct mp3_fault_run *run, const struct mp3_fault *f)
{
	const struct mp3_fault_owner *owner;

	if (f->exec_id != run->exec_id || f->mm != run->mm)
		return false;
	if (f->owner == run->owner)
		return true;
	if (f->owner == run->refused)
		return false;
	/* Gone: its counters were released, and its process left since. */
	owner = __mp3_fault_owner_find(f->owner);
	if (!owner || owner->pid != run->pid) {
		run->refused = f->owner;
		return false;
	}
	run->owner = f->owner;
	return true;
}

static void __mp3_fault_run_count(struct mp3_fault_run *run, const struct mp3_fault *f)
{
	struct mp3_mapping_faults *m = NULL;

	if (run->busy && f->where.kind == MP3_MAPPING_UNRESOLVED && __mp3_fault_wait(f))
		return;
	if (!run->tally) {
		mp3_faults_dropped_total++;
		return;
	}
	if (run->mm && __mp3_fault_run_owns(run, f))
		m = __mp3_fault_run_mapping(run, f);
	if (!m)
		m = &run->tally->rest;
	if (f->major) {
		m->major++;
		m->major_ns += f->ns;
	} else {
		m->minor++;
		m->minor_ns += f->ns;
	}
}

/* Writes out the run's counts; its address space is let go asynchronously. */
static void __mp3_fault_run_end(struct mp3_fault_run *run)
{
	if (!run->followed)
		return;
	if (run->tally)
		__mp3_fault_run_write(run);
	if (run->locked)
		mmap_read_unlock(run->mm);
	if (run->mm)
		mmput_async(run->mm);
}

void __mp3_faults_departed(const struct list_head *threads, const struct mp3_measured *m,
			   bool place)
{
	lockdep_assert_held(&mp3_lock);

	if (mp3_departed && mp3_nr_departed < MP3_DEPARTED_MAX)
		mp3_departed[mp3_nr_departed++] = (struct mp3_departed) {
			.tgid = pid_nr(m->pid), .place = place,
			.owner = list_first_entry(threads, struct mp3_fault_thread, node)->owner,
		};
}

static int mp3_departed_cmp(const void *a, const void *b)
{
	const struct mp3_departed *x = a, *y = b;

	return x->tgid < y->tgid ? -1 : x->tgid > y->tgid;
}

/* Whether @tgid left in this tick: its departed record, or NULL. */
static struct mp3_departed *__mp3_faults_was_departed(pid_t tgid)
{
	const struct mp3_departed key = { .tgid = tgid };

	return bsearch(&key, mp3_departed, mp3_nr_departed, sizeof(*mp3_departed),
		       mp3_departed_cmp);
}

/*
 * The memory map a run's faults are placed in, and the process it is
 * @leader's: its map now, or, once it has none (it exited), the one its
 * counters' @owner holds. The generation is read before the memory map,
 * which an exec replaces first: an exec in between gives the new map with
 * the old generation, which only faults taken in the new map carry (see
 * struct mp3_fault).
 */
static void __mp3_fault_run_find(struct mp3_fault_run *run, struct task_struct *leader,
				 const struct mp3_fault_owner *owner)
{
	/* Compared with the owners' held PIDs only. */
	run->pid = leader ? task_tgid(leader) : owner->pid;
	if (leader) {
		run->exec_id = READ_ONCE(leader->self_exec_id);
		run->mm = get_task_mm(leader);
	}
	if (!run->mm && owner && owner->pid == run->pid)
		run->mm = mp3_fault_owner_mm(owner, &run->exec_id);
}

/*
 * A departed process's: the map its counters' owner holds, or, when its
 * owner holds none, the process numbered tgid now (one that left its
 * target runs on; an exited one's number may be another process's, which
 * its faults' owner tells). None if it may not be placed.
 */
static void __mp3_fault_run_departed(struct mp3_fault_run *run, const struct mp3_departed *d)
{
	struct task_struct *leader;

	if (!d->place)
		return;
	__mp3_fault_run_find(run, NULL, d->owner);
	if (run->mm)
		return;
	leader = pid_task(find_pid_ns(d->tgid, &init_pid_ns), PIDTYPE_TGID);
	if (leader)
		__mp3_fault_run_find(run, leader, NULL);
}

/*
 * A fault from before its process's last exec: placed in the map the exec
 * replaced, if the owner still holds it, instead of the run's.
 */
static void __mp3_fault_run_replaced(struct mp3_fault_run *run,
				     const struct mp3_fault_owner *owner, const struct mp3_fault *f)
{
	u64 exec_id;
	struct mm_struct *replaced = mp3_fault_owner_replaced_mm(owner, f->mm, &exec_id);

	if (!replaced)
		return;
	if (run->mm)
		mmput_async(run->mm);
	run->mm = replaced;
	run->exec_id = exec_id;
}

/*
 * A run of the faults of @f's process: followed if its counters are, or it
 * just left. One whose number is gone (exited and reaped between its
 * visit and now) is still followed by its counters' owner, which @f names.
 */
static void __mp3_fault_run_begin(struct mp3_fault_run *run, const struct mp3_fault *f)
{
	pid_t tgid = f->tgid;
	const struct mp3_fault_owner *owner;
	struct mp3_departed *departed = NULL;
	struct task_struct *leader = NULL;

	*run = (struct mp3_fault_run) { .tgid = tgid, .taken_in = f->mm };
	owner = __mp3_faults_followed(tgid, &leader);
	if (!owner)
		departed = __mp3_faults_was_departed(tgid);
	if (!owner && !departed)
		owner = __mp3_faults_followed_by_id(f->owner);
	if (departed)
		owner = departed->owner;
	run->followed = !!owner;
	if (owner)
		run->tag = owner->tag;
	if (!run->followed)
		return;
	run->tally = __mp3_fault_tally(tgid, &run->tag);
	if (!run->tally)
		return;
	if (departed)
		__mp3_fault_run_departed(run, departed);
	else
		__mp3_fault_run_find(run, leader, owner);
	if (run->mm != f->mm && (!departed || departed->place))
		__mp3_fault_run_replaced(run, owner, f);
	if (run->mm)
		run->locked = mmap_read_trylock(run->mm);
	/*
	 * Its faults not placed at the fault wait; a departed one is not
	 * found at the next tick: those are unresolved now.
	 */
	run->busy = run->mm && !run->locked && !departed;
}

/*
 * Counts each of @n faults in its run, a new run at each change of process
 * or of the map it took them in (around an exec).
 */
static void __mp3_faults_place(struct mp3_fault_run *run, const struct mp3_fault *faults,
			       unsigned int n)
{
	for (const struct mp3_fault *f = faults; f < faults + n; f++) {
		if (f->tgid != run->tgid || f->mm != run->taken_in) {
			__mp3_fault_run_end(run);
			__mp3_fault_run_begin(run, f);
		}
		if (run->followed)
			__mp3_fault_run_count(run, f);
		else if (f->ticks)
			/* It waited for a process that left since: counted, not placed. */
			mp3_faults_dropped_total++;
	}
}

/*
 * Each tick, after the visits: the faults that waited for their process's
 * mmap lock, then those noted since the last tick, as records of the
 * processes followed or that left in the visits.
 */
void __mp3_faults_collect(void)
{
	struct mp3_fault_run run = {};
	struct mp3_fault_cpu *c;
	unsigned int waited, len;
	u64 dropped;
	int cpu;

	lockdep_assert_held(&mp3_lock);

	if (mp3_fault_cpus) {
		__mp3_fault_owners_collection_begin();
		sort(mp3_departed, mp3_nr_departed, sizeof(*mp3_departed), mp3_departed_cmp, NULL);
		rcu_read_lock();
		swap(mp3_faults_waiting, mp3_faults_waiting_spare);
		waited = mp3_nr_waiting;
		mp3_nr_waiting = 0;
		__mp3_faults_place(&run, mp3_faults_waiting_spare, waited);
		for_each_possible_cpu(cpu) {
			c = per_cpu_ptr(mp3_fault_cpus, cpu);
			/* Taken first: it swaps c->spare in. */
			len = __mp3_faults_take(c, &dropped);
			mp3_faults_dropped_total += dropped;
			__mp3_faults_place(&run, c->spare, len);
		}
		__mp3_fault_run_end(&run);
		rcu_read_unlock();
		__mp3_fault_tally_end();
		__mp3_fault_owners_collection_end();
		mp3_nr_departed = 0;
	}
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
