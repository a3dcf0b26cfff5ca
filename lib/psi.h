/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Memory pressure, as the kernel's PSI reports it in /proc/pressure/memory,
 * and for a cgroup v2 directory in its memory.pressure.
 */
#ifndef PFPROF_PSI_H
#define PFPROF_PSI_H

#include <stdbool.h>
#include <stdint.h>

#define PSI_MEMORY_PATH "/proc/pressure/memory"

struct psi_memory {
	double some_avg10, full_avg10;	/* % of the last 10 s with some / all tasks stalled */
	uint64_t some_total_us, full_total_us;
};

/* Parses the file's text: 0, or -EPROTO if it says something else. */
int psi_parse(const char *text, struct psi_memory *out);

/*
 * Reads path (PSI_MEMORY_PATH) once. 0, or -errno: -ENOENT or -EOPNOTSUPP
 * without PSI (CONFIG_PSI=n, psi=0), -EPROTO for text not understood.
 */
int psi_read(const char *path, struct psi_memory *out);

/*
 * Reads the memory.pressure of the cgroup v2 directory cgroup once: the
 * same format and answers as psi_read(), the cgroup's own tasks' stalls.
 */
int psi_read_cgroup(const char *cgroup, struct psi_memory *out);

/*
 * The last reading, taken again at most once per PSI_CACHE_NS: the kernel
 * recomputes avg10 every 2 s, so readers waking 20 times a second need not
 * read the file each time. The file stays open between readings.
 */
#define PSI_CACHE_NS 2000000000ULL

struct psi_cache {
	int fd;			/* the file, or -1 (PSI_CACHE_INIT): opened at the next reading */
	uint64_t read_ns;	/* CLOCK_MONOTONIC of the last reading; 0: none yet */
	int err;		/* its result, as psi_read() returns it */
	struct psi_memory value;	/* valid when err is 0 */
};

#define PSI_CACHE_INIT { .fd = -1 }

/* Reads path again if the last reading is older than PSI_CACHE_NS; returns whether it did. */
bool psi_cache_refresh(struct psi_cache *c, const char *path, uint64_t now_ns);

/* The last reading, or NULL if there is none or it failed. */
const struct psi_memory *psi_cache_value(const struct psi_cache *c);

/* Closes the file; the next reading opens it again. */
void psi_cache_close(struct psi_cache *c);

#endif /* PFPROF_PSI_H */
