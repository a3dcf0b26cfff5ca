// SPDX-License-Identifier: GPL-2.0
#include "settings.h"

#include <errno.h>
#include <string.h>

#include "daemon_log.h"
#include "pfprof.h"

static void report_line(void *ctx, const char *file, unsigned int line, const char *message)
{
	(void)ctx;
	dlog(LOG_WARNING, "%s:%u: %s (line ignored)", file, line, message);
}

/* --check-config: each problem is an error, counted in *ctx. */
static void count_line(void *ctx, const char *file, unsigned int line, const char *message)
{
	++*(unsigned int *)ctx;
	dlog(LOG_ERR, "%s:%u: %s", file, line, message);
}

static int load(struct pfprof_config *config, const char *path, config_report_fn *report,
		void *ctx)
{
	int err = config_load_file(config, path, report, ctx);

	if (err)
		dlog(LOG_ERR, "reading %s: %s", path ? path : PFPROF_CONFIG_PATH, strerror(-err));
	return err;
}

int settings_load(struct pfprof_config *config, const char *path)
{
	return load(config, path, report_line, NULL);
}

int settings_check(const char *path)
{
	struct pfprof_config config;
	unsigned int problems = 0;
	int err = load(&config, path, count_line, &problems);

	if (err)
		return err;
	return problems ? -EINVAL : 0;
}

int settings_new_logs(const struct pfprof_config *config, struct logwriter *logs[LOG_KINDS])
{
	struct logrotate_policy policy = {
		.size = config->rotate_size,
		.age_s = config->rotate_age_s,
		.keep = config->keep,
	};

	for (int k = 0; k < LOG_KINDS; k++) {
		logs[k] = logwriter_new(config->log_dir, k, &policy);
		if (!logs[k]) {
			int err = -errno;

			settings_free_logs(logs);
			return err;
		}
	}
	return 0;
}

void settings_free_logs(struct logwriter *logs[LOG_KINDS])
{
	for (int k = 0; k < LOG_KINDS; k++) {
		logwriter_free(logs[k]);
		logs[k] = NULL;
	}
}
