// SPDX-License-Identifier: GPL-2.0
#include "refaultwindow.h"

#define EXACT 32
#define PER_OCTAVE 32
/* log2 of EXACT and PER_OCTAVE: the first octave bucketed. */
#define FIRST_OCTAVE 5

static unsigned int bucket_of(uint64_t distance)
{
	unsigned int octave, step;

	if (distance < EXACT)
		return (unsigned int)distance;
	octave = 63 - (unsigned int)__builtin_clzll(distance);
	/* The 5 bits below the leading one: which 32nd of the octave. */
	step = (unsigned int)(distance >> (octave - FIRST_OCTAVE)) - PER_OCTAVE;
	if (EXACT + (octave - FIRST_OCTAVE) * PER_OCTAVE + step >= REFAULT_WINDOW_BUCKETS)
		return REFAULT_WINDOW_BUCKETS - 1;
	return EXACT + (octave - FIRST_OCTAVE) * PER_OCTAVE + step;
}

/* The largest distance of bucket b; of the last, of the distances not above 2^40 pages. */
static uint64_t bucket_top(unsigned int b)
{
	unsigned int octave, step;

	if (b < EXACT)
		return b;
	octave = FIRST_OCTAVE + (b - EXACT) / PER_OCTAVE;
	step = (b - EXACT) % PER_OCTAVE;
	return ((uint64_t)(PER_OCTAVE + step + 1) << (octave - FIRST_OCTAVE)) - 1;
}

/* Whether row r holds a minute of the window that ends at now_s. */
static int in_window(const struct refault_window *w, unsigned int r, uint64_t now_s)
{
	uint64_t now = now_s / 60;

	return w->minute[r] && w->minute[r] <= now && now - w->minute[r] < REFAULT_WINDOW_MINUTES;
}

void refaultwindow_add(struct refault_window *w, uint64_t at_s, uint64_t distance,
		       uint32_t pages)
{
	uint64_t minute = at_s / 60;
	unsigned int r = (unsigned int)(minute % REFAULT_WINDOW_MINUTES);

	/* A row of another minute is ten or more minutes old: started anew. */
	if (w->minute[r] != minute) {
		w->minute[r] = minute;
		for (unsigned int b = 0; b < REFAULT_WINDOW_BUCKETS; b++)
			w->pages[r][b] = 0;
	}
	w->pages[r][bucket_of(distance)] += pages;
}

uint64_t refaultwindow_pages(const struct refault_window *w, uint64_t now_s)
{
	uint64_t total = 0;

	for (unsigned int r = 0; r < REFAULT_WINDOW_MINUTES; r++)
		for (unsigned int b = 0; in_window(w, r, now_s) && b < REFAULT_WINDOW_BUCKETS; b++)
			total += w->pages[r][b];
	return total;
}

uint64_t refaultwindow_quantile(const struct refault_window *w, uint64_t now_s, double share)
{
	const double target = share * (double)refaultwindow_pages(w, now_s);
	uint64_t seen = 0;

	if (!target)
		return 0;
	for (unsigned int b = 0; b < REFAULT_WINDOW_BUCKETS; b++) {
		for (unsigned int r = 0; r < REFAULT_WINDOW_MINUTES; r++)
			seen += in_window(w, r, now_s) ? w->pages[r][b] : 0;
		if ((double)seen >= target)
			return bucket_top(b);
	}
	return bucket_top(REFAULT_WINDOW_BUCKETS - 1);
}
