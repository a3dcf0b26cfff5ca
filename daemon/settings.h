/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pfprofd's configuration (pfprofd.conf(5)) and what it makes: read at
 * start and at every reload, problems reported through dlog().
 */
#ifndef PFPROF_SETTINGS_H
#define PFPROF_SETTINGS_H

#include "config.h"
#include "logwriter.h"

/*
 * Reads path, or the default file when path is NULL (which may be missing).
 * 0, or -errno after saying why; *config holds the defaults then.
 */
int settings_load(struct pfprof_config *config, const char *path);

/*
 * pfprofd --check-config: reads path (or the default file) as settings_load()
 * does, but each bad line is an error. 0 when every line is good; -EINVAL
 * after naming each bad line with its file and number; -errno after saying why
 * the file cannot be read.
 */
int settings_check(const char *path);

/*
 * The writers of every log (by enum log_kind) with the config's directory and
 * rotation: all of them, or none and -errno.
 */
int settings_new_logs(const struct pfprof_config *config, struct logwriter *logs[LOG_KINDS]);
void settings_free_logs(struct logwriter *logs[LOG_KINDS]);

#endif /* PFPROF_SETTINGS_H */
