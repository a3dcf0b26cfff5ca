/* SPDX-License-Identifier: GPL-2.0 */
/* Memory pressure, as the kernel's PSI reports it in /proc/pressure/memory. */
#ifndef PFPROF_PSI_H
#define PFPROF_PSI_H

#include <stdint.h>

#define PSI_MEMORY_PATH "/proc/pressure/memory"

struct psi_memory {
	double some_avg10, full_avg10;	/* % of the last 10 s with some / all tasks stalled */
	uint64_t some_total_us, full_total_us;
};

/*
 * Reads path (PSI_MEMORY_PATH). 0, or -errno: -ENOENT or -EOPNOTSUPP
 * without PSI (CONFIG_PSI=n, psi=0), -EPROTO if the file says something else.
 */
int psi_read(const char *path, struct psi_memory *out);

#endif /* PFPROF_PSI_H */
