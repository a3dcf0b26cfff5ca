// SPDX-License-Identifier: GPL-2.0
#include "targetsync.h"

#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/inotify.h>

#include "daemon_log.h"
#include "registrar.h"

static void report_bad_line(void *ctx, const char *file, unsigned int line, const char *message)
{
	(void)ctx;
	dlog(LOG_WARNING, "%s:%u: %s (line ignored)", file, line, message);
}

void targets_sync(struct daemon *d)
{
	struct target_list next;
	int err = target_list_read(d->config.targets_file, &next, report_bad_line, NULL);

	if (err) {
		dlog(LOG_ERR, "reading %s: %s", d->config.targets_file, strerror(-err));
		return;
	}
	registrar_apply(&d->config, &next);
	err = groups_apply(&d->groups, &next);
	if (err) {
		dlog(LOG_ERR, "reading %s: %s", d->config.targets_file, strerror(-err));
		target_list_free(&next);
		return;
	}
	target_list_free(&d->targets);
	d->targets = next;
	groups_sync(&d->groups);
}

static int on_targets_dir_event(sd_event_source *s, const struct inotify_event *ev, void *userdata)
{
	struct daemon *d = userdata;
	char path[PATH_MAX];

	(void)s;
	snprintf(path, sizeof(path), "%s", d->config.targets_file);
	if (ev->len && !strcmp(ev->name, basename(path)))
		targets_sync(d);
	return 0;
}

void targets_watch(struct daemon *d)
{
	char dir[PATH_MAX];
	int err;

	d->targets_watch = sd_event_source_disable_unref(d->targets_watch);
	snprintf(dir, sizeof(dir), "%s", d->config.targets_file);
	err = sd_event_add_inotify(d->loop, &d->targets_watch, dirname(dir),
				   IN_CLOSE_WRITE | IN_MOVED_TO, on_targets_dir_event, d);
	if (err < 0)
		dlog(LOG_WARNING, "cannot watch %s for changes: %s; reload to re-read it",
		     dir, strerror(-err));
}
