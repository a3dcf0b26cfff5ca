/* SPDX-License-Identifier: GPL-2.0 */
/*
 * mp3: which pages of the processes with "pages" go to swap and come back,
 * and which pages of files they read again, in five files, each calling
 * only those below it:
 *
 * pages.c      the measure: the processes traced, the hooks armed while
 *              any is, the events of each tick written as records
 * swapout.c    the swap-outs: a probe where reclaim unmaps a page, the
 *              tracepoint where it is written out
 * swapin.c     the swap-ins: return probes on the two swap-in faults
 * refaults.c   the file pages read again: a probe where the page cache
 *              takes in a page reclaim dropped; and one where reclaim
 *              drops a followed cgroup's
 * swapnotes.c  the traced processes by PID, the followed cgroups with
 *              pages, and the per-CPU buffers the hooks note their events
 *              in
 */
#ifndef MP3_PAGES_H
#define MP3_PAGES_H

#include <linux/hashtable.h>
#include <linux/rcupdate.h>
#include <linux/types.h>

#include "internal.h"

struct folio;
struct pid;

/* A process with pages: hashed by its struct pid. */
struct mp3_page_trace {
	/* In the traced hash while hashed, under its lock; read under RCU. */
	struct hlist_node node;
	struct pid *pid;		/* its process's, held by its entry */
	struct mp3_record_tag tag;	/* its records' */
	struct mp3_retries retries;
};

/* swapnotes.c */
/*
 * The return probes' events in flight at once (swap-in faults of each
 * kind, pages read again), at most; beyond, not traced (counted in
 * swap_dropped).
 */
extern unsigned int mp3_pages_active;
/* Hashed, @trace's process is traced (its events noted) until unhashed. */
void mp3_swap_trace_hash(struct mp3_page_trace *trace);
void mp3_swap_trace_unhash(struct mp3_page_trace *trace);
/* Under rcu_read_lock(): the trace of @pid's process, NULL if it has none. */
struct mp3_page_trace *mp3_trace_of(const struct pid *pid);
/* Whether the current thread's process is traced, and not a kernel thread. */
bool mp3_current_traced(void);
/* An event of @pid's process into this CPU's buffer, or counted as dropped. */
void mp3_swap_note(const struct pid *pid, const struct mp3_swap_event *e);
/*
 * The followed cgroups with pages (under mp3_lock): their shmem pages
 * that reclaim writes out while none of their processes maps them are
 * theirs. 0, or -ENOMEM.
 */
int __mp3_swap_cgroup_add(const struct mp3_group_view *g);
void __mp3_swap_cgroup_remove(const struct mp3_group_view *g);
/* Under mp3_lock: whether any followed cgroup is "charged" (listed above). */
bool __mp3_swap_cgroups_charged(void);
/*
 * Under rcu_read_lock(), @folio's memory cgroup pinned (locked, or held
 * by reclaim): into *@tag, whose @folio is, of the followed cgroups with
 * pages that hold its memory cgroup the first added; false if none.
 */
bool mp3_folio_cgroup_tag(struct folio *folio, struct mp3_record_tag *tag);
/* An event of the followed cgroup whose records are @tag's, as mp3_swap_note(). */
void mp3_swap_note_cgroup(const struct mp3_record_tag *tag, const struct mp3_swap_event *e);
/* The buffers, once: kept until unload, so that no hook ever finds them gone. */
int __mp3_swap_notes_alloc(void);
void mp3_swap_notes_free(void);
/*
 * The events noted since the last call, as records of their processes if
 * still traced, the oldest first across CPUs; those dropped, and those of
 * processes no longer traced, are added to *@dropped.
 */
void __mp3_swap_notes_write(u64 *dropped);

/* swapout.c: armed, every page reclaim unmaps and writes out passes its hooks. */
int __mp3_swapout_arm(void);
void __mp3_swapout_disarm(void);
/* Swap-outs lost since load: another page took a pending page's place. */
u64 mp3_swapout_lost(void);
void mp3_swapout_free(void);

/*
 * refaults.c: armed, every page the page cache takes in, and every page
 * that leaves it, passes its probes.
 */
int __mp3_refaults_arm(void);
void __mp3_refaults_disarm(void);
/*
 * Armed: the eviction probe registered while a followed cgroup is
 * "charged", unregistered while none is. 0, or register_kprobe()'s error.
 */
int __mp3_refaults_follow_evictions(void);
/* Pages read again missed since the last call: more in flight than the probe holds. */
u64 __mp3_refaults_missed(void);

/* swapin.c: armed, every swap-in fault passes its probes. */
int __mp3_swapin_arm(void);
void __mp3_swapin_disarm(void);
/* Swap-ins missed since the last call: more faults in flight than the probes hold. */
u64 __mp3_swapin_missed(void);

#endif /* MP3_PAGES_H */
