// SPDX-License-Identifier: GPL-2.0
#include "script.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ctl.h"

/* The directory of the running pfprofctl, or "" if /proc cannot tell. */
static void exe_dir(char *buf, size_t size)
{
	ssize_t n = readlink("/proc/self/exe", buf, size - 1);
	char *slash;

	buf[n > 0 ? n : 0] = '\0';
	slash = strrchr(buf, '/');
	if (slash)
		*slash = '\0';
	else
		buf[0] = '\0';
}

/* buf if dir/name (dir NULL: name) is readable, else NULL; dir "" is unknown. */
static const char *try_path(char *buf, size_t size, const char *dir, const char *name)
{
	int n = dir ? snprintf(buf, size, "%s/%s", dir, name) : snprintf(buf, size, "%s", name);

	if ((dir && !dir[0]) || n < 0 || (size_t)n >= size)
		return NULL;
	return access(buf, R_OK) ? NULL : buf;
}

const char *plot_script_find(char *buf, size_t size)
{
	const char *env = getenv("PFPROF_PLOT_SCRIPT");
	char dir[PATH_MAX];

	if (env) {
		if (access(env, R_OK)) {
			ctl_error(-errno, "reading %s (PFPROF_PLOT_SCRIPT)", env);
			return NULL;
		}
		snprintf(buf, size, "%s", env);
		return buf;
	}
	exe_dir(dir, sizeof(dir));
	if (try_path(buf, size, dir, PLOTSCRIPT_NAME) ||
	    try_path(buf, size, dir, "../plots/" PLOTSCRIPT_NAME) ||
	    try_path(buf, size, NULL, PFPROF_PLOT_SCRIPT))
		return buf;
	if (dir[0])
		ctl_error(-ENOENT, "finding " PLOTSCRIPT_NAME " (in %s, %s/../plots, %s)", dir, dir,
			  PFPROF_PLOT_SCRIPT);
	else
		ctl_error(-ENOENT, "finding %s (pfprofctl's own directory unknown)",
			  PFPROF_PLOT_SCRIPT);
	ctl_hint("install it (make install), or set PFPROF_PLOT_SCRIPT");
	return NULL;
}
