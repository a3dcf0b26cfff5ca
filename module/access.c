// SPDX-License-Identifier: GPL-2.0
/*
 * Who may profile whom, and who owns what was registered.
 *
 * Reading: the rule of ptrace_may_access(task, PTRACE_MODE_READ_FSCREDS),
 * which is not exported to modules, applied to whoever opened
 * /proc/mp3/status (mp3_may_read()). Ownership: everything registered
 * keeps its registrant (struct mp3_registrant), by whose right the
 * processes that join later are judged, and whose owner alone (or an
 * administrator) may end or change it (mp3_registrant_owned_by()).
 *
 * The credentials are always the opener's (file->f_cred), never the
 * writer's: /proc/mp3/status is world-writable, so a descriptor opened by
 * anyone can reach a privileged process (passed over a unix socket,
 * inherited across the exec of a setuid program), and judging the writer
 * would make that process a confused deputy. proc's own writers judge the
 * opener too. So there is no exception for a task registering itself
 * either: what counts is who opened the file, not who writes to it.
 */
#include <linux/capability.h>
#include <linux/cred.h>
#include <linux/fs.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>
#include <linux/sched/task.h>
#include <linux/user_namespace.h>

#include "compat.h"
#include "internal.h"

/* The first half of the ptrace read rule: the opener's fs ids are all of the task's ids. */
static bool mp3_same_ids(const struct cred *cred, const struct cred *tcred)
{
	return uid_eq(cred->fsuid, tcred->euid) && uid_eq(cred->fsuid, tcred->suid) &&
	       uid_eq(cred->fsuid, tcred->uid) && gid_eq(cred->fsgid, tcred->egid) &&
	       gid_eq(cred->fsgid, tcred->sgid) && gid_eq(cred->fsgid, tcred->gid);
}

/*
 * The commoncap half (cap_ptrace_access_check()): a task may hold no
 * capability its reader lacks, else the reader needs CAP_SYS_PTRACE. With
 * fs credentials the reader's effective set is what counts. So a service
 * of the same user with ambient capabilities is not readable.
 */
static bool mp3_caps_subset(const struct cred *cred, const struct cred *tcred)
{
	return cred->user_ns == tcred->user_ns &&
	       cap_issubset(tcred->cap_permitted, cred->cap_effective);
}

/*
 * Whether whoever opened @file may read @task's counters: same ids and no
 * capability the opener lacks, or CAP_SYS_PTRACE over the task's user
 * namespace; and a dumpable executable unless CAP_SYS_PTRACE over the
 * executable's namespace (mp3_task_dumpable() in compat.h). The LSM hooks
 * beyond commoncap are not reachable from a module.
 *
 * file_ns_capable() does not sleep; ptrace calls the same check under RCU
 * and task_lock() alike.
 */
bool mp3_may_read(const struct file *file, struct task_struct *task)
{
	const struct cred *cred = file->f_cred, *tcred;
	struct user_namespace *exec_ns;
	bool allowed;

	rcu_read_lock();
	tcred = __task_cred(task);
	allowed = (mp3_same_ids(cred, tcred) && mp3_caps_subset(cred, tcred)) ||
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

void mp3_registrant_init(struct mp3_registrant *r, const struct file *file)
{
	r->cred = get_cred(file->f_cred);
	r->privileged = mp3_file_privileged(file);
	r->payer = from_kuid(&init_user_ns, mp3_payer(r->cred));
}

void mp3_registrant_copy(struct mp3_registrant *to, const struct mp3_registrant *from)
{
	to->cred = get_cred(from->cred);
	to->privileged = from->privileged;
	to->payer = from->payer;
}

void mp3_registrant_release(struct mp3_registrant *r)
{
	if (r->cred)
		put_cred(r->cred);
	r->cred = NULL;
}

/*
 * Whether @cred holds @cap over @ns as commoncap judges it
 * (cap_capable()): in @ns itself, its effective set; over a namespace
 * below, by being the owner of the one below its own that leads there.
 */
static bool mp3_cred_ns_capable(const struct cred *cred, const struct user_namespace *ns,
				int cap)
{
	for (;;) {
		if (ns == cred->user_ns)
			return cap_raised(cred->cap_effective, cap);
		if (ns->level <= cred->user_ns->level)
			return false;
		if (ns->parent == cred->user_ns && uid_eq(ns->owner, cred->euid))
			return true;
		ns = ns->parent;
	}
}

/*
 * mp3_may_read()'s rule, applied later, without the file: the probes and
 * the sampler have none. Its capability half is commoncap's, by hand
 * (security_capable() is not exported to modules): so a container's root
 * keeps reading its container's processes. CAP_SYS_PTRACE over the
 * initial user namespace was judged at registration, with the LSMs. Under
 * rcu_read_lock(); does not sleep.
 */
bool mp3_registrant_may_read(const struct mp3_registrant *r, struct task_struct *task)
{
	const struct cred *tcred = __task_cred(task);
	struct user_namespace *exec_ns;
	bool allowed;

	RCU_LOCKDEP_WARN(!rcu_read_lock_held(), "needs rcu_read_lock()");
	if (r->privileged)
		return true;
	if (!(mp3_same_ids(r->cred, tcred) && mp3_caps_subset(r->cred, tcred)) &&
	    !mp3_cred_ns_capable(r->cred, tcred->user_ns, CAP_SYS_PTRACE))
		return false;
	/* exec_ns is the mm's: held while task_lock() keeps the mm. */
	task_lock(task);
	allowed = mp3_task_dumpable(task, &exec_ns) ||
		  mp3_cred_ns_capable(r->cred, exec_ns, CAP_SYS_PTRACE);
	task_unlock(task);
	return allowed;
}

bool mp3_file_privileged(const struct file *file)
{
	return file_ns_capable(file, &init_user_ns, CAP_SYS_PTRACE);
}

/*
 * Administrators (CAP_SYS_PTRACE over the initial user namespace: root,
 * pfprofd) are one owner, each other user another: by fs uid and user
 * namespace, so that the root of one container is not that of another,
 * even where both are one uid outside.
 */
bool mp3_registrant_is_opener(const struct mp3_registrant *r, const struct file *file)
{
	const struct cred *cred = file->f_cred;
	bool privileged = mp3_file_privileged(file);

	return r->privileged == privileged &&
	       (privileged || (r->cred->user_ns == cred->user_ns &&
			       uid_eq(r->cred->fsuid, cred->fsuid)));
}

/*
 * Who pays, as the kernel charges ucounts up the namespace chain: in a
 * user namespace, whoever made its outermost one. The uids a user maps
 * into namespaces of its own (newuidmap, 65 536 of them on Debian) are
 * that one user here.
 */
struct mp3_record_tag mp3_registrant_tag(const struct mp3_registrant *r, u32 target)
{
	return (struct mp3_record_tag){
		.target = target,
		.owner = r->privileged ? 0 : r->payer,
		.admin = r->privileged,
	};
}

kuid_t mp3_payer(const struct cred *cred)
{
	const struct user_namespace *ns = cred->user_ns;

	if (ns == &init_user_ns)
		return cred->uid;
	while (ns->parent != &init_user_ns)
		ns = ns->parent;
	return ns->owner;
}

bool mp3_registrant_owned_by(const struct mp3_registrant *r, const struct file *file)
{
	return mp3_file_privileged(file) || mp3_registrant_is_opener(r, file);
}
