// SPDX-License-Identifier: GPL-2.0
/* lib/sorted: where a key is or goes in a sorted array, and room made there. */
#include <stdbool.h>
#include <stddef.h>

#include "sorted.h"
#include "unit.h"

static int compare_int(const void *element, const void *key, void *calls)
{
	int a = *(const int *)element, b = *(const int *)key;

	++*(int *)calls;
	return (a > b) - (a < b);
}

/* Every key in and around a sorted array: found where it is, else where it goes. */
static void test_find(void)
{
	static const int sorted[] = { 2, 4, 6, 8, 10, 12, 14 };
	const size_t n = sizeof(sorted) / sizeof(sorted[0]);

	for (size_t count = 0; count <= n; count++) {
		for (int key = 1; key <= 15; key++) {
			size_t want = 0;
			int calls = 0;
			bool found;
			size_t at;

			while (want < count && sorted[want] < key)
				want++;
			at = sorted_find(sorted, count, sizeof(int), &key, compare_int, &calls, &found);
			expect(at == want && found == (want < count && sorted[want] == key),
			       "key %d in %zu elements: index %zu found %d, want %zu", key, count, at,
			       found, want);
			expect(calls <= 4, "key %d in %zu elements: %d comparisons", key, count,
			       calls);
		}
	}
}

/* Keys inserted at the index found keep the array sorted, each once. */
static void test_make_room(void)
{
	static const int keys[] = { 5, 1, 9, 3, 7, 5, 1, 11, 0 };
	static const int want[] = { 0, 1, 3, 5, 7, 9, 11 };
	int array[16], calls = 0;
	size_t count = 0;

	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
		bool found;
		size_t at = sorted_find(array, count, sizeof(int), &keys[i], compare_int, &calls,
					&found);

		if (!found)
			*(int *)sorted_make_room(array, count++, sizeof(int), at) = keys[i];
	}
	expect(count == sizeof(want) / sizeof(want[0]), "%zu elements, want 7", count);
	for (size_t i = 0; i < count; i++)
		expect(array[i] == want[i], "element %zu is %d, want %d", i, array[i], want[i]);
}

UNIT_TESTS(
	UNIT_TEST(find),
	UNIT_TEST(make_room),
);
