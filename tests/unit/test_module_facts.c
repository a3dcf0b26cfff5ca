// SPDX-License-Identifier: GPL-2.0
/*
 * pfprofctl/module/facts.c: what it finds of the mp3 module in a made-up
 * root: modules.dep, the module's signature, DKMS's source, the kernel's
 * headers and package, Secure Boot's UEFI variable.
 */
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "module/facts.h"
#include "unit.h"

#define RELEASE "6.1.0-57-amd64"
#define SECURE_BOOT "sys/firmware/efi/efivars/SecureBoot-8be4df61-93ca-11d2-aa0d-00e098032b8c"

/* mkdir -p of path's directories, then the file with len bytes of text. */
static void make_file(const char *path, const char *text, size_t len)
{
	char dir[512];
	FILE *f;

	for (const char *slash = strchr(path, '/'); slash; slash = strchr(slash + 1, '/')) {
		snprintf(dir, sizeof(dir), "%.*s", (int)(slash - path), path);
		mkdir(dir, 0755);
	}
	f = fopen(path, "we");
	expect(f && fwrite(text, 1, len, f) == len && !fclose(f), "writing %s", path);
}

static void make_text(const char *path, const char *text)
{
	make_file(path, text, strlen(text));
}

static struct module_facts read_facts(void)
{
	struct module_facts f;

	module_facts_read(".", RELEASE, &f);
	expect(!strcmp(f.release, RELEASE), "release '%s'", f.release);
	return f;
}

/* An empty root: nothing is there. */
static void test_nothing(void)
{
	struct module_facts f = read_facts();

	expect(!f.installed && !f.dkms_source && !f.headers && !f.debian_kernel &&
	       !f.signatures_required && f.signature == MODULE_SIGNATURE_UNKNOWN,
	       "found something: %d %d %d %d %d %d", f.installed, f.dkms_source, f.headers,
	       f.debian_kernel, f.signatures_required, f.signature);
}

/* DKMS's source and the headers of a kernel Debian packages, the module not built. */
static void test_source_and_headers(void)
{
	struct module_facts f;

	make_text("usr/src/pfprof-0.9.0/dkms.conf", "");
	make_text("lib/modules/" RELEASE "/build/Makefile", "");
	make_text("proc/sys/kernel/version", "#1 SMP PREEMPT_DYNAMIC Debian 6.1.158-1 (2025-11-09)\n");
	make_text("lib/modules/" RELEASE "/modules.dep", "kernel/fs/ext4/ext4.ko:\n");
	f = read_facts();
	expect(!f.installed && f.dkms_source && f.headers && f.debian_kernel,
	       "not source and headers: %d %d %d %d", f.installed, f.dkms_source, f.headers,
	       f.debian_kernel);
	/* A kernel built elsewhere (a distribution's own, or by hand) says no Debian. */
	make_text("proc/sys/kernel/version", "#1 SMP PREEMPT_DYNAMIC @0\n");
	expect(!read_facts().debian_kernel, "a kernel built by hand taken for Debian's");
}

/* Built, signed or not, and Secure Boot on or off. */
static void test_signature_and_secure_boot(void)
{
	static const char signed_module[] = "\x7f" "ELF...sig~Module signature appended~\n";
	static const char sb_on[] = { 6, 0, 0, 0, 1 }, sb_off[] = { 6, 0, 0, 0, 0 };
	struct module_facts f;

	make_text("lib/modules/" RELEASE "/modules.dep",
		  "kernel/fs/ext4/ext4.ko:\nupdates/dkms/mp3.ko:\n");
	make_text("lib/modules/" RELEASE "/updates/dkms/mp3.ko", "\x7f" "ELF unsigned");
	make_file(SECURE_BOOT, sb_on, sizeof(sb_on));
	f = read_facts();
	expect(f.installed && f.signature == MODULE_UNSIGNED && f.signatures_required,
	       "unsigned, Secure Boot on: %d %d %d", f.installed, f.signature, f.signatures_required);
	make_text("lib/modules/" RELEASE "/updates/dkms/mp3.ko", signed_module);
	make_file(SECURE_BOOT, sb_off, sizeof(sb_off));
	f = read_facts();
	expect(f.signature == MODULE_SIGNED && !f.signatures_required, "signed, Secure Boot off: %d %d",
	       f.signature, f.signatures_required);
	/* Debian 13's dkms compresses it: its signature is not told from the file. */
	make_text("lib/modules/" RELEASE "/modules.dep", "updates/dkms/mp3.ko.xz:\n");
	f = read_facts();
	expect(f.installed && f.signature == MODULE_SIGNATURE_UNKNOWN, "compressed: %d %d",
	       f.installed, f.signature);
}

/* Without UEFI's word: the kernel's lockdown, or module.sig_enforce, wants signatures too. */
static void test_lockdown_and_sig_enforce(void)
{
	make_text("sys/kernel/security/lockdown", "none [integrity] confidentiality\n");
	expect(read_facts().signatures_required, "lockdown integrity: signatures not required");
	make_text("sys/kernel/security/lockdown", "[none] integrity confidentiality\n");
	expect(!read_facts().signatures_required, "lockdown none: signatures required");
	make_text("sys/module/module/parameters/sig_enforce", "Y\n");
	expect(read_facts().signatures_required, "sig_enforce Y: signatures not required");
}

UNIT_TESTS(UNIT_TEST(nothing), UNIT_TEST(source_and_headers),
	   UNIT_TEST(signature_and_secure_boot), UNIT_TEST(lockdown_and_sig_enforce));
