/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The sample logs' text format and file names: what pfprofd writes and
 * pfprofctl, gnuplot, awk and spreadsheets read.
 *
 * The current file is "pfprof.log"; rotation renames it to "pfprof.log.1"
 * (older ones move up to .2 ... .keep). Every file starts with this header
 * (all '#' lines are comments to gnuplot):
 *   # pfprof log format 2
 *   # created <unix seconds>
 *   # columns: seq wall_time_s monotonic_s jiffies minor_faults major_faults cpu_ms processes minor_total major_total cpu_total_ms sys_pgmajfault sys_pswpin sys_pswpout psi_some_avg10 psi_full_avg10
 *   # units: ...one line describing each column...
 * and "# load_id <16 hex digits> hz <HZ> period_ns <ns>" precedes the first
 * sample of every module load (again at the top of every new file).
 * A sample line: "%llu %.6f %.6f %llu %llu %llu %.3f %u %llu %llu %.3f" then
 * " %llu %llu %llu %.2f %.2f\n", each of the last five "-" when unknown: the
 * system counters from a version 1 module, memory pressure without PSI.
 * Format 1 had the first eleven columns only; they have not moved.
 * Samples the reader could not get: "# missed <N> samples (seq <A>..<B>)".
 *
 * Beside it, "pfprof-procs.log" (rotated the same way) has one line per
 * registered process per sample in which it ran (every sample, from a
 * module loaded with sampler=visit), tab-separated, from the module's
 * per-process records (region version 2):
 *   # pfprof per-process log format 2
 *   # created <unix seconds>
 *   # columns: seq wall_time_s pid comm minor_faults major_faults cpu_ms target
 *   # units: ...
 * then "%llu\t%.6f\t%u\t%s\t%llu\t%llu\t%.3f\t%u\n" lines (comm with
 * tabs and newlines made '_'; target the record's, 0 from a version 2
 * module), the same load_id and missed lines as the samples log, and
 * "# lost <N> records of sample <S>" for records the reader could not get.
 * seq joins its lines to the samples log's. Format 1 had the first seven
 * columns only; they have not moved.
 */
#ifndef PFPROF_LOGFORMAT_H
#define PFPROF_LOGFORMAT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <linux/mp3.h>

/* The two logs pfprofd writes. */
enum log_kind { LOGKIND_SAMPLES, LOGKIND_PROCS };

#define LOGFORMAT_FILE "pfprof.log"
#define LOGFORMAT_MAGIC "# pfprof log format "	/* a samples log's first line, and its format */
#define LOGFORMAT_PROCS_FILE "pfprof-procs.log"
#define LOGFORMAT_PROCS_COLUMNS "# columns: seq wall_time_s pid comm minor_faults " \
	"major_faults cpu_ms target"
#define LOGFORMAT_LINE_MAX 384		/* any sample or marker line, with its NUL */
#define LOGFORMAT_HEADER_MAX 2048	/* the header, with its NUL */
#define LOGFORMAT_COLUMNS "# columns: seq wall_time_s monotonic_s jiffies minor_faults " \
	"major_faults cpu_ms processes minor_total major_total cpu_total_ms sys_pgmajfault " \
	"sys_pswpin sys_pswpout psi_some_avg10 psi_full_avg10"

/* Identifies the module load the samples come from. */
struct log_stream {
	uint64_t load_id;
	uint32_t hz;
	uint64_t period_ns;
};

bool logformat_same_stream(const struct log_stream *a, const struct log_stream *b);

/* What a sample line shows beside the sample: the machine's context. */
struct log_context {
	bool system;			/* the sample has the system counters (version 2) */
	bool psi;			/* memory pressure is known */
	double psi_some_avg10, psi_full_avg10;
};

/* Each returns what snprintf() does. */
int logformat_header(char *buf, size_t size, enum log_kind kind, uint64_t created_s);
int logformat_sample(char *buf, size_t size, const struct mp3_ring_sample *s, uint64_t wall_ns,
		     const struct log_context *ctx);
int logformat_missed(char *buf, size_t size, uint64_t first_seq, uint64_t count);
int logformat_stream(char *buf, size_t size, const struct log_stream *stream);

/* One process's line of sample seq (a MP3_RECORD_COUNTS record), and lost records. */
int logformat_proc(char *buf, size_t size, uint64_t seq, uint64_t wall_ns,
		   const struct mp3_proc_record *r, const char *comm);
int logformat_lost(char *buf, size_t size, uint64_t seq, uint64_t count);

/* A line without its '\n': a data line's seq (either log), a load_id line's load_id. */
bool logformat_parse_seq(const char *line, size_t len, uint64_t *seq);
bool logformat_parse_load_id(const char *line, size_t len, uint64_t *load_id);
/* The "# created" second of a header (text is NUL-terminated, from the file's start). */
bool logformat_parse_created(const char *text, uint64_t *created_s);

/*
 * The path of file n of a log in dir: n = 0 the current file, n >= 1 the
 * rotated one (pfprof.log.n). 0, or -ENAMETOOLONG if it does not fit in size.
 */
int logformat_path(char *buf, size_t size, const char *dir, enum log_kind kind, unsigned int n);

#endif /* PFPROF_LOGFORMAT_H */
