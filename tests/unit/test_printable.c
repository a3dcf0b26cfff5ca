// SPDX-License-Identifier: GPL-2.0
/*
 * lib/printable: a process's name or a file's path made safe to print and
 * log, and the log format that keeps names so (a name with an escape
 * sequence, written and read back).
 */
#include <stdio.h>
#include <string.h>

#include "logformat.h"
#include "printable.h"
#include "unit.h"

/* Every control byte becomes '_'; the rest, UTF-8 included, stays. */
static void test_every_byte(void)
{
	char text[256], want[256];

	for (int c = 1; c < 256; c++) {
		text[c - 1] = (char)c;
		want[c - 1] = c < 0x20 || c == 0x7f ? '_' : (char)c;
	}
	text[255] = want[255] = '\0';
	expect(printable(text) == text, "not the text handed in");
	for (int i = 0; i < 255; i++)
		expect(text[i] == want[i], "byte 0x%02x became 0x%02x, want 0x%02x", i + 1,
		       (unsigned char)text[i], (unsigned char)want[i]);
}

/* A faults log line keeps no escape sequence of a name, and parses to safe names. */
static void test_faults_log_line(void)
{
	struct log_fault f = { .seq = 1, .pid = 42, .comm = "\x1b[2Jevil", .mapping = 2,
			       .name = "/tmp/\x1b]0;owned\x07.so", .minor = 1 };
	char line[512], old[512];
	struct log_fault back;

	expect(logformat_fault(line, sizeof(line), &f) > 0, "not formatted");
	expect(!strchr(line, '\x1b') && !strchr(line, '\x07'), "control bytes kept: %s", line);
	expect(strstr(line, "\t_[2Jevil\t") && strstr(line, "/tmp/_]0;owned_.so"),
	       "names not as printable: %s", line);
	/* A line written before, with the bytes raw: read back without them. */
	snprintf(old, sizeof(old), "1\t1.000000\t42\t\x1b[31mapp\t0\tfile\t1000\t-\t7\t1\t0\t"
		 "/x\x1b.so");
	expect(logformat_parse_fault(old, &back), "old line not parsed");
	expect(!strcmp(back.comm, "_[31mapp") && !strcmp(back.name, "/x_.so"),
	       "read back as '%s' '%s'", back.comm, back.name);
}

/* C1 controls as UTF-8 writes them (an 8-bit CSI is "\xc2\x9b"); the letters beside them stay. */
static void test_c1_controls(void)
{
	char text[] = "a\xc2\x9b" "2J\xc2\x80\xc2\x9f\xc2\xa0\xc3\xa9";

	printable(text);
	expect(!strcmp(text, "a__2J____\xc2\xa0\xc3\xa9"), "became '%s'", text);
}

UNIT_TESTS(UNIT_TEST(every_byte), UNIT_TEST(c1_controls), UNIT_TEST(faults_log_line));
