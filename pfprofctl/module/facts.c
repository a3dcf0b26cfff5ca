// SPDX-License-Identifier: GPL-2.0
#include "facts.h"

#include <glob.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>

/* What the kernel's sign-file appends to a signed module (module_signature.h). */
#define SIGNATURE_MAGIC "~Module signature appended~\n"
/* The UEFI variable that says whether Secure Boot is on (EFI_GLOBAL_VARIABLE's GUID). */
#define SECURE_BOOT_VAR "/sys/firmware/efi/efivars/SecureBoot-8be4df61-93ca-11d2-aa0d-00e098032b8c"
/* "[none] integrity confidentiality": the mode in brackets. */
#define LOCKDOWN "/sys/kernel/security/lockdown"
#define SIG_ENFORCE "/sys/module/module/parameters/sig_enforce"

static bool exists(const char *root, const char *fmt, const char *release)
{
	char path[PATH_MAX];
	int len = snprintf(path, sizeof(path), "%s", root);

	snprintf(path + len, sizeof(path) - (size_t)len, fmt, release);
	return !access(path, F_OK);
}

/* mp3.ko's path as modules.dep of release lists it, into path; false if it does not. */
static bool find_module(const char *root, const char *release, char *path, size_t size)
{
	char dep[PATH_MAX], *line = NULL;
	size_t cap = 0;
	bool found = false;
	FILE *f;

	snprintf(dep, sizeof(dep), "%s/lib/modules/%s/modules.dep", root, release);
	f = fopen(dep, "re");
	if (!f)
		return false;
	while (!found && getline(&line, &cap, f) > 0) {
		char *colon = strchr(line, ':'), *name;

		if (!colon)
			continue;
		*colon = '\0';
		name = strrchr(line, '/');
		name = name ? name + 1 : line;
		if (strncmp(name, "mp3.ko", strlen("mp3.ko")))
			continue;
		found = true;
		if (line[0] == '/')
			snprintf(path, size, "%s%s", root, line);
		else
			snprintf(path, size, "%s/lib/modules/%s/%s", root, release, line);
	}
	free(line);
	fclose(f);
	return found;
}

/* Whether the module file at path ends in a signature; unknown when compressed. */
static enum module_signature signature_of(const char *path)
{
	char tail[sizeof(SIGNATURE_MAGIC) - 1];
	size_t len = strlen(path);
	enum module_signature s = MODULE_SIGNATURE_UNKNOWN;
	struct stat st;
	FILE *f;

	if (len < 3 || strcmp(path + len - 3, ".ko"))
		return s;
	f = fopen(path, "re");
	if (!f)
		return s;
	if (fstat(fileno(f), &st) || st.st_size < 0)
		goto close;
	/* Too short to end in a signature: not signed. */
	s = MODULE_UNSIGNED;
	if (st.st_size >= (off_t)sizeof(tail) && !fseek(f, -(long)sizeof(tail), SEEK_END) &&
	    fread(tail, sizeof(tail), 1, f) == 1 && !memcmp(tail, SIGNATURE_MAGIC, sizeof(tail)))
		s = MODULE_SIGNED;
close:
	fclose(f);
	return s;
}

/* Its 4 bytes of attributes, then 1: enforced. */
static bool secure_boot_on(const char *root)
{
	unsigned char var[5];
	char path[PATH_MAX];
	bool on = false;
	FILE *f;

	snprintf(path, sizeof(path), "%s" SECURE_BOOT_VAR, root);
	f = fopen(path, "re");
	if (!f)
		return false;
	on = fread(var, sizeof(var), 1, f) == 1 && var[4] == 1;
	fclose(f);
	return on;
}

/* The first line of root's path, into buf; false if it cannot be read. */
static bool read_line(const char *root, const char *path, char *buf, size_t size)
{
	char full[PATH_MAX];
	bool got;
	FILE *f;

	snprintf(full, sizeof(full), "%s%s", root, path);
	f = fopen(full, "re");
	if (!f)
		return false;
	got = fgets(buf, (int)size, f);
	fclose(f);
	return got;
}

static bool signatures_required(const char *root)
{
	char line[128];

	if (secure_boot_on(root))
		return true;
	if (read_line(root, LOCKDOWN, line, sizeof(line)) && !strstr(line, "[none]"))
		return true;
	return read_line(root, SIG_ENFORCE, line, sizeof(line)) && line[0] == 'Y';
}

/*
 * Whether Debian built the running kernel: its version string (uname -v)
 * names the package's version, "... Debian 6.1.158-1 (2025-11-09)". Not
 * dpkg's database, which is dpkg's own to read.
 */
static bool debian_built(const char *root)
{
	char line[256];

	return read_line(root, "/proc/sys/kernel/version", line, sizeof(line)) &&
	       strstr(line, " Debian ");
}

static bool dkms_source_present(const char *root)
{
	char pattern[PATH_MAX];
	glob_t g;
	bool found;

	snprintf(pattern, sizeof(pattern), "%s/usr/src/pfprof-*/dkms.conf", root);
	found = !glob(pattern, 0, NULL, &g);
	if (found)
		globfree(&g);
	return found;
}

void module_facts_read(const char *root, const char *release, struct module_facts *f)
{
	char module[PATH_MAX];
	struct utsname uts;

	*f = (struct module_facts){ .signature = MODULE_SIGNATURE_UNKNOWN };
	if (!release)
		release = uname(&uts) ? "" : uts.release;
	snprintf(f->release, sizeof(f->release), "%s", release);
	f->installed = find_module(root, release, module, sizeof(module));
	if (f->installed)
		f->signature = signature_of(module);
	f->dkms_source = dkms_source_present(root);
	f->headers = exists(root, "/lib/modules/%s/build", release);
	f->debian_kernel = debian_built(root);
	f->signatures_required = signatures_required(root);
}
