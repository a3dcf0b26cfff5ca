/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The fields the tab-separated logs share (logformat.h): times in
 * microseconds and milliseconds written in integers, names made one
 * printable field, and the parsing of each back.
 */
#ifndef PFPROF_LOGFIELDS_H
#define PFPROF_LOGFIELDS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* ns rounded to microseconds in integers: a double holds wall-clock ns only to ~0.2 us. */
uint64_t logfields_us(uint64_t ns);
/* text as one field: no control characters (tabs, newlines), cut to size. */
void logfields_copy(char *to, size_t size, const char *text);
/* ns as ms to the ns ("1.234567"), or "-" for LOGFORMAT_TIME_UNKNOWN. */
void logfields_format_ms(char *buf, size_t size, uint64_t ns);

/* Cuts line at its tabs into at most max fields; how many, max + 1 if there are more. */
size_t logfields_split(char *line, char *field[], size_t max);
/* A whole field as an unsigned number in base (no sign, nothing after it). */
bool logfields_u64(const char *text, int base, uint64_t *out);
/* "<seconds>.<6 digits>" as ns. */
bool logfields_wall(const char *text, uint64_t *ns);
/* "<ms>.<6 digits>" as ns, "-" as LOGFORMAT_TIME_UNKNOWN. */
bool logfields_ms(const char *text, uint64_t *ns);

#endif /* PFPROF_LOGFIELDS_H */
