/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pfprofctl: what to do about an mp3 module that is not loaded, from its
 * facts: one line a cause, each with its fix (pfprofctl(8), "MODULE").
 */
#ifndef PFPROF_MODULE_ADVICE_H
#define PFPROF_MODULE_ADVICE_H

#include <stddef.h>

#include "facts.h"

#define MODULE_ADVICE_LINES 3
#define MODULE_ADVICE_LEN 256

struct module_advice {
	char line[MODULE_ADVICE_LINES][MODULE_ADVICE_LEN];
	size_t count;
};

void module_advise(const struct module_facts *f, struct module_advice *a);

#endif
