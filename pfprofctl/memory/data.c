// SPDX-License-Identifier: GPL-2.0
#include "data.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "ctl.h"
#include "logscan.h"

bool memory_log_foreign(const char *line)
{
	/* A file's first line names its log. */
	return !strncmp(line, "# pfprof ", 9) &&
	       strncmp(line, LOGFORMAT_PAGES_MAGIC, strlen(LOGFORMAT_PAGES_MAGIC));
}

void memory_log_failed(const char *log_dir, int err)
{
	if (err == -EPROTO)
		ctl_error(0, "%s/" LOGFORMAT_PAGES_FILE "* holds a file that is not a pfprof pages "
			  "log (its first line is not '" LOGFORMAT_PAGES_MAGIC "N')", log_dir);
	else
		ctl_error(err, "reading %s/" LOGFORMAT_PAGES_FILE, log_dir);
}

static void replay_line(char *line, void *ctx)
{
	struct memory_log *m = ctx;
	struct log_page pg;
	int err;

	if (line[0] == '#') {
		m->foreign |= memory_log_foreign(line);
		return;
	}
	if (!logformat_parse_page(line, &pg)) {
		m->bad_lines++;
		return;
	}
	m->lines++;
	err = refaults_add(&m->replay, &pg);
	if (err && !m->err)
		m->err = err;
	if (pg.wall_ns < m->replay.from_ns)
		return;
	err = pg.event == LOGFORMAT_FILE_REFAULT ? refault_files_add(&m->files, &pg) : 0;
	if (err && !m->err)
		m->err = err;
	if (!m->first_ns || pg.wall_ns < m->first_ns)
		m->first_ns = pg.wall_ns;
	if (pg.wall_ns > m->last_ns)
		m->last_ns = pg.wall_ns;
}

int memory_log_read(struct memory_log *m, const char *dir, unsigned int keep, uint64_t since_ns,
		    bool machine_clock)
{
	int err;

	*m = (struct memory_log){ 0 };
	refaults_init(&m->replay, since_ns, UINT64_MAX);
	m->replay.machine_clock = machine_clock;
	err = logscan_forward(dir, LOGKIND_PAGES, keep, replay_line, m);
	if (!err && m->foreign)
		err = -EPROTO;
	return err ? err : m->err;
}

void memory_log_free(struct memory_log *m)
{
	refaults_free(&m->replay);
	refault_files_free(&m->files);
}
