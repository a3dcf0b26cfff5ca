/* SPDX-License-Identifier: GPL-2.0 */
/* Arrays that grow by doubling, for the tables of pfprofd and pfprofctl. */
#ifndef PFPROF_GROWARRAY_H
#define PFPROF_GROWARRAY_H

#include <stddef.h>

/*
 * Room for one more element in array, which holds count elements of size
 * bytes and has room for *cap: array itself while it has room, else array
 * reallocated to twice *cap (first if *cap is 0) and *cap updated. NULL
 * without memory, array and *cap unchanged.
 */
void *grow_array(void *array, size_t *cap, size_t count, size_t size, size_t first);

#endif /* PFPROF_GROWARRAY_H */
