// SPDX-License-Identifier: GPL-2.0
#include "promfile.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "atomicfile.h"
#include "clock.h"

/* Starts the comment that lets the next pfprofd go on counting. */
#define STATE_COMMENT "# pfprofd-state "

/* A counter kept as a uint64_t at offset in its struct (struct metrics or struct proc_entry). */
struct counter {
	const char *name;
	const char *help;
	size_t offset;
	bool nanoseconds;	/* exported in seconds */
};

#define METRIC(field) offsetof(struct metrics, field)
#define PROC(field) offsetof(struct proc_entry, field)

static const struct counter totals[] = {
	{ "pfprof_minor_faults_total",
	  "Minor page faults of the registered processes, summed.", METRIC(minor), false },
	{ "pfprof_major_faults_total",
	  "Major page faults of the registered processes, summed.", METRIC(major), false },
	{ "pfprof_cpu_seconds_total",
	  "CPU time (user and system) of the registered processes, summed.", METRIC(cpu_ns), true },
	{ "pfprof_samples_written_total",
	  "Samples of the mp3 module written to pfprofd's log.", METRIC(samples_written), false },
	{ "pfprof_samples_lost_total",
	  "Samples overwritten in the module's ring before pfprofd could read them.",
	  METRIC(samples_lost), false },
	{ "pfprof_process_series_omitted_total",
	  "Processes left out of the per-process series by prometheus_max_processes.",
	  METRIC(omitted), false },
};

static const struct counter per_process[] = {
	{ "pfprof_process_minor_faults_total",
	  "Minor page faults of a registered process.", PROC(minor), false },
	{ "pfprof_process_major_faults_total",
	  "Major page faults of a registered process.", PROC(major), false },
	{ "pfprof_process_cpu_seconds_total",
	  "CPU time (user and system) of a registered process.", PROC(cpu_ns), true },
};

/* The module's counters that start from 0 at each load: a struct load_counter at offset. */
static const struct counter module_totals[] = {
	{ "pfprof_sampler_seconds_total",
	  "Time the mp3 module spent taking samples.", METRIC(sampler_ns), true },
	{ "pfprof_sampler_runs_total", "Samples the mp3 module took.", METRIC(sampler_runs), false },
};

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

static uint64_t *field_at(void *base, const struct counter *c)
{
	return (uint64_t *)((char *)base + c->offset);
}

static struct load_counter *load_counter_at(struct metrics *m, const struct counter *c)
{
	return (struct load_counter *)((char *)m + c->offset);
}

static void put_header(FILE *out, const char *name, const char *type, const char *help)
{
	fprintf(out, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, type);
}

static void put_value(FILE *out, uint64_t value, bool nanoseconds)
{
	if (nanoseconds)
		fprintf(out, " %" PRIu64 ".%09" PRIu64 "\n", value / NSEC_PER_SEC,
			value % NSEC_PER_SEC);
	else
		fprintf(out, " %" PRIu64 "\n", value);
}

static void put_counter(FILE *out, const char *name, const char *help, uint64_t value,
			bool nanoseconds)
{
	put_header(out, name, "counter", help);
	fputs(name, out);
	put_value(out, value, nanoseconds);
}

static void put_gauge(FILE *out, const char *name, const char *help, double value)
{
	put_header(out, name, "gauge", help);
	fprintf(out, "%s %.4f\n", name, value);
}

/*
 * A label value: backslash and double quote escaped as the format wants;
 * bytes that are not printable ASCII become '?', since a comm may be cut in
 * the middle of a UTF-8 character and the format takes only valid UTF-8.
 */
static void put_label_value(FILE *out, const char *text)
{
	for (const unsigned char *p = (const unsigned char *)text; *p; p++) {
		if (*p == '\\' || *p == '"')
			fputc('\\', out);
		fputc(*p >= 0x20 && *p < 0x7f ? *p : '?', out);
	}
}

static void put_processes(FILE *out, struct metrics *m, const struct counter *c)
{
	put_header(out, c->name, "counter", c->help);
	for (size_t i = 0; i < m->procs.cap; i++) {
		struct proc_entry *e = &m->procs.slots[i];

		if (!e->tgid || !(e->marks & METRICS_EXPORTED))
			continue;
		fprintf(out, "%s{pid=\"%d\",comm=\"", c->name, (int)e->tgid);
		put_label_value(out, proctable_name(e));
		fputs("\"}", out);
		put_value(out, *field_at(e, c), c->nanoseconds);
	}
}

static void put_context(FILE *out, const struct metrics *m)
{
	if (m->have_system) {
		put_counter(out, "pfprof_system_major_faults_total",
			    "Major page faults of the whole system since boot (/proc/vmstat pgmajfault).",
			    m->pgmajfault, false);
		put_counter(out, "pfprof_swap_in_pages_total",
			    "Pages swapped in since boot (/proc/vmstat pswpin).", m->pswpin, false);
		put_counter(out, "pfprof_swap_out_pages_total",
			    "Pages swapped out since boot (/proc/vmstat pswpout).", m->pswpout, false);
	}
	if (m->have_psi) {
		put_gauge(out, "pfprof_memory_pressure_some_ratio",
			  "Share of the last 10 s in which some tasks stalled on memory (PSI avg10).",
			  m->psi.some_avg10 / 100);
		put_gauge(out, "pfprof_memory_pressure_full_ratio",
			  "Share of the last 10 s in which all tasks stalled on memory (PSI avg10).",
			  m->psi.full_avg10 / 100);
	}
}

int promfile_render(FILE *out, struct metrics *m)
{
	for (size_t i = 0; i < ARRAY_SIZE(per_process); i++)
		put_processes(out, m, &per_process[i]);
	for (size_t i = 0; i < ARRAY_SIZE(totals); i++)
		put_counter(out, totals[i].name, totals[i].help, *field_at(m, &totals[i]),
			    totals[i].nanoseconds);
	put_header(out, "pfprof_registered_processes", "gauge",
		   "Processes the mp3 module samples.");
	fprintf(out, "pfprof_registered_processes %zu\n", m->registered);
	for (size_t i = 0; i < ARRAY_SIZE(module_totals); i++)
		put_counter(out, module_totals[i].name, module_totals[i].help,
			    load_counter_total(load_counter_at(m, &module_totals[i])),
			    module_totals[i].nanoseconds);
	put_context(out, m);
	fprintf(out, STATE_COMMENT "load_id=%016" PRIx64 " sampler_ns=%" PRIu64
		" sampler_runs=%" PRIu64 "\n", m->sampler_ns.load_id, m->sampler_ns.current,
		m->sampler_runs.current);
	return ferror(out) ? -EIO : 0;
}

static int file_path(char *buf, size_t size, const char *dir, const char *name)
{
	int len = snprintf(buf, size, "%s/%s", dir, name);

	return len < 0 || (size_t)len >= size ? -ENAMETOOLONG : 0;
}

int promfile_write(const char *dir, struct metrics *m)
{
	struct atomic_file f;
	char path[PATH_MAX];
	int err = file_path(path, sizeof(path), dir, PROMFILE_NAME);

	/* The temporary pfprof.prom.XXXXXX does not end in ".prom": node_exporter skips it. */
	if (!err)
		err = atomic_file_begin(&f, path);
	if (err)
		return err;
	err = promfile_render(f.out, m);
	if (err) {
		atomic_file_abort(&f);
		return err;
	}
	/* Not durable: rewritten every few seconds, and node_exporter runs as another user. */
	return atomic_file_commit(&f, 0644, false);
}

/* "123" or, for nanoseconds, "1.5" or "12.000000001"; false on anything else. */
static bool parse_value(const char *text, bool nanoseconds, uint64_t *out)
{
	uint64_t whole = 0, fraction = 0, scale = NSEC_PER_SEC;
	const char *p = text;

	for (; *p >= '0' && *p <= '9'; p++) {
		if (whole > (UINT64_MAX - 9) / 10)
			return false;
		whole = whole * 10 + (uint64_t)(*p - '0');
	}
	if (p == text)
		return false;
	if (nanoseconds && *p == '.') {
		for (p++; *p >= '0' && *p <= '9'; p++) {
			if (scale > 1) {
				scale /= 10;
				fraction += (uint64_t)(*p - '0') * scale;
			}
		}
	}
	if (*p && *p != '\n')
		return false;
	if (nanoseconds && whole > (UINT64_MAX - fraction) / NSEC_PER_SEC)
		return false;
	*out = nanoseconds ? whole * NSEC_PER_SEC + fraction : whole;
	return true;
}

static const struct counter *find_counter(const struct counter *table, size_t n, const char *name,
					  size_t len)
{
	for (size_t i = 0; i < n; i++)
		if (strlen(table[i].name) == len && !strncmp(table[i].name, name, len))
			return &table[i];
	return NULL;
}

/*
 * Reads `{pid="N",comm="..."} ` as put_processes() writes it; returns where
 * the value starts, or NULL.
 */
static const char *parse_labels(const char *p, pid_t *pid, char *comm, size_t comm_size)
{
	size_t len = 0;
	char *end;
	long n;

	if (strncmp(p, "{pid=\"", 6))
		return NULL;
	n = strtol(p + 6, &end, 10);
	if (end == p + 6 || n <= 0 || n > INT_MAX || strncmp(end, "\",comm=\"", 8))
		return NULL;
	*pid = (pid_t)n;
	for (p = end + 8; *p && *p != '"'; p++) {
		if (*p == '\\' && p[1])
			p++;
		if (len + 1 >= comm_size)
			return NULL;
		comm[len++] = *p;
	}
	comm[len] = '\0';
	return strncmp(p, "\"} ", 3) ? NULL : p + 3;
}

/* A per-process line into m->procs. */
static void seed_process(struct metrics *m, const struct counter *c, const char *labels)
{
	char comm[sizeof(((struct proc_entry *)0)->comm)];
	struct proc_entry *e;
	const char *value;
	uint64_t v;
	pid_t pid;

	value = parse_labels(labels, &pid, comm, sizeof(comm));
	if (!value || !parse_value(value, c->nanoseconds, &v))
		return;
	e = proctable_find(&m->procs, pid);
	if (!e)
		return;
	memcpy(e->comm, comm, sizeof(comm));
	*field_at(e, c) = v;
}

static void seed_state(struct metrics *m, const char *text)
{
	uint64_t load_id, ns, runs;

	if (sscanf(text, "load_id=%" SCNx64 " sampler_ns=%" SCNu64 " sampler_runs=%" SCNu64,
		   &load_id, &ns, &runs) != 3)
		return;
	load_counter_resume(&m->sampler_ns, load_id, ns);
	load_counter_resume(&m->sampler_runs, load_id, runs);
}

static void seed_line(struct metrics *m, const char *line)
{
	size_t len = strcspn(line, "{ ");
	const struct counter *c;
	uint64_t v;

	if (!strncmp(line, STATE_COMMENT, strlen(STATE_COMMENT))) {
		seed_state(m, line + strlen(STATE_COMMENT));
	} else if (line[len] == '{') {
		c = find_counter(per_process, ARRAY_SIZE(per_process), line, len);
		if (c)
			seed_process(m, c, line + len);
	} else if (line[len] == ' ') {
		c = find_counter(totals, ARRAY_SIZE(totals), line, len);
		if (c && parse_value(line + len + 1, c->nanoseconds, &v))
			*field_at(m, c) = v;
		/* Until the state comment says which of it is the module's current load's. */
		c = find_counter(module_totals, ARRAY_SIZE(module_totals), line, len);
		if (c && parse_value(line + len + 1, c->nanoseconds, &v))
			load_counter_at(m, c)->before = v;
	}
}

int promfile_seed(const char *dir, struct metrics *m)
{
	char path[PATH_MAX], *line = NULL;
	size_t size = 0;
	FILE *in;
	int fd, err = file_path(path, sizeof(path), dir, PROMFILE_NAME);

	if (err)
		return err;
	/* The directory is node_exporter's: a link there is not pfprofd's file. */
	fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	in = fdopen(fd, "r");
	if (!in) {
		err = -errno;
		close(fd);
		return err;
	}
	while (getline(&line, &size, in) >= 0)
		seed_line(m, line);
	err = ferror(in) ? -EIO : 0;
	free(line);
	fclose(in);
	return err;
}
