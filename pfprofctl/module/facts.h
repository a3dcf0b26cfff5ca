/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pfprofctl: what anyone may read of why the mp3 module is not loaded:
 * whether it is built for the running kernel and signed, whether DKMS has
 * its source and the kernel's headers, whether Debian packages that kernel,
 * and whether the kernel loads only signed modules.
 */
#ifndef PFPROF_MODULE_FACTS_H
#define PFPROF_MODULE_FACTS_H

#include <stdbool.h>

enum module_signature { MODULE_UNSIGNED, MODULE_SIGNED, MODULE_SIGNATURE_UNKNOWN };

struct module_facts {
	char release[65];		/* the running kernel's, uname -r */
	bool installed;			/* modules.dep lists mp3.ko for it */
	enum module_signature signature;	/* of that mp3.ko (unknown: compressed) */
	bool dkms_source;		/* pfprof-dkms's source: /usr/src/pfprof-<version> */
	bool headers;			/* /lib/modules/<release>/build */
	bool debian_kernel;		/* Debian built it: uname -v says so */
	/*
	 * The kernel loads only signed modules: UEFI Secure Boot is on (Debian's
	 * kernels then lock down), lockdown is, or module.sig_enforce.
	 */
	bool signatures_required;
};

/*
 * The facts for kernel release (NULL: the running one's), the files read
 * under root ("" for the system itself; a directory in the tests).
 */
void module_facts_read(const char *root, const char *release, struct module_facts *f);

#endif
