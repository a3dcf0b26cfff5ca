// SPDX-License-Identifier: GPL-2.0
#include "logfields.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "logformat.h"
#include "printable.h"

uint64_t logfields_us(uint64_t ns)
{
	return ns / 1000 + (ns % 1000 >= 500);
}

void logfields_copy(char *to, size_t size, const char *text)
{
	snprintf(to, size, "%s", text);
	printable(to);
}

void logfields_format_ms(char *buf, size_t size, uint64_t ns)
{
	if (ns == LOGFORMAT_TIME_UNKNOWN)
		snprintf(buf, size, "-");
	else
		snprintf(buf, size, "%" PRIu64 ".%06" PRIu64, ns / 1000000, ns % 1000000);
}

bool logfields_u64(const char *text, int base, uint64_t *out)
{
	char *end;

	errno = 0;
	*out = strtoull(text, &end, base);
	return !errno && end != text && !*end && *text != '-';
}

bool logfields_wall(const char *text, uint64_t *ns)
{
	unsigned long long s, us;
	int end = 0;

	if (sscanf(text, "%llu.%6llu%n", &s, &us, &end) != 2 || text[end] || end < 8 ||
	    text[end - 7] != '.')
		return false;
	*ns = (uint64_t)s * 1000000000 + (uint64_t)us * 1000;
	return true;
}

bool logfields_ms(const char *text, uint64_t *ns)
{
	unsigned long long ms, sub;
	int end = 0;

	if (!strcmp(text, "-")) {
		*ns = LOGFORMAT_TIME_UNKNOWN;
		return true;
	}
	if (*text == '-' || sscanf(text, "%llu.%6llu%n", &ms, &sub, &end) != 2 || text[end] ||
	    end < 8 || text[end - 7] != '.' || ms >= UINT64_MAX / 1000000)
		return false;
	*ns = (uint64_t)ms * 1000000 + (uint64_t)sub;
	return true;
}

size_t logfields_split(char *line, char *field[], size_t max)
{
	size_t n = 0;

	for (char *p = line;; p++) {
		if (n == max)
			return n + 1;
		field[n++] = p;
		p = strchr(p, '\t');
		if (!p)
			return n;
		*p = '\0';
	}
}
