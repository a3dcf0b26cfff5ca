// SPDX-License-Identifier: GPL-2.0
/*
 * Registered processes: a plain list, locked by its callers (core.c). Each
 * is held by a struct pid reference, so a process that exits simply stops
 * resolving to a task and a reused PID number never resolves to the old
 * entry. Counters are only ever read: the task's own fields are what
 * /proc/<pid>/stat, getrusage() and time(1) report.
 */
#include <linux/capability.h>
#include <linux/err.h>
#include <linux/cred.h>
#include <linux/fs.h>
#include <linux/list.h>
#include <linux/pid.h>
#include <linux/pid_namespace.h>
#include <linux/proc_fs.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>
#include <linux/sched/signal.h>
#include <linux/sched/task.h>
#include <linux/seq_file.h>
#include <linux/slab.h>

#include "compat.h"
#include "internal.h"

struct mp3_counters {
	u64 minor_faults;
	u64 major_faults;
	u64 cpu_ns;
};

struct mp3_task {
	struct list_head node;		/* in mp3_tasks, under mp3_lock */
	struct pid *pid;		/* the thread-group leader's pid */
	/* The fields below are protected by mp3_lock. */
	struct mp3_counters last;	/* at the previous sample */
	bool named;			/* its comm went into the records */
	u64 exec_id;			/* the leader's self_exec_id when it did */
};

/* Registered processes in registration order, protected by mp3_lock. */
static LIST_HEAD(mp3_tasks);

/*
 * Sums the counters of a whole thread group as /proc/<pid>/stat does: live
 * threads plus what exited threads left in the signal struct, consistent
 * under stats_lock's sequence count.
 * CPU time is sum_exec_runtime, which utime + stime in /proc/<pid>/stat are
 * scaled to add up to. Returns false if the group has exited entirely.
 * Called under rcu_read_lock(), which keeps the thread list, the tasks and
 * their signal struct alive (tasks are freed after a grace period).
 */
static bool mp3_read_group(struct task_struct *leader, struct mp3_counters *sum)
{
	struct signal_struct *sig = leader->signal;
	struct task_struct *t;
	unsigned int seq;

	RCU_LOCKDEP_WARN(!rcu_read_lock_held(), "needs rcu_read_lock()");
	/* Retry if a thread moved its counts to the signal struct meanwhile. */
	do {
		seq = read_seqbegin(&sig->stats_lock);
		sum->minor_faults = sig->min_flt;
		sum->major_faults = sig->maj_flt;
		sum->cpu_ns = sig->sum_sched_runtime;
		for_each_thread(leader, t) {
			sum->minor_faults += READ_ONCE(t->min_flt);
			sum->major_faults += READ_ONCE(t->maj_flt);
			sum->cpu_ns += READ_ONCE(t->se.sum_exec_runtime);
		}
	} while (read_seqretry(&sig->stats_lock, seq));
	return !(READ_ONCE(leader->exit_state) && thread_group_empty(leader));
}

/*
 * Whether whoever opened @file may read @task's counters: the rule of
 * ptrace_may_access(task, PTRACE_MODE_READ_FSCREDS), which is not exported
 * to modules: same credentials or CAP_SYS_PTRACE over the task's user
 * namespace, and a dumpable executable unless CAP_SYS_PTRACE over the
 * executable's namespace (mp3_task_dumpable() in compat.h). The LSM hook it
 * also calls is not reachable from a module.
 *
 * The credentials are the opener's (file->f_cred), never the writer's:
 * /proc/mp3/status is world-writable, so a descriptor opened by anyone can
 * reach a privileged process (passed over a unix socket, inherited across
 * the exec of a setuid program), and judging the writer would make that
 * process a confused deputy. proc's own writers judge the opener too. So
 * there is no exception for a task registering itself either: what counts
 * is who opened the file, not who writes to it.
 *
 * file_ns_capable() does not sleep; ptrace calls the same check under RCU
 * and task_lock() alike.
 */
static bool mp3_may_read(const struct file *file, struct task_struct *task)
{
	const struct cred *cred = file->f_cred, *tcred;
	struct user_namespace *exec_ns;
	bool allowed;

	rcu_read_lock();
	tcred = __task_cred(task);
	allowed = (uid_eq(cred->fsuid, tcred->euid) &&
		   uid_eq(cred->fsuid, tcred->suid) &&
		   uid_eq(cred->fsuid, tcred->uid) &&
		   gid_eq(cred->fsgid, tcred->egid) &&
		   gid_eq(cred->fsgid, tcred->sgid) &&
		   gid_eq(cred->fsgid, tcred->gid)) ||
		  file_ns_capable(file, tcred->user_ns, CAP_SYS_PTRACE);
	rcu_read_unlock();
	if (!allowed)
		return false;

	task_lock(task);
	if (!mp3_task_dumpable(task, &exec_ns) &&
	    !file_ns_capable(file, exec_ns, CAP_SYS_PTRACE))
		allowed = false;
	task_unlock(task);
	return allowed;
}

/*
 * The PID namespace of the /proc mount @file was opened through: PIDs
 * written to or read from it are numbered there, as in /proc/<pid> of that
 * mount, whatever namespace the writer or reader is in. The file pins the
 * mount's super block, which pins the namespace.
 */
static struct pid_namespace *mp3_file_pid_ns(const struct file *file)
{
	return proc_pid_ns(file_inode(file)->i_sb);
}

static struct mp3_task *__mp3_tasks_find(struct pid *pid)
{
	struct mp3_task *entry;

	list_for_each_entry(entry, &mp3_tasks, node)
		if (entry->pid == pid)
			return entry;
	return NULL;
}

/* The live thread-group leader numbered @nr in @ns. */
static struct task_struct *mp3_get_leader(struct pid_namespace *ns, pid_t nr,
					  struct pid **pidp)
{
	struct task_struct *leader;
	struct pid *pid;

	rcu_read_lock();
	pid = get_pid(find_pid_ns(nr, ns));
	rcu_read_unlock();
	if (!pid)
		return NULL;
	leader = get_pid_task(pid, PIDTYPE_TGID);
	if (!leader) {
		put_pid(pid);
		return NULL;
	}
	*pidp = pid;
	return leader;
}

struct mp3_task *mp3_task_create(const struct file *file, pid_t nr)
{
	struct mp3_task *entry;
	struct task_struct *leader;
	struct pid *pid;
	int err;

	leader = mp3_get_leader(mp3_file_pid_ns(file), nr, &pid);
	if (!leader)
		return ERR_PTR(-ESRCH);
	if (!mp3_may_read(file, leader)) {
		err = -EPERM;
		goto put_pid;
	}
	entry = kzalloc(sizeof(*entry), GFP_KERNEL);
	if (!entry) {
		err = -ENOMEM;
		goto put_pid;
	}
	entry->pid = pid;
	put_task_struct(leader);
	return entry;

put_pid:
	put_task_struct(leader);
	put_pid(pid);
	return ERR_PTR(err);
}

void mp3_task_destroy(struct mp3_task *entry)
{
	put_pid(entry->pid);
	kfree(entry);
}

int __mp3_tasks_add(struct mp3_task *entry)
{
	struct task_struct *leader;
	bool alive;

	lockdep_assert_held(&mp3_lock);

	if (__mp3_tasks_find(entry->pid))
		return -EEXIST;
	/* Deltas start from now; an exited group is as good as gone. */
	rcu_read_lock();
	leader = pid_task(entry->pid, PIDTYPE_TGID);
	alive = leader && mp3_read_group(leader, &entry->last);
	rcu_read_unlock();
	if (!alive)
		return -ESRCH;
	list_add_tail(&entry->node, &mp3_tasks);
	return 0;
}

struct mp3_task *__mp3_tasks_unlink(const struct file *file, pid_t nr)
{
	struct mp3_task *entry;
	struct task_struct *leader;
	struct pid *pid;

	lockdep_assert_held(&mp3_lock);

	leader = mp3_get_leader(mp3_file_pid_ns(file), nr, &pid);
	if (!leader)
		return ERR_PTR(-ENOENT);
	entry = __mp3_tasks_find(pid);
	if (!entry)
		entry = ERR_PTR(-ENOENT);
	else if (!mp3_may_read(file, leader))
		entry = ERR_PTR(-EPERM);
	else
		list_del(&entry->node);
	put_task_struct(leader);
	put_pid(pid);
	return entry;
}

void __mp3_tasks_show(struct seq_file *m)
{
	struct pid_namespace *ns = mp3_file_pid_ns(m->file);
	struct mp3_task *entry;
	pid_t nr;

	lockdep_assert_held(&mp3_lock);

	list_for_each_entry(entry, &mp3_tasks, node) {
		/* 0: not visible in the namespace of the file's /proc mount. */
		nr = pid_nr_ns(entry->pid, ns);
		if (nr)
			seq_printf(m, "%d\n", nr);
	}
}

/* Counters never go backwards; a racing read must not make them. */
static u64 mp3_advance(u64 *last, u64 now)
{
	u64 delta = now > *last ? now - *last : 0;

	*last += delta;
	return delta;
}

/* Its name goes into the records when it is registered and after an exec. */
static void __mp3_task_name(struct mp3_task *entry, struct task_struct *leader, u32 tgid)
{
	char comm[TASK_COMM_LEN];
	u64 exec_id = READ_ONCE(leader->self_exec_id);

	if (entry->named && entry->exec_id == exec_id)
		return;
	get_task_comm(comm, leader);
	__mp3_buffer_record_comm(tgid, comm);
	entry->named = true;
	entry->exec_id = exec_id;
}

static void __mp3_task_account(struct mp3_task *entry, struct task_struct *leader,
			       const struct mp3_counters *now,
			       struct mp3_sample_values *values)
{
	u32 tgid = pid_nr(entry->pid);
	struct mp3_sample_values delta = {
		.minor_faults = mp3_advance(&entry->last.minor_faults, now->minor_faults),
		.major_faults = mp3_advance(&entry->last.major_faults, now->major_faults),
		.cpu_ns = mp3_advance(&entry->last.cpu_ns, now->cpu_ns),
		.nr_procs = 1,
	};

	__mp3_task_name(entry, leader, tgid);
	__mp3_buffer_record_counts(tgid, &delta);
	values->minor_faults += delta.minor_faults;
	values->major_faults += delta.major_faults;
	values->cpu_ns += delta.cpu_ns;
	values->nr_procs++;
}

/* Processes summed per RCU read-side section, between chances to reschedule. */
#define MP3_COLLECT_BATCH 256

/*
 * Adds this period's deltas of every registered process to @values and
 * drops the processes that have exited. Returns whether any remain.
 * The leaders are looked up under RCU rather than pinned with a reference:
 * no atomic operation per process, which is most of the per-process cost.
 * mp3_lock keeps the list stable across the RCU sections.
 */
bool __mp3_tasks_collect(struct mp3_sample_values *values)
{
	struct mp3_task *entry, *next;
	struct mp3_counters now;
	struct task_struct *leader;
	unsigned int batch = 0;
	bool alive;

	lockdep_assert_held(&mp3_lock);

	rcu_read_lock();
	list_for_each_entry_safe(entry, next, &mp3_tasks, node) {
		if (++batch % MP3_COLLECT_BATCH == 0) {
			rcu_read_unlock();
			cond_resched();
			rcu_read_lock();
		}
		leader = pid_task(entry->pid, PIDTYPE_TGID);
		alive = leader && mp3_read_group(leader, &now);
		if (leader)
			__mp3_task_account(entry, leader, &now, values);
		if (!alive) {
			list_del(&entry->node);
			mp3_task_destroy(entry);
		}
	}
	rcu_read_unlock();
	return !list_empty(&mp3_tasks);
}

void __mp3_tasks_destroy_all(void)
{
	struct mp3_task *entry, *next;

	lockdep_assert_held(&mp3_lock);

	list_for_each_entry_safe(entry, next, &mp3_tasks, node) {
		list_del(&entry->node);
		mp3_task_destroy(entry);
	}
}
