/* SPDX-License-Identifier: GPL-2.0 */
#ifndef PFPROF_PRINTABLE_H
#define PFPROF_PRINTABLE_H

/*
 * Text that came from a process (its name, a mapping's path), made safe to
 * print and to log: each control character (C0, DEL, and C1 as UTF-8
 * writes it, "\xc2\x80" to "\xc2\x9f") becomes '_', a byte each. A
 * program may name itself, or a file, with an escape sequence that a
 * terminal would obey, or with a tab or newline that would split a log
 * line. In place; returns text.
 */
char *printable(char *text);

#endif
