/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Lists that pfprofctl plot hands the gnuplot script as strings of words,
 * which it takes apart with words() and word(): files, titles, counts.
 */
#ifndef PFPROF_PLOTWORDS_H
#define PFPROF_PLOTWORDS_H

#include <stddef.h>

/* Space-separated; text is NULL until the first word. */
struct plot_words {
	char *text;
	size_t len;
};

/* Appends one word, spaces and quotes in it made '_'. 0 or -ENOMEM. */
__attribute__((format(printf, 2, 3)))
int plot_words_add(struct plot_words *words, const char *fmt, ...);

/* The words, "" if none. */
const char *plot_words_text(const struct plot_words *words);

void plot_words_free(struct plot_words *words);

#endif /* PFPROF_PLOTWORDS_H */
