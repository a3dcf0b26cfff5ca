// SPDX-License-Identifier: GPL-2.0
/*
 * pfprofctl/module/advice.c: for each reason the mp3 module is not loaded,
 * the lines pfprofctl says, one a cause with its fix, and nothing that is
 * not true of it (no linux-headers package for a kernel Debian does not
 * package, no Secure Boot line without Secure Boot).
 */
#include <stdio.h>
#include <string.h>

#include "module/advice.h"
#include "unit.h"

struct advice_case {
	const char *name;
	struct module_facts facts;
	const char *want[MODULE_ADVICE_LINES];	/* a part of each line, in order */
	const char *never;			/* in no line */
};

#define DEBIAN { .release = "6.1.0-57-amd64", .debian_kernel = true }

static const struct advice_case cases[] = {
	{ "no package", DEBIAN,
	  { "pfprof-dkms is not installed: apt install pfprof-dkms" }, "linux-headers" },
	{ "no headers, Debian's kernel",
	  { .release = "6.1.0-57-amd64", .dkms_source = true, .debian_kernel = true },
	  { "apt install linux-headers-6.1.0-57-amd64" }, "Secure Boot" },
	{ "no headers, a kernel Debian does not package",
	  { .release = "6.8.0-45-generic", .dkms_source = true },
	  { "6.8.0-45-generic is not one Debian packages: there is no linux-headers-6.8.0-45-generic" },
	  "apt install linux-headers" },
	{ "headers, not built",
	  { .release = "6.1.0-57-amd64", .dkms_source = true, .headers = true,
	    .debian_kernel = true },
	  { "dkms autoinstall -k 6.1.0-57-amd64" }, "apt install" },
	{ "built", { .release = "6.1.0-57-amd64", .installed = true, .dkms_source = true,
		     .signature = MODULE_SIGNED },
	  { "load it with: modprobe mp3" }, "Secure Boot" },
	{ "built, unsigned, Secure Boot",
	  { .release = "6.1.0-57-amd64", .installed = true, .dkms_source = true,
	    .signature = MODULE_UNSIGNED, .signatures_required = true },
	  { "modprobe mp3", "not signed: apt install openssl, then dpkg-reconfigure pfprof-dkms",
	    "mokutil --import /var/lib/dkms/mok.pub" }, NULL },
	{ "built, signed, Secure Boot",
	  { .release = "6.1.0-57-amd64", .installed = true, .dkms_source = true,
	    .signature = MODULE_SIGNED, .signatures_required = true },
	  { "modprobe mp3", "Key was rejected by service", }, "not signed" },
};

static void test_cases(void)
{
	for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
		const struct advice_case *k = &cases[c];
		struct module_advice a;
		size_t want = 0;

		module_advise(&k->facts, &a);
		while (want < MODULE_ADVICE_LINES && k->want[want])
			want++;
		expect(a.count == want, "%s: %zu lines, want %zu", k->name, a.count, want);
		for (size_t i = 0; i < a.count && i < want; i++)
			expect(strstr(a.line[i], k->want[i]), "%s: line %zu '%s' lacks '%s'", k->name,
			       i, a.line[i], k->want[i]);
		for (size_t i = 0; k->never && i < a.count; i++)
			expect(!strstr(a.line[i], k->never), "%s: line %zu '%s' says '%s'", k->name,
			       i, a.line[i], k->never);
	}
}

UNIT_TESTS(UNIT_TEST(cases));
