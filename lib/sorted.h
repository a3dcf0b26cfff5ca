/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Sorted arrays, for the tables of pfprofd and pfprofctl: where a key is or
 * would go (bsearch() tells only the first), and room made there.
 */
#ifndef PFPROF_SORTED_H
#define PFPROF_SORTED_H

#include <stdbool.h>
#include <stddef.h>

/* < 0, 0 or > 0 as element sorts before key, with it, or after it. */
typedef int sorted_compare(const void *element, const void *key, void *context);

/*
 * Among array's count elements of size bytes, sorted by compare: the index
 * of one equal to key if *found, else where key would go.
 */
size_t sorted_find(const void *array, size_t count, size_t size, const void *key,
		   sorted_compare *compare, void *context, bool *found);

/*
 * The element at index at of array, which holds count elements of size
 * bytes and has room for one more, made free: those from at on move up
 * one. The caller counts the new element.
 */
void *sorted_make_room(void *array, size_t count, size_t size, size_t at);

#endif /* PFPROF_SORTED_H */
