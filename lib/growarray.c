// SPDX-License-Identifier: GPL-2.0
#include "growarray.h"

#include <stdlib.h>

void *grow_array(void *array, size_t *cap, size_t count, size_t size, size_t first)
{
	size_t want = *cap ? 2 * *cap : first;
	void *grown;

	if (count < *cap)
		return array;
	grown = reallocarray(array, want, size);
	if (grown)
		*cap = want;
	return grown;
}
