// SPDX-License-Identifier: GPL-2.0
#include "logformat.h"

#include "logfields.h"
#include "printable.h"
#include "stalls.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char header_format[] =
	LOGFORMAT_MAGIC "3\n"
	"# created %" PRIu64 "\n"
	LOGFORMAT_COLUMNS "\n"
	"# units: seq = sample number since module load; wall_time_s = seconds since"
	" 1970-01-01 UTC; monotonic_s = CLOCK_MONOTONIC seconds; jiffies = kernel ticks"
	" at hz per second (see load_id); minor_faults, major_faults = faults in the"
	" sample's period; cpu_ms = utime+stime in the period, ms; processes = processes"
	" summed; minor_total, major_total, cpu_total_ms = the same since module load;"
	" sys_pgmajfault, sys_pswpin, sys_pswpout = the whole system's major faults and"
	" pages swapped in and out since boot (/proc/vmstat) at the sample;"
	" psi_some_avg10, psi_full_avg10 = memory pressure, %% of the last 10 s"
	" (/proc/pressure/memory, read every second); swapin_ms, thrashing_ms, reclaim_ms,"
	" compact_ms, blkio_ms = the time the processes' threads waited in the period for"
	" swap-ins, refaults of pages evicted in use, direct reclaim, compaction and"
	" synchronous block I/O (the I/O of the first two included), ms, threads added"
	" (delay accounting, see pfprofd(8)); - = unknown\n";

bool logformat_same_stream(const struct log_stream *a, const struct log_stream *b)
{
	return a->load_id == b->load_id && a->hz == b->hz && a->period_ns == b->period_ns;
}

static const char procs_header_format[] =
	"# pfprof per-process log format 4\n"
	"# created %" PRIu64 "\n"
	LOGFORMAT_PROCS_COLUMNS "\n"
	"# units: tab-separated; seq = the sample's number since module load (as in "
	LOGFORMAT_FILE "); wall_time_s = seconds since 1970-01-01 UTC; pid = the process"
	" (its thread-group id); comm = its name; minor_faults, major_faults = its faults"
	" in the sample's period; cpu_ms = its utime+stime in the period, ms; target = the"
	" target (process tree, cgroup or unit) it was profiled for, 0 = none (see"
	" pfprofctl(8)); swapin_ms .. blkio_ms = its threads' waits in the period, ms,"
	" as in " LOGFORMAT_FILE "; minor_time_ms, major_time_ms = what its faults completed"
	" in the period took in the kernel's fault handler, ms to the ns, for a process"
	" with latency (pfprofctl add --latency), known from its first timed fault on;"
	" - = unknown\n";

static const char faults_header_format[] =
	LOGFORMAT_FAULTS_MAGIC "2\n"
	"# created %" PRIu64 "\n"
	LOGFORMAT_FAULTS_COLUMNS "\n"
	"# units: tab-separated; one line per mapping a process registered with maps took"
	" faults in during a sample's period; seq = the sample's number since module load (as in "
	LOGFORMAT_FILE "); wall_time_s = seconds since 1970-01-01 UTC; pid = the process;"
	" comm = its name; target = its target, 0 = none; mapping = heap, stack, anon, file,"
	" shmem or unresolved (faults the module could not place); start = the mapping's"
	" first address, hex; size = its bytes when pfprofd read /proc/PID/maps, - = unknown;"
	" inode = its file's inode, 0 = none; minor_faults, major_faults = its faults in the"
	" period (a major fault is a swap-in on heap, stack, anon and shmem, a read on file);"
	" name = its path, [heap], [stack], [anon], [unresolved] or [inode N] (see pfprofd(8));"
	" minor_time_ms, major_time_ms = the time its minor and major faults took, ms, of a"
	" process added with latency too; - = unknown\n";

int logformat_header(char *buf, size_t size, enum log_kind kind, uint64_t created_s)
{
	const char *format = kind == LOGKIND_PROCS ? procs_header_format :
			     kind == LOGKIND_FAULTS ? faults_header_format : header_format;

	if (kind == LOGKIND_PAGES)
		return logformat_pages_header(buf, size, created_s);
	if (kind == LOGKIND_MEMORY)
		return logformat_memory_header(buf, size, created_s);
	return snprintf(buf, size, format, created_s);
}

/* " %llu %llu %llu" of the system counters, or " - - -". */
static void format_system(char *buf, size_t size, const struct mp3_ring_sample *s, bool known)
{
	if (known)
		snprintf(buf, size, " %" PRIu64 " %" PRIu64 " %" PRIu64, (uint64_t)s->pgmajfault,
			 (uint64_t)s->pswpin, (uint64_t)s->pswpout);
	else
		snprintf(buf, size, " - - -");
}

/* separator and each wait in ms, or separator and "-" for each when unknown. */
static void format_stalls(char *buf, size_t size, char separator, const struct mp3_stalls *st,
			  bool known)
{
	const uint32_t us[STALL_KINDS] = { st->swapin_us, st->thrashing_us, st->reclaim_us,
					   st->compact_us, st->blkio_us };
	size_t used = 0;

	buf[0] = '\0';
	for (int k = 0; k < STALL_KINDS && used < size; k++) {
		int n = known ? snprintf(buf + used, size - used, "%c%" PRIu32 ".%03" PRIu32,
					 separator, us[k] / 1000, us[k] % 1000) :
				snprintf(buf + used, size - used, "%c-", separator);

		used += n > 0 ? (size_t)n : 0;
	}
}

/* The text matches "%llu %.6f %.6f %llu %llu %llu %.3f %u %llu %llu %.3f ...\n". */
int logformat_sample(char *buf, size_t size, const struct mp3_ring_sample *s, uint64_t wall_ns,
		     const struct log_context *ctx)
{
	uint64_t wall_us = logfields_us(wall_ns), mono_us = logfields_us(s->time_ns);
	uint64_t cpu_us = logfields_us(s->cpu_ns), total_us = logfields_us(s->cpu_ns_total);
	char system[80], psi[40] = " - -", stalls[80];

	format_system(system, sizeof(system), s, ctx && ctx->system);
	format_stalls(stalls, sizeof(stalls), ' ', &s->stalls, ctx && ctx->stalls);
	if (ctx && ctx->psi)
		snprintf(psi, sizeof(psi), " %.2f %.2f", ctx->psi_some_avg10, ctx->psi_full_avg10);
	return snprintf(buf, size,
			"%" PRIu64 " %" PRIu64 ".%06" PRIu64 " %" PRIu64 ".%06" PRIu64
			" %" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64 ".%03" PRIu64
			" %" PRIu32 " %" PRIu64 " %" PRIu64 " %" PRIu64 ".%03" PRIu64 "%s%s%s\n",
			(uint64_t)s->seq, wall_us / 1000000, wall_us % 1000000,
			mono_us / 1000000, mono_us % 1000000, (uint64_t)s->jiffies,
			(uint64_t)s->minor_faults, (uint64_t)s->major_faults,
			cpu_us / 1000, cpu_us % 1000, (uint32_t)s->nr_procs,
			(uint64_t)s->minor_total, (uint64_t)s->major_total,
			total_us / 1000, total_us % 1000, system, psi, stalls);
}

int logformat_missed(char *buf, size_t size, uint64_t first_seq, uint64_t count)
{
	return snprintf(buf, size, "# missed %" PRIu64 " samples (seq %" PRIu64 "..%" PRIu64 ")\n",
			count, first_seq, first_seq + count - 1);
}

int logformat_stream(char *buf, size_t size, const struct log_stream *st)
{
	return snprintf(buf, size, "# load_id %016" PRIx64 " hz %" PRIu32 " period_ns %" PRIu64
			"\n", st->load_id, st->hz, st->period_ns);
}

/* A data line starts with the seq number and a space (samples) or a tab (processes). */
bool logformat_parse_seq(const char *line, size_t len, uint64_t *seq)
{
	uint64_t v = 0;
	size_t i;

	for (i = 0; i < len && line[i] >= '0' && line[i] <= '9'; i++) {
		if (v > (UINT64_MAX - 9) / 10)
			return false;
		v = v * 10 + (uint64_t)(line[i] - '0');
	}
	if (i == 0 || i == len || (line[i] != ' ' && line[i] != '\t'))
		return false;
	*seq = v;
	return true;
}

bool logformat_parse_load_id(const char *line, size_t len, uint64_t *load_id)
{
	static const char prefix[] = "# load_id ";
	char text[64];

	if (len < sizeof(prefix) - 1 || memcmp(line, prefix, sizeof(prefix) - 1))
		return false;
	if (len >= sizeof(text))
		len = sizeof(text) - 1;
	memcpy(text, line, len);
	text[len] = '\0';
	return sscanf(text, "# load_id %16" SCNx64, load_id) == 1;
}

bool logformat_parse_created(const char *text, uint64_t *created_s)
{
	const char *line = strncmp(text, "# created ", 10) ? strstr(text, "\n# created ") : text;

	if (line && *line == '\n')
		line++;
	return line && sscanf(line, "# created %" SCNu64, created_s) == 1;
}

int logformat_proc(char *buf, size_t size, const struct log_proc *p)
{
	const struct mp3_proc_record *r = &p->r;
	uint64_t wall_us = logfields_us(p->wall_ns), cpu_us = logfields_us(r->counts.cpu_ns);
	char name[sizeof(r->comm)], waits[80], minor_ms[32], major_ms[32];

	logfields_copy(name, sizeof(name), p->comm);
	format_stalls(waits, sizeof(waits), '\t', &r->stalls, p->stalls);
	logfields_format_ms(minor_ms, sizeof(minor_ms), p->minor_ns);
	logfields_format_ms(major_ms, sizeof(major_ms), p->major_ns);
	return snprintf(buf, size,
			"%" PRIu64 "\t%" PRIu64 ".%06" PRIu64 "\t%" PRIu32 "\t%s\t%" PRIu64 "\t%" PRIu64
			"\t%" PRIu64 ".%03" PRIu64 "\t%" PRIu32 "%s\t%s\t%s\n", p->seq,
			wall_us / 1000000, wall_us % 1000000, (uint32_t)r->tgid, name,
			(uint64_t)r->counts.minor_faults, (uint64_t)r->counts.major_faults,
			cpu_us / 1000, cpu_us % 1000, (uint32_t)r->target, waits, minor_ms, major_ms);
}

const char *logformat_mapping_word(uint32_t mapping)
{
	static const char *const words[] = {
		[MP3_MAPPING_UNRESOLVED] = "unresolved",
		[MP3_MAPPING_ANON] = "anon",
		[MP3_MAPPING_HEAP] = "heap",
		[MP3_MAPPING_STACK] = "stack",
		[MP3_MAPPING_FILE] = "file",
		[MP3_MAPPING_SHMEM] = "shmem",
	};

	return mapping < sizeof(words) / sizeof(words[0]) ? words[mapping] : "unresolved";
}

/* A kind's time in a line with time (timed), from the module's sum of its faults'. */
static uint64_t known_ns(bool timed, uint64_t faults, uint64_t ns)
{
	return timed && (ns || !faults) ? ns : LOGFORMAT_TIME_UNKNOWN;
}

void logformat_set_fault_time(struct log_fault *f, uint64_t minor_ns, uint64_t major_ns)
{
	bool timed = minor_ns || major_ns;

	f->minor_ns = known_ns(timed, f->minor, minor_ns);
	f->major_ns = known_ns(timed, f->major, major_ns);
}

int logformat_fault(char *buf, size_t size, const struct log_fault *f)
{
	uint64_t wall_us = logfields_us(f->wall_ns);
	char comm[sizeof(((struct mp3_proc_record *)0)->comm)], name[LOGFORMAT_NAME_MAX];
	char bytes[24] = "-", minor_ms[32], major_ms[32];

	logfields_copy(comm, sizeof(comm), f->comm);
	logfields_copy(name, sizeof(name), f->name);
	if (f->size)
		snprintf(bytes, sizeof(bytes), "%" PRIu64, f->size);
	logfields_format_ms(minor_ms, sizeof(minor_ms), f->minor_ns);
	logfields_format_ms(major_ms, sizeof(major_ms), f->major_ns);
	return snprintf(buf, size,
			"%" PRIu64 "\t%" PRIu64 ".%06" PRIu64 "\t%" PRIu32 "\t%s\t%" PRIu32
			"\t%s\t%" PRIx64 "\t%s\t%" PRIu64 "\t%" PRIu64 "\t%" PRIu64 "\t%s\t%s\t%s\n",
			f->seq, wall_us / 1000000, wall_us % 1000000, f->pid, comm, f->target,
			logformat_mapping_word(f->mapping), f->start, bytes, f->inode, f->minor,
			f->major, name, minor_ms, major_ms);
}

int logformat_mapping_of_word(const char *word)
{
	for (uint32_t m = MP3_MAPPING_UNRESOLVED; m <= MP3_MAPPING_SHMEM; m++)
		if (!strcmp(word, logformat_mapping_word(m)))
			return (int)m;
	return -1;
}

/* Format 1's columns, then format 2's times. */
#define FAULT_FIELDS_1 12
#define FAULT_FIELDS 14

/* The times of a line of n fields: unknown in a format 1 line. */
static bool parse_times(char *const field[FAULT_FIELDS], size_t n, struct log_fault *f)
{
	if (n == FAULT_FIELDS_1) {
		f->minor_ns = f->major_ns = LOGFORMAT_TIME_UNKNOWN;
		return true;
	}
	return n == FAULT_FIELDS && logfields_ms(field[12], &f->minor_ns) &&
	       logfields_ms(field[13], &f->major_ns);
}

bool logformat_parse_fault(char *line, struct log_fault *f)
{
	char *field[FAULT_FIELDS];
	size_t n = logfields_split(line, field, FAULT_FIELDS);
	uint64_t pid, target;
	int mapping;

	if (n != FAULT_FIELDS_1 && n != FAULT_FIELDS)
		return false;
	mapping = logformat_mapping_of_word(field[5]);
	f->size = 0;
	if (!logfields_u64(field[0], 10, &f->seq) || !logfields_wall(field[1], &f->wall_ns) ||
	    !logfields_u64(field[2], 10, &pid) || !pid || pid > INT32_MAX ||
	    !logfields_u64(field[4], 10, &target) || target > UINT32_MAX || mapping < 0 ||
	    !logfields_u64(field[6], 16, &f->start) ||
	    (strcmp(field[7], "-") && !logfields_u64(field[7], 10, &f->size)) ||
	    !logfields_u64(field[8], 10, &f->inode) || !logfields_u64(field[9], 10, &f->minor) ||
	    !logfields_u64(field[10], 10, &f->major) || !parse_times(field, n, f))
		return false;
	f->pid = (uint32_t)pid;
	f->target = (uint32_t)target;
	f->mapping = (uint32_t)mapping;
	/* A log written before names were made printable may have control characters. */
	f->comm = printable(field[3]);
	f->name = printable(field[11]);
	return true;
}

int logformat_lost(char *buf, size_t size, uint64_t seq, uint64_t count)
{
	return snprintf(buf, size, "# lost %" PRIu64 " records of sample %" PRIu64 "\n", count,
			seq);
}

int logformat_path(char *buf, size_t size, const char *dir, enum log_kind kind, unsigned int n)
{
	static const char *const names[LOG_KINDS] = {
		[LOGKIND_SAMPLES] = LOGFORMAT_FILE,
		[LOGKIND_PROCS] = LOGFORMAT_PROCS_FILE,
		[LOGKIND_FAULTS] = LOGFORMAT_FAULTS_FILE,
		[LOGKIND_PAGES] = LOGFORMAT_PAGES_FILE,
		[LOGKIND_MEMORY] = LOGFORMAT_MEMORY_FILE,
	};
	const char *name = names[kind];
	int len = n ? snprintf(buf, size, "%s/%s.%u", dir, name, n) :
		      snprintf(buf, size, "%s/%s", dir, name);

	return len < 0 || (size_t)len >= size ? -ENAMETOOLONG : 0;
}
