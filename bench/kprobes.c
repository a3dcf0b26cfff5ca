// SPDX-License-Identifier: GPL-2.0
#include "kprobes.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "benchring.h"

int kprobe_armed(const char *symbol, char type, bool *ftrace)
{
	FILE *f = fopen(KPROBES_LIST, "re");
	size_t len = strlen(symbol);
	char line[256];
	int armed = 0;

	*ftrace = false;
	if (!f)
		return -1;
	/* "ADDRESS  r  handle_mm_fault+0x0    [FTRACE]", "[DISABLED]" while disabled. */
	while (fgets(line, sizeof(line), f)) {
		char kind[4], sym[128];

		if (sscanf(line, "%*s %3s %127s", kind, sym) == 2 && kind[0] == type &&
		    !kind[1] && !strncmp(sym, symbol, len) && sym[len] == '+' &&
		    !strstr(line, "[DISABLED]")) {
			armed = 1;
			*ftrace = strstr(line, "[FTRACE]") != NULL;
		}
	}
	fclose(f);
	return armed;
}

int kprobe_expect(const char *symbol, char type, bool wanted, bool *ftrace)
{
	int armed = kprobe_armed(symbol, type, ftrace);

	for (int i = 0; i < 40 && armed >= 0 && armed != wanted; i++) {
		usleep(50000);
		armed = kprobe_armed(symbol, type, ftrace);
	}
	if (armed >= 0 && armed != wanted) {
		char what[160];

		snprintf(what, sizeof(what), "the probe on %s is %sarmed", symbol,
			 armed ? "" : "not ");
		die(what, EPROTO);
	}
	/* Unknown: as long as the sampler takes to disarm it. */
	if (armed < 0)
		usleep(200000);
	return armed;
}
