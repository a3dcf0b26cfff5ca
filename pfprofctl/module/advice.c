// SPDX-License-Identifier: GPL-2.0
#include "advice.h"

#include <stdarg.h>
#include <stdio.h>

/* Where Debian's dkms keeps the key it signs modules with (framework.conf). */
#define DKMS_KEY "/var/lib/dkms/mok.pub"

__attribute__((format(printf, 2, 3)))
static void say(struct module_advice *a, const char *fmt, ...)
{
	va_list ap;

	if (a->count == MODULE_ADVICE_LINES)
		return;
	va_start(ap, fmt);
	vsnprintf(a->line[a->count++], MODULE_ADVICE_LEN, fmt, ap);
	va_end(ap);
}

/* Built for this kernel: loaded by modprobe, unless the kernel wants signed modules. */
static void advise_installed(const struct module_facts *f, struct module_advice *a)
{
	say(a, "mp3.ko is installed for the running kernel %s: load it with: modprobe mp3",
	    f->release);
	if (!f->signatures_required)
		return;
	if (f->signature == MODULE_UNSIGNED)
		say(a, "the kernel loads only signed modules (Secure Boot) and mp3.ko is not signed: "
		    "apt install openssl, then dpkg-reconfigure pfprof-dkms (DKMS signs it)");
	say(a, "Secure Boot: if modprobe says \"Key was rejected by service\", enroll DKMS's key "
	    "once: mokutil --import " DKMS_KEY ", then reboot and confirm it");
}

/* Not built for this kernel: what DKMS lacks to build it. */
static void advise_missing(const struct module_facts *f, struct module_advice *a)
{
	if (!f->dkms_source)
		say(a, "pfprof-dkms is not installed: apt install pfprof-dkms (from a build tree: "
		    "insmod module/mp3.ko)");
	else if (f->headers)
		say(a, "DKMS has not built mp3.ko for the running kernel %s: dkms autoinstall -k %s "
		    "(its log: /var/lib/dkms/pfprof/*/build/make.log)", f->release, f->release);
	else if (f->debian_kernel)
		say(a, "DKMS builds mp3.ko once the running kernel's headers are installed: apt "
		    "install linux-headers-%s", f->release);
	else
		say(a, "the running kernel %s is not one Debian packages: there is no "
		    "linux-headers-%s; install the headers its maker ships, then: dkms autoinstall",
		    f->release, f->release);
}

void module_advise(const struct module_facts *f, struct module_advice *a)
{
	a->count = 0;
	if (f->installed)
		advise_installed(f, a);
	else
		advise_missing(f, a);
}
