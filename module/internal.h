/* SPDX-License-Identifier: GPL-2.0 */
/*
 * mp3: internal interfaces between the parts of the module.
 *
 * Each file calls only into those below it here, and uses only their data
 * but mp3_lock (tasks.h has the order of the files that keep the registered
 * processes; make check-static checks it: tests/module-layers.py):
 *
 * main.c     load/unload, and the module parameters read at load
 * status.c   /proc/mp3/status: the commands, judged by the opener
 * chardev.c  the character device: mmap, read and poll
 * core.c     mp3_lock, and what takes it for several parts: registration,
 *            and who owns a target
 * sampler.c  the periodic delayed work item: the visit, the faults, the sample
 * follow.c, visit.c, registrations.c, members.c, registry.c
 *            the registered processes (tasks.h): the probes on forks,
 *            exits, execs, renames, moves between cgroups and wakeups,
 *            the sample's visit, registration, the entries
 * groups.c   the followed cgroups ("C") and command names ("N")
 * measures.c what a registration may measure beyond counts, one table of
 *            struct mp3_measure: the core and the registry know no other
 * maps.c     where the faults are ("maps"), a measure
 * newborn.c  a process forked into a target with maps makes its own
 *            counters before its first instruction (a task work)
 * latency.c  how long the faults take ("latency"), a measure: a return
 *            probe on the fault handler
 * pages.c, swapout.c, swapin.c, refaults.c, swapnotes.c
 *            which pages go to swap and back, and which pages of files
 *            are read again ("pages", pages.h), a measure: a tracepoint
 *            and probes in reclaim, the swap-in fault and the page cache
 * retries.c  the time of a fault's attempts that will be retried, held
 *            for the thread until its last (latency.c, swapin.c)
 * faultplace.c, faultcounters.c, faultbuffers.c
 *            where the faults are (faults.h): per-thread perf counters,
 *            placed in mappings
 * buffer.c   the vmalloc()ed buffer and sample publication
 * budget.c   what one user's commands may cost everyone else
 * access.c   who may read a process, and who owns a registration
 * walk.c     a walk over every process that holds nothing for long
 * compat.h   what differs between the kernel versions the module supports
 *
 * What every part may read of a process is in counters.h.
 */
#ifndef MP3_INTERNAL_H
#define MP3_INTERNAL_H

#include <linux/bits.h>
#include <linux/mutex.h>
#include <linux/types.h>
#include <linux/uidgid.h>
#include <linux/wait.h>
#include <linux/mp3.h>

struct cgroup;
struct cred;
struct file;
struct list_head;
struct mp3_fault_thread;
struct mp3_task;
struct seq_file;
struct task_struct;

/*
 * Delay accounting's kinds of wait, in the order of struct mp3_stalls
 * (include/uapi/linux/mp3.h).
 */
enum mp3_delay {
	MP3_DELAY_SWAPIN,
	MP3_DELAY_THRASHING,
	MP3_DELAY_RECLAIM,
	MP3_DELAY_COMPACT,
	MP3_DELAY_BLKIO,
	MP3_DELAYS
};

/* What one sampling period adds up to over all registered processes. */
struct mp3_sample_values {
	u64 minor_faults;
	u64 major_faults;
	u64 cpu_ns;
	u64 stall_us[MP3_DELAYS];	/* whole microseconds of the waits */
	u32 nr_procs;
};

/* What a registration may measure beyond counts (struct mp3_measure, below). */
enum mp3_measure_id {
	MP3_MEASURE_MAPS,
	MP3_MEASURE_LATENCY,
	MP3_MEASURE_PAGES,
	MP3_MEASURES
};

/* A set of measures is an unsigned int of MP3_MEASURE(id) bits. */
#define MP3_MEASURE(id) BIT(id)

/*
 * mp3_lock (core.c) protects the list of registered processes, the list of
 * those the next sample visits and their counter snapshots (tasks.h), the
 * followed groups (groups.c), the fault counters of "maps" registrations
 * and the taking of the fault buffers (faults.h), the sampler's running
 * state (sampler.c) and makes the buffer single-writer (buffer.c: samples,
 * and records, which wait for the next sample). Functions named __mp3_*
 * expect it held.
 */
extern struct mutex mp3_lock;

/*
 * @target: 0 for the process alone, else its tree's number ("T");
 * @measures: what it measures beyond counts ("R <pid> maps latency").
 */
int mp3_register(const struct file *file, pid_t nr, u32 target, unsigned int measures);
int mp3_unregister(const struct file *file, pid_t nr);
int mp3_unregister_target(const struct file *file, u32 target);
/* ENOENT also for a cgroup outside @visible_root, the opener's cgroup namespace's. */
int mp3_register_cgroup(const struct file *file, u64 cgroup_id, struct cgroup *visible_root,
			u32 target);
/* A command name's group: its processes', or only those whose real uid is uid (if valid). */
struct mp3_name {
	const char *comm;
	kuid_t uid;
};

/* "N" (@name->uid invalid), "P": EINVAL for a uid the opener's user namespace does not map. */
int mp3_register_comm(const struct file *file, const struct mp3_name *name, u32 target);
/*
 * "M <target>", "L <target>", "S <target> [charged]": its processes have
 * the measure @id, now and later; @charged: see __mp3_groups_set_measure().
 */
int mp3_measure_target(const struct file *file, u32 target, enum mp3_measure_id id,
		       bool charged);
/*
 * The registered PIDs the reader may read (the ptrace read rule), one a
 * line; takes no lock but RCU's.
 */
void mp3_tasks_show(struct seq_file *m);
/* Around the taking of a sample: the listing waits for it to end (mp3_tasks_show()). */
void __mp3_tasks_sample_begin(void);
void __mp3_tasks_sample_end(void);
void mp3_release_all(void);

/*
 * What a process's records say besides its number: its target, and whose
 * registration it is, to which they are charged (mp3.h, version 9): an
 * administrator's, or the user's who pays (mp3_payer()), as numbered in
 * the initial user namespace.
 */
struct mp3_record_tag {
	u32 target;
	u32 owner;	/* 0 for an administrator */
	bool admin;
};

/*
 * @active_only: a process gets records only in the samples that visit it.
 * @per_user: records of one user's registrations in a sample, at most.
 */
int mp3_buffer_create(u64 period_ns, bool records, bool active_only, unsigned int per_user);
void mp3_buffer_destroy(void);
/*
 * One process's record in the sample being gathered; tgid in the initial PID
 * namespace. Nothing when the module was loaded with records=off, nor when
 * the record's owner wrote all it may in this sample (it is counted).
 * @delta's waits are read only if @waited (one grew): most periods have none.
 */
void __mp3_buffer_record_counts(u32 tgid, const struct mp3_record_tag *tag,
				const struct mp3_sample_values *delta, bool waited);
void __mp3_buffer_record_comm(u32 tgid, const struct mp3_record_tag *tag, const char *comm);
void __mp3_buffer_record_left(u32 tgid, const struct mp3_record_tag *tag);

/* A mapping as a faults record names it; no padding: compared whole. */
struct mp3_mapping {
	u64 start;
	u64 inode;
	u32 dev;	/* new_encode_dev() of its file's device */
	u32 kind;	/* MP3_MAPPING_*, MP3_MAPPING_UNRESOLVED: none */
};

static_assert(sizeof(struct mp3_mapping) == 24);

/* A process's faults in one mapping in the period (MP3_RECORD_FAULTS). */
struct mp3_mapping_faults {
	struct mp3_mapping where;
	u32 minor;
	u32 major;
	/* With latency: the time of those of them whose time is known. */
	u64 minor_ns;
	u64 major_ns;
};

void __mp3_buffer_record_faults(u32 tgid, const struct mp3_record_tag *tag,
				const struct mp3_mapping_faults *m);

/*
 * A page of a process to swap or back (type MP3_RECORD_SWAP), of a
 * followed cgroup to swap with no process (MP3_RECORD_CGROUP_SWAP: no
 * address), or a page of a file a process read again (MP3_RECORD_REFAULT:
 * offset is the page's index in the file, inode and dev the file's;
 * address, device and event 0).
 */
struct mp3_swap_event {
	u64 address;
	u64 offset;
	u64 inode;
	u64 time_ns;
	u64 stall_ns;
	u64 pages;
	u32 type;
	u32 device;
	u32 event;	/* MP3_SWAP_* */
	u32 mapping;	/* MP3_MAPPING_ANON, MP3_MAPPING_SHMEM or MP3_MAPPING_FILE */
	u32 dev;	/* new_encode_dev() of the file's device */
};

void __mp3_buffer_record_page(u32 tgid, const struct mp3_record_tag *tag,
			      const struct mp3_swap_event *e);

/* Whether records wait for a sample to carry them. */
bool __mp3_buffer_records_pending(void);
/*
 * What was lost since load, which the ring's header shows: processes not
 * followed (unreadable to their registrant, or no memory), faults not
 * placed (a full buffer, too many processes in a tick) and faults summed
 * into an unresolved record (MP3_FAULT_RECORDS_MAX reached), faults not
 * timed.
 */
struct mp3_losses {
	u64 follow_skipped;
	u64 follow_missed;
	u64 faults_dropped;
	u64 faults_summed;
	u64 latency_missed;
	u64 swap_dropped;
};

void __mp3_buffer_publish(const struct mp3_sample_values *values,
			  const struct mp3_losses *losses, u64 cost_ns);
u64 mp3_buffer_head(void);
/*
 * The readers of the device wait on this queue for a sample; the sampler
 * wakes them once it published one and let go of mp3_lock.
 */
wait_queue_head_t *mp3_buffer_readers(void);
void mp3_buffer_wake_readers(void);
int mp3_buffer_mmap(struct vm_area_struct *vma);

/*
 * Who registered something (a process, a tree, a group): the opener of
 * /proc/mp3/status then, by whose right what joins later is judged and
 * whose owner alone, or an administrator, may end or change it.
 */
struct mp3_registrant {
	const struct cred *cred;	/* the opener's, held */
	bool privileged;		/* CAP_SYS_PTRACE over the initial user namespace */
	u32 payer;			/* mp3_payer(cred) in the initial user namespace */
};

/*
 * What a registration may measure beyond its counts: where its faults are
 * (maps.c) and how long they take (latency.c). Each is a struct
 * mp3_measure in measures.c's table; a process, a group or a walk holds a
 * set of them (MP3_MEASURE() bits, above), and a process the state each keeps
 * for it. The core and the registry call measures.c's mp3_measures_*(),
 * never a measure itself.
 */
struct mp3_counters;

/* A followed group, as the measures see it. */
struct mp3_group_view {
	/* A cgroup's, held until a grace period after group_put; NULL: a name's. */
	struct cgroup *cgrp;
	bool charged;			/* its cgroup's page events of no process are its own */
	struct mp3_record_tag tag;	/* what its members' records say of whose they are */
	u64 order;			/* of its addition: the first added wins */
};

/* What a measure knows of the process it measures. */
struct mp3_measured {
	struct pid *pid;			/* its thread-group leader's, held */
	struct mp3_record_tag tag;
	const struct mp3_registrant *registrant;
	unsigned int measures;		/* all it has: one may work with another */
	const struct mp3_counters *last;	/* its counts at the last sample */
	/* Joining at its fork, not yet run: its task; NULL for others. */
	struct task_struct *newborn;
};

/*
 * One measure. A hook it does not need is NULL. Hooks named __ are called
 * with mp3_lock held; hashed and unhashed with mp3_hash_lock held too, and
 * attach also from the probes (gfp GFP_ATOMIC): those do not sleep.
 */
struct mp3_measure {
	/* Whether @file's opener may ask for it: 0, or -EPERM. */
	int (*allowed)(const struct file *file);
	/* Before a process or group is given it: what it needs armed. Sleeps. */
	int (*__arm)(void);
	/*
	 * A process is given it: the state it keeps for it, or NULL (no
	 * memory). @m->last: its counts from which it is measured, or NULL
	 * for a registration, whose counts are read after __follow.
	 */
	void *(*attach)(const struct mp3_measured *m, gfp_t gfp);
	/* The process became visible to the probes; it stopped being. */
	void (*hashed)(void *state, const struct mp3_measured *m);
	void (*unhashed)(void *state);
	/*
	 * What the process needs that sleeps (perf counters): tried when it is
	 * given the measure and before each sample until it returns 0.
	 */
	int (*__follow)(void *state, const struct mp3_measured *m);
	/* A registration's counts were read just now: it measures from here. */
	void (*__counted)(void *state);
	/* The process's set of measures (@m->measures) grew. */
	void (*__changed)(void *state, const struct mp3_measured *m);
	/* Each sample's visit of the process: its records. Under rcu_read_lock() too. */
	void (*__visit)(void *state, const struct mp3_measured *m);
	/*
	 * The process exec'd: called in it (@task, current), right after, by
	 * the exec probe, under rcu_read_lock() and without mp3_lock, so it
	 * reaches no state but its own locked one. Does not sleep.
	 */
	void (*exec)(struct task_struct *task);
	/*
	 * Its process is gone (exited, or left its target) in this visit: what
	 * it noted goes into this sample, placed in its mappings if @place.
	 */
	void (*__gone)(void *state, const struct mp3_measured *m, bool place);
	/* It is removed, gone or not; what it holds is let go (__reap). */
	void (*__leave)(void *state, const struct mp3_measured *m);
	/* Once no probe can see the state: freed. Does not sleep. */
	void (*release)(void *state);
	/*
	 * A followed group has it: what it needs stays armed while the group
	 * lives. 0, or -ENOMEM: the group has it not.
	 */
	int (*group_get)(const struct mp3_group_view *g);
	void (*group_put)(const struct mp3_group_view *g);
	/* Each tick, after the visits. */
	void (*__tick)(void);
	/* Each tick after __tick, and after a failed registration: what was let go. Sleeps. */
	void (*__reap)(void);
	/* What it lost since load, into the ring's header. */
	void (*__losses)(struct mp3_losses *losses);
	/* At unload, once nothing has it. */
	void (*__stop)(void);
};

/* The measures, in measures.c's table; the sets below are of these. */
extern const struct mp3_measure mp3_maps_measure, mp3_latency_measure, mp3_pages_measure;

/*
 * newborn.c: a process that joins a target with maps at its fork, before
 * it runs. Queued: on its way to its first instruction it makes its own
 * counters (NULL: not queued, no memory). Taken under mp3_lock: what it
 * made joins @threads, with its counts then in *@counts (0); -EINPROGRESS
 * while it has not run, unless @leaving, when it will make none; -ENOENT:
 * it made none, the tick makes them. Released with its process's state.
 */
struct mp3_newborn;
struct mp3_newborn *mp3_newborn_queue(struct task_struct *child, const struct mp3_measured *m,
				      gfp_t gfp);
int __mp3_newborn_take(struct mp3_newborn *nb, struct list_head *threads,
		       struct mp3_counters *counts, bool leaving);
void mp3_newborn_release(struct mp3_newborn *nb);
/* At unload, once no probe runs: waits for the works queued to have run. Sleeps. */
void mp3_newborns_drain(void);

/* 0 if @file's opener may ask for each of @set, else -EPERM. */
int mp3_measures_allowed(const struct file *file, unsigned int set);
int __mp3_measures_arm(unsigned int set);
/* Those of @set given to the process, each with its state in @state[] (the others: no memory). */
unsigned int mp3_measures_attach(void *state[MP3_MEASURES], const struct mp3_measured *m,
				 unsigned int set, gfp_t gfp);
/* Those of @set, of the process @m says (m->measures: all it has). */
void mp3_measures_hashed(void *const state[MP3_MEASURES], const struct mp3_measured *m,
			 unsigned int set);
void mp3_measures_unhashed(void *const state[MP3_MEASURES], unsigned int set);
/* Those of @pending still to follow after trying each: the first error in *@err. */
unsigned int __mp3_measures_follow(void *const state[MP3_MEASURES],
				   const struct mp3_measured *m, unsigned int pending, int *err);
void __mp3_measures_counted(void *const state[MP3_MEASURES], unsigned int set);
void __mp3_measures_changed(void *const state[MP3_MEASURES], const struct mp3_measured *m);
void __mp3_measures_visit(void *const state[MP3_MEASURES], const struct mp3_measured *m);
void mp3_measures_exec(unsigned int set, struct task_struct *task);
void __mp3_measures_gone(void *const state[MP3_MEASURES], const struct mp3_measured *m,
			 bool place);
void __mp3_measures_leave(void *const state[MP3_MEASURES], const struct mp3_measured *m);
void mp3_measures_release(void *const state[MP3_MEASURES], unsigned int set);
/* A followed group has measure @id from now on: 0, or its group_get's error. */
int mp3_measures_group_get(enum mp3_measure_id id, const struct mp3_group_view *g);
void mp3_measures_group_put(unsigned int set, const struct mp3_group_view *g);
void __mp3_measures_tick(void);
void __mp3_measures_reap(void);
void __mp3_measures_losses(struct mp3_losses *losses);
void __mp3_measures_stop(void);

/*
 * A user's right to walk every process: one walk at a time per user (as
 * the kernel charges ucounts: up the user namespaces), none needed by an
 * administrator. mp3_walk_slot_take() waits, killably, for the user's other
 * walk to end: 0 or -EINTR. Taken before mp3_lock, given back after it.
 */
struct mp3_walk_slot {
	struct list_head node;	/* on budget.c's list while taken */
	kuid_t payer;
};

int mp3_walk_slot_take(struct mp3_walk_slot *slot, const struct file *file);
void mp3_walk_slot_give_back(struct mp3_walk_slot *slot);

/* The ptrace read rule, for whoever opened @file. */
bool mp3_may_read(const struct file *file, struct task_struct *task);
/* An administrator: CAP_SYS_PTRACE over the initial user namespace. */
bool mp3_file_privileged(const struct file *file);
void mp3_registrant_init(struct mp3_registrant *r, const struct file *file);
void mp3_registrant_copy(struct mp3_registrant *to, const struct mp3_registrant *from);
void mp3_registrant_release(struct mp3_registrant *r);
/* The rule again, as @r may still apply it; under rcu_read_lock(), not sleeping. */
bool mp3_registrant_may_read(const struct mp3_registrant *r, struct task_struct *task);
/* What the records of @r's registration of @target say of whose they are. */
struct mp3_record_tag mp3_registrant_tag(const struct mp3_registrant *r, u32 target);
/* The real user who pays for what @cred's holder asks, up the user namespaces. */
kuid_t mp3_payer(const struct cred *cred);
/*
 * Whether @file's opener is @r's owner: the same user in the same user
 * namespace, or both administrators.
 */
bool mp3_registrant_is_opener(const struct mp3_registrant *r, const struct file *file);
/* Whether @file's opener may end or change what @r registered: its owner, or an administrator. */
bool mp3_registrant_owned_by(const struct mp3_registrant *r, const struct file *file);

/* The process numbered @nr where @file's /proc is mounted, if its opener may read it. */
struct mp3_task *mp3_task_create(const struct file *file, pid_t nr, u32 target,
				 unsigned int measures);
void mp3_task_destroy(struct mp3_task *entry);
int __mp3_tasks_add(struct mp3_task *entry);
/*
 * What a target holds now joins it (mp3_walk_processes(): -EINTR if the
 * writer is killed meanwhile; the tree's also -ENOMEM). Between batches of
 * the walk @pause() lets go of mp3_lock and takes it again (0, or -errno
 * to stop): nothing the caller read under the lock holds after these
 * return. A target ended meanwhile ("X") ends the walk, with 0. Sleeps.
 */
int __mp3_tasks_add_descendants(const struct file *file, struct mp3_task *root,
				int (*pause)(void));
int __mp3_tasks_add_group_members(const struct file *file, u32 target, int (*pause)(void));
/*
 * What "X" (@ended), "M" and "L" (@measures) of a target tell the walks
 * adding to it.
 */
void __mp3_walks_tell(u32 target, bool ended, unsigned int measures);
int __mp3_tasks_remove_pid(const struct file *file, pid_t nr);
/*
 * The registrant of @target's processes, NULL if it has none. All of a
 * target's have one owner (core.c, __mp3_target_claim()).
 */
const struct mp3_registrant *__mp3_tasks_registrant(u32 target);
/*
 * @target's processes have measure @id from now on: -ENOMEM for one
 * without memory for it. What it needs that sleeps comes next.
 */
int __mp3_tasks_measure_target(u32 target, enum mp3_measure_id id);
/*
 * What the processes' measures need that sleeps (maps' counters), for
 * those that joined since or could not have it then (tried again at the
 * next call: the first error is returned). Sleeps.
 */
int __mp3_tasks_follow_measures(void);
void __mp3_tasks_remove_target(u32 target);
bool __mp3_tasks_collect(struct mp3_sample_values *values);
void __mp3_tasks_destroy_all(void);
/* Processes not followed since load: unreadable to their registrant, or no memory. */
u64 mp3_tasks_skipped(void);
u64 mp3_tasks_missed(void);

/*
 * Where the faults are (faults.h). Following: counters on every thread of
 * @leader's process (of @target) that has none on @threads yet (sleeps);
 * on an error, those created stay on @threads. Its faults are placed from
 * then on. Unfollowing ends that and moves the counters to be released by
 * __mp3_faults_release().
 */
int __mp3_faults_follow(struct task_struct *leader, const struct mp3_record_tag *tag,
			struct list_head *threads);
/*
 * Right after the counts of a process given counters by __mp3_faults_follow()
 * are read: the new counters note its faults from now on (before, none).
 */
void __mp3_faults_count_from_now(struct list_head *threads);
/*
 * A process just forked, before its first instruction (a task work; no
 * mp3_lock, sleeps): counters of its own, or an error. Published, its
 * faults are placed from then on; adopted under mp3_lock, they are its
 * threads' like any. Or released, never published.
 */
struct mp3_fault_thread *mp3_faults_follow_self(const struct mp3_record_tag *tag);
void mp3_faults_publish_self(struct mp3_fault_thread *thread);
void mp3_faults_release_self(struct mp3_fault_thread *thread);
void __mp3_faults_adopt_self(struct mp3_fault_thread *thread, struct list_head *threads);
void __mp3_faults_unfollow(struct list_head *threads);
/* The counters unfollowed, released: each tick after the collection, and at unload. Sleeps. */
void __mp3_faults_release(void);
/*
 * A process with counters (@threads) left in this tick's visits (exited,
 * or left its target): the faults it took since the last tick still go
 * into records, placed in its mappings if @place (in the memory map its
 * counters hold: an exited one's own is gone), else all in its unresolved
 * record: no mapping of it is looked at.
 */
void __mp3_faults_departed(const struct list_head *threads, const struct mp3_measured *m,
			   bool place);
/*
 * A process followed exec'd (@task, current, right after; under
 * rcu_read_lock()): its counters hold its new memory map from now on.
 */
void mp3_faults_exec(struct task_struct *task);
/* Each tick, after the visits: the faults since the last one, as records. */
void __mp3_faults_collect(void);
/*
 * Faults not placed since load: a CPU's buffer was full, more than 4096
 * processes took faults in one tick, or a fault waited for the mmap lock
 * of a process that left meanwhile.
 */
u64 mp3_faults_dropped(void);
/* Faults summed in their process's unresolved record since load: MP3_FAULT_RECORDS_MAX reached. */
u64 mp3_faults_summed(void);
/* At unload, once nothing is followed. */
void mp3_faults_destroy(void);

/*
 * Right after the fault of @current at @address noted by mp3_fault_note()
 * returned, from the probe: that fault took @ns. Not joined if the thread
 * changed CPU between the two. faultbuffers.c.
 */
void mp3_fault_note_time(unsigned long address, u64 ns);
void __mp3_buffer_record_latency(u32 tgid, const struct mp3_record_tag *tag, bool major,
				 unsigned int bucket, u64 faults, u64 ns);

/*
 * retries.c: threads of one process between a retried attempt and the
 * next, at most: beyond, the one held longest is forgotten (a thread killed
 * after its attempt retried never comes back for it).
 */
#define MP3_RETRIES_HELD 16

/* A thread's fault that returned VM_FAULT_RETRY: the time it took so far. */
struct mp3_retry {
	const struct task_struct *task;	/* compared only; NULL: a free slot */
	pid_t pid;			/* with task: not a new thread in a dead one's struct */
	unsigned long address;
	u64 ns;
	u64 held_at;			/* the clock at the last hold */
};

/* The retried attempts of one process's threads. */
struct mp3_retries {
	/* Protects nr and held (nr is read without it to pass by when 0). */
	raw_spinlock_t lock;
	unsigned int nr;
	struct mp3_retry held[MP3_RETRIES_HELD];
};

/* The clock of the probes on faults: CLOCK_MONOTONIC, safe as in an NMI. */
u64 mp3_fault_clock(void);
void mp3_retries_init(struct mp3_retries *r);
/* Holds the time of current's attempt at @address, which will be retried; @now: its return. */
void mp3_retries_hold(struct mp3_retries *r, unsigned long address, u64 ns, u64 now);
/* What current's earlier attempts at @address took; none is held for it after. */
u64 mp3_retries_take(struct mp3_retries *r, unsigned long address);

/*
 * Whether samples visit only the processes that may have changed (the
 * wakeup probes run) rather than every registered one. Set at load,
 * before anything is registered; constant after.
 */
extern bool mp3_event_sampling;

/* Where a process is, or is about to be: what decides its group. */
struct mp3_place {
	struct cgroup *cgrp;	/* on the default hierarchy */
	const char *comm;
	kuid_t uid;		/* its real uid: a name's group may be one user's ("P") */
};

/* The followed groups: a cgroup (by id, held from now on) or a command name. */
/*
 * -ENOSPC beyond MP3_CGROUPS_MAX or MP3_COMMS_MAX, or, for a user not an
 * administrator, beyond MP3_GROUPS_PER_USER of a kind, or beyond what users
 * together may take (MP3_GROUPS_RESERVED are kept for administrators).
 */
int __mp3_groups_add_cgroup(const struct file *file, u64 id, struct cgroup *visible_root,
			    u32 target);
int __mp3_groups_add_comm(const struct file *file, const struct mp3_name *name, u32 target);
/* Whether there was one for target; it is gone when this returns. */
bool __mp3_groups_remove(u32 target);
/* The registrant of @target's group, NULL if it has none. */
const struct mp3_registrant *__mp3_groups_registrant(u32 target);
/* Whether any group is followed: a process may join at any fork. */
bool __mp3_groups_followed(void);
void __mp3_groups_remove_all(void);
/* What a process joins: its parent's tree, or a followed group holding its place. */
struct mp3_joining {
	u32 target;	/* 0: none */
	bool tree;	/* its children join the target at their fork */
	unsigned int measures;	/* the target's ("M", "L") */
	/* By whose right it joins; valid under rcu_read_lock() or mp3_lock. */
	const struct mp3_registrant *registrant;
	/*
	 * A group's: true once "X" ended it, when nobody joins it any more
	 * (read under mp3_hash_lock); NULL for others.
	 */
	const bool *ended;
	bool newborn;	/* it joins at its fork, before it runs */
};

/*
 * Under rcu_read_lock(), from the probes: the group @task joins at @place,
 * in *@joining (target 0: none). Of the groups holding @place whose
 * registrant may read @task, an administrator's comes first, then the
 * first added. Returns whether a group holds @place, readable or not.
 */
bool mp3_groups_target_of(const struct mp3_place *place, struct task_struct *task,
			  struct mp3_joining *joining);
/* Whether @target's group holds @place; under rcu_read_lock() or mp3_lock. */
bool mp3_groups_holds(u32 target, const struct mp3_place *place);
/* Whether an administrator's group holds @place: it takes a user's processes there. */
bool mp3_groups_privileged_holds(const struct mp3_place *place);
/*
 * If @target has a group, its members join with measure @id from now on:
 * 0, or -ENOMEM (the measure's group_get had none; the group has it not).
 * With @charged (pages only), the page events of no process of the pages
 * charged to a cgroup are the group's too (struct mp3_group_view):
 * -EINVAL if @target is not a cgroup's, -EBUSY if it has the measure
 * without them. Asked for, never given: a reader that does not ask sees
 * no record of no process.
 */
int __mp3_groups_set_measure(u32 target, enum mp3_measure_id id, bool charged);

/* *@events: asked for, and then whether the wakeup probes are used. */
int mp3_follow_init(bool *events);
/* While anything is followed (the sampler runs): the probes are attached. */
int __mp3_follow_attach(void);
void __mp3_follow_detach(void);
/* Detaches them and waits until none runs: at unload. */
void mp3_follow_stop(void);

void mp3_sampler_init(u64 period_ns);
void __mp3_sampler_start(void);
bool __mp3_sampler_running(void);
void mp3_sampler_stop_sync(void);

/*
 * @visit(leader, @arg) for each process, under rcu_read_lock(), which it
 * lets go between batches, and calls @between(@arg) there: 0, -EINTR if
 * the caller was killed, or what @between returned to end the walk. Sleeps.
 */
int mp3_walk_processes(void (*visit)(struct task_struct *leader, void *arg),
		       int (*between)(void *arg), void *arg);

int mp3_status_create(void);
void mp3_status_remove(void);

int mp3_chardev_create(void);
void mp3_chardev_remove(void);

#endif /* MP3_INTERNAL_H */
