// SPDX-License-Identifier: GPL-2.0
#include "words.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *plot_words_text(const struct plot_words *words)
{
	return words->text ? words->text : "";
}

/*
 * gnuplot's word() splits at white space and keeps a quoted word whole, and
 * the words go inside '...' on gnuplot's command line: none of these in a word.
 */
int plot_words_add(struct plot_words *words, const char *fmt, ...)
{
	char *word, *text;
	va_list ap;
	int len;

	va_start(ap, fmt);
	len = vasprintf(&word, fmt, ap);
	va_end(ap);
	if (len < 0)
		return -ENOMEM;
	for (char *c = word; *c; c++)
		if (strchr(" \t\n'\"", *c))
			*c = '_';
	text = realloc(words->text, words->len + (size_t)len + 2);
	if (text) {
		words->len += (size_t)sprintf(text + words->len, "%s%s", words->len ? " " : "", word);
		words->text = text;
	}
	free(word);
	return text ? 0 : -ENOMEM;
}

void plot_words_free(struct plot_words *words)
{
	free(words->text);
	*words = (struct plot_words){ 0 };
}
