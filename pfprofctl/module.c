// SPDX-License-Identifier: GPL-2.0
/*
 * pfprofctl: whether the mp3 module is there, said the same way by every
 * command: loaded or not, and if not, installed for this kernel or not.
 */
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>

#include "ctl.h"

/* Whether modules.dep lists mp3.ko (any compression) for the kernel kver. */
static bool module_installed(const char *kver)
{
	char path[PATH_MAX], *line = NULL;
	size_t size = 0;
	bool found = false;
	FILE *f;

	snprintf(path, sizeof(path), "/lib/modules/%s/modules.dep", kver);
	f = fopen(path, "re");
	if (!f)
		return false;
	while (!found && getline(&line, &size, f) > 0) {
		char *colon = strchr(line, ':'), *name;

		if (!colon)
			continue;
		*colon = '\0';
		name = strrchr(line, '/');
		name = name ? name + 1 : line;
		found = !strncmp(name, "mp3.ko", strlen("mp3.ko"));
	}
	free(line);
	fclose(f);
	return found;
}

bool ctl_module_installed(struct utsname *uts)
{
	return uname(uts) || module_installed(uts->release);
}

int ctl_module_error(int err, const char *object)
{
	struct utsname uts;

	if (pfprof_module_missing(err)) {
		if (ctl_module_installed(&uts))
			fprintf(stderr, "pfprofctl: the mp3 module is not loaded; load it with: "
				"modprobe mp3\n");
		else
			fprintf(stderr, "pfprofctl: the mp3 module is not loaded, nor installed for "
				"the running kernel %s: apt install linux-headers-%s (DKMS builds "
				"it), or from a build tree: insmod module/mp3.ko\n", uts.release,
				uts.release);
		return PFPROF_EXIT_NO_MODULE;
	}
	ctl_error(err, "%s", object);
	if (err == -EACCES || err == -EPERM)
		ctl_hint("you need more privileges for %s (root, or the group that owns it)",
			 object);
	return PFPROF_EXIT_FAILED;
}

bool ctl_module_missing_note(const struct ctl *ctl, int err, const char *fmt, ...)
{
	va_list ap;

	if (!pfprof_module_missing(err))
		return false;
	fprintf(stderr, "pfprofctl: the mp3 module is not loaded (%s: %s): ",
		ctl->config.status_file, strerror(-err));
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	return true;
}
