/* SPDX-License-Identifier: GPL-2.0 */
#ifndef PFPROF_REFAULTCOST_H
#define PFPROF_REFAULTCOST_H

/*
 * refault FILE PAGES ROUNDS none|other|self|cgroup|charged: what the page trace costs a
 * page of a file read again (MP3_RECORD_REFAULT, module/refaults.c): the
 * first PAGES pages of FILE mapped (read ahead of none), then ROUNDS times
 * pushed out by reclaim (MADV_PAGEOUT, which leaves each a shadow) and
 * touched again, each touch a major fault whose page the page cache takes
 * in again; the CPU time of the touches per page read again (the
 * machine's workingset_refault_file over them). The modes are swap's
 * (swapcost.h): a registered sleeper in each, with pages in "other", this
 * process with pages in "self"; in "cgroup" another cgroup is followed
 * with "S <target> charged" (bench/guest.sh), in "charged" this process's
 * own. Prints whether the probes were armed (the eviction probe only
 * while a cgroup is charged) and, for "self" and "charged", the pages its
 * records traced, the cgroup's evictions recorded and those dropped.
 */
int cmd_refault_cost(const char *path, unsigned long pages, unsigned int rounds,
		     const char *mode);

#endif
