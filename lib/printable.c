// SPDX-License-Identifier: GPL-2.0
#include "printable.h"

/* UTF-8's lead byte of U+0080 to U+00BF; C1's second bytes are 0x80 to 0x9F. */
#define C1_LEAD 0xc2

char *printable(char *text)
{
	for (unsigned char *c = (unsigned char *)text; *c; c++) {
		if (*c < 0x20 || *c == 0x7f)
			*c = '_';
		else if (*c == C1_LEAD && c[1] >= 0x80 && c[1] <= 0x9f)
			c[0] = c[1] = '_';
	}
	return text;
}
