// SPDX-License-Identifier: GPL-2.0
#include "data.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <linux/mp3.h>

#include "growarray.h"
#include "logformat.h"
#include "logrotate.h"
#include "logscan.h"
#include "sorted.h"

/* The row at an index of t->order against a line's key (sorted_compare). */
static int compare_key(const void *index, const void *line, void *table)
{
	const struct where_table *t = table;
	const struct where_row *r = &t->rows[*(const size_t *)index];
	const struct log_fault *l = line;

	if (t->target) {
		if (r->mapping != l->mapping)
			return r->mapping < l->mapping ? -1 : 1;
		if (r->inode != l->inode)
			return r->inode < l->inode ? -1 : 1;
		return strcmp(r->name, l->name);
	}
	if ((uint32_t)r->pid != l->pid)
		return (uint32_t)r->pid < l->pid ? -1 : 1;
	if (r->start != l->start)
		return r->start < l->start ? -1 : 1;
	if (r->mapping != l->mapping)
		return r->mapping < l->mapping ? -1 : 1;
	return r->inode < l->inode ? -1 : r->inode > l->inode;
}

/* Room for one more row and its place in the order; false without memory. */
static bool reserve_row(struct where_table *t)
{
	size_t rows_cap = t->cap, order_cap = t->cap;
	struct where_row *rows = grow_array(t->rows, &rows_cap, t->count, sizeof(*rows), 16);
	size_t *order;

	if (!rows)
		return false;
	t->rows = rows;
	order = grow_array(t->order, &order_cap, t->count, sizeof(*order), 16);
	if (!order)
		return false;
	t->order = order;
	/* Both have at least this room now (rows perhaps more, after a failure before). */
	t->cap = order_cap < rows_cap ? order_cap : rows_cap;
	return true;
}

/*
 * gcc 12's -fanalyzer (tests/static.sh) takes the name stored in t->rows as
 * leaked once t->order, another array, is written at a computed index: it
 * cannot tell the two allocations apart. where_table_free() frees it.
 */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wanalyzer-malloc-leak"
/*
 * The row of l's mapping, found through t->order (the rows' indexes in
 * (pid, start, mapping, inode) order, or a target's (mapping, inode, name)),
 * or a new one, named and sized by l: the newest line of it. NULL without
 * memory.
 */
static struct where_row *row_of(struct where_table *t, const struct log_fault *l)
{
	bool found;
	size_t at = sorted_find(t->order, t->count, sizeof(*t->order), l, compare_key, t, &found);
	struct where_row *r;
	char *name;

	if (found)
		return &t->rows[t->order[at]];
	if (!reserve_row(t))
		return NULL;
	name = strdup(l->name);
	if (!name)
		return NULL;
	r = &t->rows[t->count];
	*r = (struct where_row){ .mapping = l->mapping, .inode = l->inode, .name = name };
	if (!t->target) {
		r->pid = (pid_t)l->pid;
		r->start = l->start;
		r->size = l->size;
	}
	snprintf(r->comm, sizeof(r->comm), "%s", l->comm);
	*(size_t *)sorted_make_room(t->order, t->count, sizeof(*t->order), at) = t->count;
	t->count++;
	return r;
}
#pragma GCC diagnostic pop

static int compare_pid(const void *element, const void *key, void *unused)
{
	pid_t a = *(const pid_t *)element, b = *(const pid_t *)key;

	(void)unused;
	return (a > b) - (a < b);
}

/* Notes l's process among the table's; false without memory. */
static bool note_pid(struct where_table *t, pid_t pid)
{
	bool found;
	size_t at = sorted_find(t->pids, t->nr_pids, sizeof(pid), &pid, compare_pid, NULL, &found);
	pid_t *pids;

	if (found)
		return true;
	pids = grow_array(t->pids, &t->pids_cap, t->nr_pids, sizeof(*pids), 16);
	if (!pids)
		return false;
	t->pids = pids;
	*(pid_t *)sorted_make_room(pids, t->nr_pids, sizeof(*pids), at) = pid;
	t->nr_pids++;
	return true;
}

/* A line's time of faults of one kind, unless it does not know it. */
static void add_time(struct where_time *w, uint64_t faults, uint64_t ns)
{
	if (ns == LOGFORMAT_TIME_UNKNOWN)
		return;
	w->ns += ns;
	w->faults += faults;
	w->known = true;
}

static void add_times(struct where_time time[LATENCY_KINDS], const struct log_fault *l)
{
	add_time(&time[LATENCY_MINOR], l->minor, l->minor_ns);
	add_time(&time[LATENCY_MAJOR], l->major, l->major_ns);
}

bool where_time_total(const struct where_time time[LATENCY_KINDS], uint64_t *ns,
		      uint64_t *faults)
{
	*ns = time[LATENCY_MINOR].ns + time[LATENCY_MAJOR].ns;
	*faults = time[LATENCY_MINOR].faults + time[LATENCY_MAJOR].faults;
	return time[LATENCY_MINOR].known || time[LATENCY_MAJOR].known;
}

int where_add(struct where_table *t, const struct log_fault *l)
{
	struct where_row *r = row_of(t, l);

	if (!r || !note_pid(t, (pid_t)l->pid))
		return -ENOMEM;
	if (!t->lines++) {
		snprintf(t->comm, sizeof(t->comm), "%s", l->comm);
		t->last_s = (double)l->wall_ns / 1e9;
	}
	t->first_s = (double)l->wall_ns / 1e9;
	r->minor += l->minor;
	r->major += l->major;
	t->minor += l->minor;
	t->major += l->major;
	add_times(r->time, l);
	add_times(t->time, l);
	return 0;
}

/* What logscan_backward() hands each line to. */
struct scan {
	struct where_table t;	/* the caller's, handed back at the end */
	double since_s;
	bool reached;		/* a line older than since_s: stop, older files too */
	int err;
};

static bool scan_line(const char *text, size_t len, void *arg)
{
	struct scan *s = arg;
	char line[LOGFORMAT_LINE_MAX];
	struct log_fault l;

	if (len >= sizeof(line))
		return false;
	memcpy(line, text, len);
	line[len] = '\0';
	if (!logformat_parse_fault(line, &l))
		return false;
	if ((double)l.wall_ns / 1e9 < s->since_s) {
		s->reached = true;
		return true;
	}
	if (s->t.target ? l.target != s->t.target : s->t.pid && l.pid != (uint32_t)s->t.pid)
		return false;
	s->err = where_add(&s->t, &l);
	return s->err != 0;
}

/* Whether the file at fd begins as a faults log does: 0, -EPROTO or -errno. */
static int check_magic(int fd)
{
	char first[sizeof(LOGFORMAT_FAULTS_MAGIC) - 1];
	ssize_t n = pread(fd, first, sizeof(first), 0);

	if (n < 0)
		return -errno;
	/* An empty file is one pfprofd has just made. */
	if (n && ((size_t)n < sizeof(first) || memcmp(first, LOGFORMAT_FAULTS_MAGIC, (size_t)n)))
		return -EPROTO;
	return 0;
}

/* Scans one file back; -ENOENT if it does not exist, -EPROTO if it is not a faults log. */
static int scan_file(const char *path, struct scan *s)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	uint64_t end;
	struct stat st;
	int err;

	if (fd < 0)
		return -errno;
	err = check_magic(fd);
	if (!err)
		err = fstat(fd, &st) ? -errno : logscan_complete_end(fd, (uint64_t)st.st_size, &end);
	if (!err)
		err = logscan_backward(fd, end, scan_line, s);
	close(fd);
	return err ? err : s->err;
}

/* logrotate_each()'s fn: 1 once a line older than since_s was reached, which stops it. */
static int scan_log_file(const char *path, void *s)
{
	int err = scan_file(path, s);

	/* -ENOENT: rotated away since the listing, its lines now in the next. */
	if (err == -ENOENT)
		return 0;
	return err ? err : ((struct scan *)s)->reached;
}

int where_read_logs(struct where_table *t, const char *dir, unsigned int keep, double since_s)
{
	struct scan s = { .t = *t, .since_s = since_s };
	int err = logrotate_each(dir, LOGKIND_FAULTS, keep, LOGROTATE_NEWEST_FIRST, scan_log_file, &s);

	*t = s.t;
	return err == -ENOENT || err == 1 ? 0 : err;
}

static int compare_rows(const void *a, const void *b)
{
	const struct where_row *x = a, *y = b;

	if (x->major != y->major)
		return x->major > y->major ? -1 : 1;
	if (x->minor != y->minor)
		return x->minor > y->minor ? -1 : 1;
	return x->start < y->start ? -1 : x->start > y->start;
}

void where_sort(struct where_table *t)
{
	if (t->count)
		qsort(t->rows, t->count, sizeof(*t->rows), compare_rows);
}

void where_table_free(struct where_table *t)
{
	for (size_t i = 0; i < t->count; i++)
		free(t->rows[i].name);
	free(t->rows);
	free(t->order);
	free(t->pids);
	t->rows = NULL;
	t->order = NULL;
	t->pids = NULL;
	t->count = t->cap = 0;
	t->nr_pids = t->pids_cap = 0;
}
