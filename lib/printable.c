// SPDX-License-Identifier: GPL-2.0
#include "printable.h"

char *printable(char *text)
{
	for (unsigned char *c = (unsigned char *)text; *c; c++)
		if (*c < 0x20 || *c == 0x7f)
			*c = '_';
	return text;
}
