// SPDX-License-Identifier: GPL-2.0
#include "counterfile.h"

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "atomicfile.h"
#include "printable.h"

/* A uint64_t counter of struct counters, at offset. */
struct total {
	const char *key;
	size_t offset;
};

#define TOTAL(key, field) { key, offsetof(struct counters, field) }

static const struct total totals[] = {
	TOTAL("minor_faults", minor),
	TOTAL("major_faults", major),
	TOTAL("cpu_ns", cpu_ns),
	TOTAL("samples_written", samples_written),
	TOTAL("samples_lost", samples_lost),
	TOTAL("series_omitted", omitted),
};

/* The module's counters, which start from 0 at each load: struct load_counter at offset. */
static const struct total load_counters[] = {
	TOTAL("sampler_ns", sampler_ns),
	TOTAL("sampler_runs", sampler_runs),
	TOTAL("follow_skipped", follow_skipped),
	TOTAL("follow_missed", follow_missed),
	TOTAL("latency_missed", latency_missed),
	TOTAL("swap_dropped", swap_dropped),
};

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

static uint64_t *total_at(struct counters *c, const struct total *t)
{
	return (uint64_t *)((char *)c + t->offset);
}

static struct load_counter *load_counter_at(struct counters *c, const struct total *t)
{
	return (struct load_counter *)((char *)c + t->offset);
}

static void put_load_counter(FILE *out, const char *key, const struct load_counter *lc)
{
	fprintf(out, "%s %016" PRIx64 " %" PRIu64 " %" PRIu64 "\n", key, lc->load_id,
		lc->current, lc->before);
}

/* A name on the rest of its line: printable(), so that no line end splits it. */
static void put_comm(FILE *out, const char *comm)
{
	char name[sizeof(((struct proc_entry *)0)->comm)];

	snprintf(name, sizeof(name), "%s", comm);
	fprintf(out, "%s\n", printable(name));
}

/*
 * A process's or target's waits measured (with SERIES_STALLS, or a target's
 * stalls), on a line of their own after its number: a file without them,
 * from a pfprofd before them, reads as nothing measured yet.
 */
static void put_stalls(FILE *out, const char *key, uint32_t number,
		       const uint64_t us[STALL_KINDS])
{
	fprintf(out, "%s %" PRIu32, key, number);
	for (int k = 0; k < STALL_KINDS; k++)
		fprintf(out, " %" PRIu64, us[k]);
	fputc('\n', out);
}

/*
 * A target's durations (if timed), a line per kind: its time summed, then
 * the faults by bucket. A file without them, from a pfprofd before them,
 * reads as none timed yet.
 */
static void put_latency(FILE *out, const struct target_total *t)
{
	for (int k = 0; k < LATENCY_KINDS; k++) {
		const struct latency_hist *h = &t->latency[k];

		fprintf(out, "target_latency %" PRIu32 " %s %" PRIu64, t->number,
			latency_kind_word(k), h->time_ns);
		for (int b = 0; b < MP3_LATENCY_BUCKETS; b++)
			fprintf(out, " %" PRIu64, h->faults[b]);
		fputc('\n', out);
	}
}

int counterfile_render(FILE *out, const struct counters *c)
{
	fputs("# pfprofd's counters: it counts on from them when it starts again (pfprofd(8))\n",
	      out);
	for (size_t i = 0; i < ARRAY_SIZE(totals); i++)
		fprintf(out, "%s %" PRIu64 "\n", totals[i].key,
			*total_at((struct counters *)c, &totals[i]));
	for (size_t i = 0; i < ARRAY_SIZE(load_counters); i++)
		put_load_counter(out, load_counters[i].key,
				 load_counter_at((struct counters *)c, &load_counters[i]));
	for (size_t i = 0; i < c->procs.cap; i++) {
		const struct proc_entry *e = &c->procs.slots[i];

		if (!e->tgid)
			continue;
		fprintf(out, "process %d %" PRIu64 " %" PRIu64 " %" PRIu64 " ", (int)e->tgid,
			e->minor, e->major, e->cpu_ns);
		put_comm(out, e->comm);
		if (e->placed)
			fprintf(out, "process_major_by_mapping %d %" PRIu64 " %" PRIu64 " %" PRIu64
				"\n", (int)e->tgid, e->major_in[MAPPING_GROUP_ANON],
				e->major_in[MAPPING_GROUP_FILE], e->major_in[MAPPING_GROUP_SHMEM]);
		if (e->marks & SERIES_STALLS)
			put_stalls(out, "process_stalls", (uint32_t)e->tgid, e->stall_us);
	}
	for (size_t i = 0; i < c->nr_targets; i++) {
		const struct target_total *t = &c->targets[i];

		fprintf(out, "target %" PRIu32 " %" PRIu64 " %" PRIu64 " %" PRIu64 "\n", t->number,
			t->minor, t->major, t->cpu_ns);
		if (t->stalls)
			put_stalls(out, "target_stalls", t->number, t->stall_us);
		if (t->timed)
			put_latency(out, t);
	}
	return ferror(out) ? -EIO : 0;
}

static int file_path(char *buf, size_t size, const char *dir)
{
	int len = snprintf(buf, size, "%s/" COUNTERFILE_NAME, dir);

	return len < 0 || (size_t)len >= size ? -ENAMETOOLONG : 0;
}

int counterfile_save(const char *dir, const struct counters *c, bool durable)
{
	struct atomic_file f;
	char path[PATH_MAX];
	int err = file_path(path, sizeof(path), dir);

	if (!err)
		err = atomic_file_begin(&f, path);
	if (err)
		return err;
	err = counterfile_render(f.out, c);
	if (err) {
		atomic_file_abort(&f);
		return err;
	}
	return atomic_file_commit_private(&f, durable);
}

static void load_process(struct counters *c, const char *text)
{
	uint64_t minor, major, cpu_ns;
	struct proc_entry *e;
	int pid, comm_at;

	if (sscanf(text, "%d %" SCNu64 " %" SCNu64 " %" SCNu64 " %n", &pid, &minor, &major,
		   &cpu_ns, &comm_at) != 4 || pid <= 0)
		return;
	e = proctable_find_or_add(&c->procs, pid);
	if (!e)
		return;
	e->minor = minor;
	e->major = major;
	e->cpu_ns = cpu_ns;
	snprintf(e->comm, sizeof(e->comm), "%.*s", (int)strcspn(text + comm_at, "\n"),
		 text + comm_at);
}

static void load_process_by_mapping(struct counters *c, const char *text)
{
	uint64_t v[MAPPING_GROUPS];
	struct proc_entry *e;
	int pid;

	if (sscanf(text, "%d %" SCNu64 " %" SCNu64 " %" SCNu64, &pid, &v[MAPPING_GROUP_ANON],
		   &v[MAPPING_GROUP_FILE], &v[MAPPING_GROUP_SHMEM]) != 4 || pid <= 0)
		return;
	e = proctable_find_or_add(&c->procs, pid);
	if (!e)
		return;
	memcpy(e->major_in, v, sizeof(v));
	e->placed = true;
}

static void load_target(struct counters *c, const char *text)
{
	uint64_t minor, major, cpu_ns;
	struct target_total *t;
	uint32_t number;

	if (sscanf(text, "%" SCNu32 " %" SCNu64 " %" SCNu64 " %" SCNu64, &number, &minor, &major,
		   &cpu_ns) != 4 || !number)
		return;
	t = counters_target(c, number);
	if (!t)
		return;
	t->minor = minor;
	t->major = major;
	t->cpu_ns = cpu_ns;
}

/* put_stalls()'s line after its key: its number (not 0) and the waits; false if malformed. */
static bool scan_stalls(const char *text, uint32_t *number, uint64_t us[STALL_KINDS])
{
	int len;

	if (sscanf(text, "%" SCNu32 "%n", number, &len) != 1 || !*number)
		return false;
	for (int k = 0; k < STALL_KINDS; k++) {
		text += len;
		if (sscanf(text, " %" SCNu64 "%n", &us[k], &len) != 1)
			return false;
	}
	return true;
}

static void load_process_stalls(struct counters *c, const char *text)
{
	uint64_t us[STALL_KINDS];
	struct proc_entry *e;
	uint32_t pid;

	if (!scan_stalls(text, &pid, us) || pid > INT_MAX)
		return;
	e = proctable_find_or_add(&c->procs, (pid_t)pid);
	if (!e)
		return;
	memcpy(e->stall_us, us, sizeof(us));
	e->marks |= SERIES_STALLS;
}

static void load_target_stalls(struct counters *c, const char *text)
{
	uint64_t us[STALL_KINDS];
	struct target_total *t;
	uint32_t number;

	if (!scan_stalls(text, &number, us))
		return;
	t = counters_target(c, number);
	if (!t)
		return;
	memcpy(t->stall_us, us, sizeof(us));
	t->stalls = true;
}

/* The kind of a put_latency() line, by its word; LATENCY_KINDS if none. */
static enum latency_kind scan_kind(const char *word, size_t len)
{
	enum latency_kind k = 0;

	while (k < LATENCY_KINDS && (strlen(latency_kind_word(k)) != len ||
				     strncmp(word, latency_kind_word(k), len)))
		k++;
	return k;
}

/* put_latency()'s line after its key: number (not 0), kind, time, faults; false if malformed. */
static bool scan_latency(const char *text, uint32_t *number, enum latency_kind *kind,
			 struct latency_hist *h)
{
	int word, word_end, len;

	if (sscanf(text, "%" SCNu32 " %n%*s%n %" SCNu64 "%n", number, &word, &word_end,
		   &h->time_ns, &len) != 2 || !*number)
		return false;
	*kind = scan_kind(text + word, (size_t)(word_end - word));
	if (*kind == LATENCY_KINDS)
		return false;
	for (int b = 0; b < MP3_LATENCY_BUCKETS; b++) {
		text += len;
		if (sscanf(text, " %" SCNu64 "%n", &h->faults[b], &len) != 1)
			return false;
	}
	return true;
}

static void load_target_latency(struct counters *c, const char *text)
{
	struct latency_hist h;
	enum latency_kind kind;
	struct target_total *t;
	uint32_t number;

	if (!scan_latency(text, &number, &kind, &h))
		return;
	t = counters_target(c, number);
	if (!t)
		return;
	t->latency[kind] = h;
	t->timed = true;
}

static void load_load_counter(struct load_counter *lc, const char *text)
{
	uint64_t load_id, current, before;

	if (sscanf(text, "%" SCNx64 " %" SCNu64 " %" SCNu64, &load_id, &current, &before) != 3)
		return;
	lc->load_id = load_id;
	lc->current = current;
	lc->before = before;
}

static bool key_is(const char *line, size_t len, const char *key)
{
	return strlen(key) == len && !strncmp(line, key, len);
}

static void load_line(struct counters *c, const char *line)
{
	size_t len = strcspn(line, " ");
	const char *value = line + len + (line[len] == ' ');
	uint64_t v;

	if (key_is(line, len, "process")) {
		load_process(c, value);
	} else if (key_is(line, len, "process_major_by_mapping")) {
		load_process_by_mapping(c, value);
	} else if (key_is(line, len, "process_stalls")) {
		load_process_stalls(c, value);
	} else if (key_is(line, len, "target")) {
		load_target(c, value);
	} else if (key_is(line, len, "target_stalls")) {
		load_target_stalls(c, value);
	} else if (key_is(line, len, "target_latency")) {
		load_target_latency(c, value);
	} else {
		for (size_t i = 0; i < ARRAY_SIZE(load_counters); i++)
			if (key_is(line, len, load_counters[i].key))
				load_load_counter(load_counter_at(c, &load_counters[i]), value);
		for (size_t i = 0; i < ARRAY_SIZE(totals); i++)
			if (key_is(line, len, totals[i].key) && sscanf(value, "%" SCNu64, &v) == 1)
				*total_at(c, &totals[i]) = v;
	}
}

int counterfile_load(const char *dir, struct counters *c)
{
	char path[PATH_MAX], *line = NULL;
	size_t size = 0;
	FILE *in;
	int err = file_path(path, sizeof(path), dir);

	if (err)
		return err;
	in = fopen(path, "re");
	if (!in)
		return -errno;
	while (getline(&line, &size, in) >= 0)
		load_line(c, line);
	err = ferror(in) ? -EIO : 0;
	free(line);
	fclose(in);
	return err;
}
