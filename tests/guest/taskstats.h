/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The kernel's own account of how long a thread or a process waited
 * (taskstats over generic netlink, what getdelays(8) asks), to check the
 * module's stall times against. Raw sockets: the guest binary is static and
 * the guest has no libnl.
 */
#ifndef PFPROF_GUEST_TASKSTATS_H
#define PFPROF_GUEST_TASKSTATS_H

#include <stdint.h>
#include <sys/types.h>

/* struct taskstats' *_delay_total fields that struct mp3_stalls mirrors, in ns. */
struct task_delays {
	uint64_t swapin_ns;	/* swapin_delay_total */
	uint64_t thrashing_ns;	/* thrashing_delay_total */
	uint64_t reclaim_ns;	/* freepages_delay_total */
	uint64_t compact_ns;	/* compact_delay_total */
	uint64_t blkio_ns;	/* blkio_delay_total */
};

struct taskstats_client {
	int fd;
	uint16_t family;	/* the id the kernel gave "TASKSTATS" */
	uint32_t seq;
};

/*
 * Opens a generic netlink socket and resolves the TASKSTATS family; 0 or
 * -errno (-ENOENT: a kernel without CONFIG_TASKSTATS).
 */
int taskstats_connect(struct taskstats_client *c);
void taskstats_disconnect(struct taskstats_client *c);
/* One thread's delays (TASKSTATS_CMD_ATTR_PID); 0 or -errno (-ESRCH: no such thread). */
int taskstats_thread(struct taskstats_client *c, pid_t tid, struct task_delays *d);
/*
 * A live process's delays (TASKSTATS_CMD_ATTR_TGID): its threads', the
 * exited ones included; 0 or -errno. -EPROTO: a reply this client cannot
 * read, or a struct taskstats older than version 11 (no compact_delay_total).
 */
int taskstats_process(struct taskstats_client *c, pid_t tgid, struct task_delays *d);

#endif /* PFPROF_GUEST_TASKSTATS_H */
