// SPDX-License-Identifier: GPL-2.0
#include "sorted.h"

#include <string.h>

size_t sorted_find(const void *array, size_t count, size_t size, const void *key,
		   sorted_compare *compare, void *context, bool *found)
{
	const char *base = array;
	size_t lo = 0, hi = count;

	*found = false;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int c = compare(base + mid * size, key, context);

		if (!c) {
			*found = true;
			return mid;
		}
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

void *sorted_make_room(void *array, size_t count, size_t size, size_t at)
{
	char *slot = (char *)array + at * size;

	memmove(slot + size, slot, (count - at) * size);
	return slot;
}
