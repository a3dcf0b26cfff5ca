/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The sample logs' text format and file names: what pfprofd writes and
 * pfprofctl, gnuplot, awk and spreadsheets read.
 *
 * The current file is "pfprof.log"; rotation renames it to "pfprof.log.1"
 * (older ones move up to .2 ... .keep). Every file starts with this header
 * (all '#' lines are comments to gnuplot):
 *   # pfprof log format 3
 *   # created <unix seconds>
 *   # columns: seq wall_time_s monotonic_s jiffies minor_faults major_faults cpu_ms processes minor_total major_total cpu_total_ms sys_pgmajfault sys_pswpin sys_pswpout psi_some_avg10 psi_full_avg10 swapin_ms thrashing_ms reclaim_ms compact_ms blkio_ms
 *   # units: ...one line describing each column...
 * and "# load_id <16 hex digits> hz <HZ> period_ns <ns>" precedes the first
 * sample of every module load (again at the top of every new file).
 * A sample line: "%llu %.6f %.6f %llu %llu %llu %.3f %u %llu %llu %.3f" then
 * " %llu %llu %llu %.2f %.2f" then " %.3f %.3f %.3f %.3f %.3f\n", each of the
 * last ten "-" when unknown: the system counters from a version 1 module,
 * memory pressure without PSI, the waits (the processes' time in each kind
 * of wait of struct mp3_stalls in the period, ms, their threads added)
 * from a module before version 7 or while the kernel's delay accounting
 * is off. Format 1 had the first eleven columns only, format 2 the first
 * sixteen; they have not moved.
 * Samples the reader could not get: "# missed <N> samples (seq <A>..<B>)".
 *
 * Beside it, "pfprof-procs.log" (rotated the same way) has one line per
 * registered process per sample in which it ran (every sample, from a
 * module loaded with sampler=visit), tab-separated, from the module's
 * per-process records (region version 2):
 *   # pfprof per-process log format 3
 *   # created <unix seconds>
 *   # columns: seq wall_time_s pid comm minor_faults major_faults cpu_ms target swapin_ms thrashing_ms reclaim_ms compact_ms blkio_ms
 *   # units: ...
 * then "%llu\t%.6f\t%u\t%s\t%llu\t%llu\t%.3f\t%u" and five
 * "\t%.3f" (or "\t-", as in the samples log) and "\n" lines (comm with
 * tabs and newlines made '_'; target the record's, 0 from a version 2
 * module), the same load_id and missed lines as the samples log, and
 * "# lost <N> records of sample <S>" for records the reader could not get.
 * seq joins its lines to the samples log's. Format 1 had the first seven
 * columns only, format 2 the first eight; they have not moved.
 *
 * And "pfprof-faults.log" (rotated the same way) has, for each process
 * registered with "maps" (docs/design/faults.md), one line per mapping it took
 * faults in during a sample's period, from the module's MP3_RECORD_FAULTS
 * records (region version 5) of that sample added up, tab-separated:
 *   # pfprof faults log format 2
 *   # created <unix seconds>
 *   # columns: seq wall_time_s pid comm target mapping start size inode minor_faults major_faults name minor_time_ms major_time_ms
 *   # units: ...
 * then "%llu\t%.6f\t%u\t%s\t%u\t%s\t%llx\t%s\t%llu\t%llu\t%llu\t%s\t%.6f\t%.6f\n"
 * lines:
 * mapping is logformat_mapping_word()'s, start the mapping's first address
 * in hex as in /proc/PID/maps, size its bytes when pfprofd read
 * /proc/PID/maps ("-": it was gone), name its path or "[heap]", "[stack]",
 * "[anon]" (or the "[anon:NAME]" maps gives), "[unresolved]", "[inode N]"
 * for a file mapping gone before pfprofd could name it (unless another
 * process's maps named that inode at that address: then its path, and
 * size "-"); tabs, newlines and
 * carriage returns in comm and name made '_', a name cut to
 * LOGFORMAT_NAME_MAX - 1 bytes; minor_time_ms and major_time_ms the time
 * the line's minor and major faults took (the module's fault_time, region
 * version 8, of a process registered with "latency" too), ms to the ns:
 * a mapping's few faults in a sample may take less than a microsecond,
 * and readers add up many lines. Each is "-" when unknown (see
 * logformat_set_fault_time()). Format 1 had the first twelve columns
 * only; they have not moved. The same load_id, missed and lost lines as
 * the per-process log.
 *
 * And "pfprof-pages.log" (rotated the same way) has, for each process
 * registered with "pages" (docs/design/pages.md), one line per page it sent
 * to swap or took back, from the module's MP3_RECORD_SWAP records (region
 * version 10), and per page of a file it read again after reclaim dropped
 * it, from MP3_RECORD_REFAULT records (region version 13), in the order of
 * the samples that carried them, tab-separated:
 *   # pfprof pages log format 3
 *   # created <unix seconds>
 *   # columns: seq wall_time_s pid comm target event device offset address pages stall_ms memory sys_pswpout file
 *   # units: ...
 * then "%llu\t%.6f\t%u\t%s\t%u\t%s\t%s\t%llu\t%s\t%u\t%s\t%s\t%llu\t%s\n" lines:
 * wall_time_s the event's own time (not its sample's); event "out"
 * (written to swap, unmapped from the process), "in" (faulted back from
 * the swap cache, nothing read), "read" (faulted back, read from the swap
 * device, zswap or the zero map: the kernel's pswpin), "refault" (a
 * file's page read again: the kernel's workingset_refault_file) or
 * "evict" (a followed cgroup's file page reclaim dropped, pid 0, asked
 * for with "S <target> charged"); device and offset the slot (the swap
 * area's index as swapon gave it, the page within it; a refault's or
 * eviction's device "-", its offset the page in the file);
 * address the page in hex, "-" when not known; pages 1, more for a large
 * folio; stall_ms the time the faulting thread spent in the fault, ms to
 * the ns, "-" for "out", "refault" and "evict"; memory "anon" (private
 * anonymous), "shmem" (tmpfs, memfd, SysV, shared anonymous; ring version
 * 11) or "file" (a refault or eviction); sys_pswpout the machine's pages written to swap
 * since boot at the sample that carried the event (the sample's pswpout:
 * the machine's clock of evictions, for refault distances under global
 * reclaim); file a refault's or eviction's file, "major:minor:inode" (the device as
 * /proc/PID/maps gives it, hex), "-" for the others. Format 1 had the
 * first eleven columns only, its pages all anonymous; format 2 the first
 * thirteen. The same load_id, missed and lost lines as the per-process
 * log.
 *
 * And "pfprof-memory.log" (rotated the same way) has, once a second, for
 * each unit or cgroup target added with "pages" whose cgroup exists, that
 * cgroup's memory (cgroupmemory.h), tab-separated:
 *   # pfprof memory log format 1
 *   # created <unix seconds>
 *   # columns: seq wall_time_s target current_bytes max_bytes high_bytes swap_bytes pressure_some_us pressure_full_us refault_anon refault_file
 *   # units: ...
 * then "%llu\t%llu.%06llu\t%u" and eight "\t%llu" and "\n" lines: seq the
 * last sample pfprofd had read (it joins the line to the samples log),
 * wall_time_s when the files were read; a limit without one "max", any
 * value not read "-". The same load_id lines as the samples log; nothing
 * is missed or lost, since pfprofd reads the files itself.
 */
#ifndef PFPROF_LOGFORMAT_H
#define PFPROF_LOGFORMAT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <linux/mp3.h>

#include "cgroupmemory.h"

/* The logs pfprofd writes: those of the ring's samples and records first. */
enum log_kind { LOGKIND_SAMPLES, LOGKIND_PROCS, LOGKIND_FAULTS, LOGKIND_PAGES, LOGKIND_MEMORY };
#define LOG_KINDS 5
#define LOG_RING_KINDS 4	/* the logs written from the ring: SAMPLES to PAGES */

#define LOGFORMAT_FILE "pfprof.log"
#define LOGFORMAT_MAGIC "# pfprof log format "	/* a samples log's first line, and its format */
/* A faults log's first line, and its format. */
#define LOGFORMAT_FAULTS_MAGIC "# pfprof faults log format "
#define LOGFORMAT_PROCS_FILE "pfprof-procs.log"
#define LOGFORMAT_STALL_COLUMNS "swapin_ms thrashing_ms reclaim_ms compact_ms blkio_ms"
#define LOGFORMAT_PROCS_COLUMNS "# columns: seq wall_time_s pid comm minor_faults " \
	"major_faults cpu_ms target " LOGFORMAT_STALL_COLUMNS " minor_time_ms major_time_ms"
#define LOGFORMAT_FAULTS_FILE "pfprof-faults.log"
#define LOGFORMAT_FAULTS_COLUMNS "# columns: seq wall_time_s pid comm target mapping start " \
	"size inode minor_faults major_faults name minor_time_ms major_time_ms"
#define LOGFORMAT_PAGES_FILE "pfprof-pages.log"
#define LOGFORMAT_PAGES_MAGIC "# pfprof pages log format "
#define LOGFORMAT_PAGES_COLUMNS "# columns: seq wall_time_s pid comm target event device " \
	"offset address pages stall_ms memory sys_pswpout file"
#define LOGFORMAT_MEMORY_FILE "pfprof-memory.log"
#define LOGFORMAT_MEMORY_MAGIC "# pfprof memory log format "
#define LOGFORMAT_MEMORY_COLUMNS "# columns: seq wall_time_s target current_bytes max_bytes " \
	"high_bytes swap_bytes pressure_some_us pressure_full_us refault_anon refault_file"
#define LOGFORMAT_NAME_MAX 640		/* a faults line's name, with its NUL */
#define LOGFORMAT_LINE_MAX 1024		/* any line but the header, with its NUL */
#define LOGFORMAT_HEADER_MAX 2048	/* the header, with its NUL */
#define LOGFORMAT_COLUMNS "# columns: seq wall_time_s monotonic_s jiffies minor_faults " \
	"major_faults cpu_ms processes minor_total major_total cpu_total_ms sys_pgmajfault " \
	"sys_pswpin sys_pswpout psi_some_avg10 psi_full_avg10 " LOGFORMAT_STALL_COLUMNS

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
	bool stalls;			/* the waits are known (stalls.h) */
};

/* Each returns what snprintf() does. */
int logformat_header(char *buf, size_t size, enum log_kind kind, uint64_t created_s);
int logformat_sample(char *buf, size_t size, const struct mp3_ring_sample *s, uint64_t wall_ns,
		     const struct log_context *ctx);
int logformat_missed(char *buf, size_t size, uint64_t first_seq, uint64_t count);
int logformat_stream(char *buf, size_t size, const struct log_stream *stream);

int logformat_lost(char *buf, size_t size, uint64_t seq, uint64_t count);

/* One process's faults in one mapping in sample seq (MP3_RECORD_FAULTS records added up). */
struct log_fault {
	uint64_t seq, wall_ns;
	uint32_t pid, target;
	uint32_t mapping;		/* MP3_MAPPING_* */
	uint64_t start, size;		/* size 0: unknown */
	uint64_t inode;
	uint64_t minor, major;
	uint64_t minor_ns, major_ns;	/* the time they took; LOGFORMAT_TIME_UNKNOWN */
	const char *comm, *name;
};

/* A log_fault's or log_proc's time that is not known: "-" in the log. */
#define LOGFORMAT_TIME_UNKNOWN UINT64_MAX

/* One process's line of sample seq. */
struct log_proc {
	uint64_t seq, wall_ns;
	struct mp3_proc_record r;	/* its MP3_RECORD_COUNTS record */
	char comm[24];
	bool stalls;			/* its waits are known */
	uint64_t minor_ns, major_ns;	/* its faults' time; LOGFORMAT_TIME_UNKNOWN */
};

int logformat_proc(char *buf, size_t size, const struct log_proc *p);

/* A mapping kind's word in the faults log: "anon", "heap", "stack", "file", "shmem", "unresolved". */
const char *logformat_mapping_word(uint32_t mapping);
/* The mapping kind of a word logformat_mapping_word() gives, or -1. */
int logformat_mapping_of_word(const char *word);
/*
 * Sets the times of f (its minor and major set) from the module's sum of
 * its records' fault_time. A kind's time is unknown when the module timed
 * none of the line's faults (both 0: a process without "latency", a module
 * before version 8), or none of the kind's while it has some (their time
 * was not joined to their mapping: a fault takes more than 0 ns). 0 is
 * left known only for a kind without faults in a line with time.
 */
void logformat_set_fault_time(struct log_fault *f, uint64_t minor_ns, uint64_t major_ns);
int logformat_fault(char *buf, size_t size, const struct log_fault *f);
/*
 * Parses a faults log's data line (without its '\n'), cutting it in place:
 * comm and name point into it. A format 1 line's times are unknown. False
 * if the line is none.
 */
bool logformat_parse_fault(char *line, struct log_fault *f);

/*
 * One page (or large folio) sent to swap or taken back (an MP3_RECORD_SWAP
 * record; an MP3_RECORD_CGROUP_SWAP one: sent to swap, pid 0, a followed
 * cgroup's), or a page of a file read again after reclaim dropped it (an
 * MP3_RECORD_REFAULT record: event LOGFORMAT_FILE_REFAULT, offset its page
 * in the file, file_dev and inode the file; device, address 0, no stall),
 * or one reclaim dropped (an MP3_RECORD_CGROUP_EVICT record: event
 * LOGFORMAT_FILE_EVICT, pid 0, a followed cgroup's; laid out as a refault).
 */
struct log_page {
	uint64_t seq, wall_ns;		/* the sample that carried it; the event's time */
	uint32_t pid, target;		/* pid 0: no process's, a followed cgroup's swap-out */
	uint32_t event;			/* MP3_SWAP_OUT, MP3_SWAP_IN [| MP3_SWAP_READ] */
	uint32_t device, pages;
	uint64_t offset, address;	/* address 0: not known */
	uint64_t stall_ns;		/* LOGFORMAT_TIME_UNKNOWN for a swap-out or refault */
	uint32_t mapping;		/* MP3_MAPPING_ANON, MP3_MAPPING_SHMEM or MP3_MAPPING_FILE */
	uint32_t file_dev;		/* makedev(3) of the file's device */
	uint64_t inode;
	/*
	 * The machine's pages written to swap since boot (/proc/vmstat's
	 * pswpout) at the sample that carried it: the machine's clock of
	 * evictions. LOGFORMAT_COUNT_UNKNOWN in a format 1 line.
	 */
	uint64_t sys_pswpout;
	const char *comm;
};
#define LOGFORMAT_COUNT_UNKNOWN UINT64_MAX
/* A log_page's events of a file's page (not mp3.h's MP3_SWAP_*): read again, evicted. */
#define LOGFORMAT_FILE_REFAULT 0x10000
#define LOGFORMAT_FILE_EVICT 0x20000

/* Whether a log_page's event is of a file's page: no slot, a file. */
static inline bool logformat_file_event(uint32_t event)
{
	return event == LOGFORMAT_FILE_REFAULT || event == LOGFORMAT_FILE_EVICT;
}

/*
 * An MP3_RECORD_SWAP, _CGROUP_SWAP, _REFAULT or _CGROUP_EVICT record of
 * sample seq (whose pswpout was sys_pswpout) as a line; wall_offset_ns:
 * wall - monotonic.
 */
struct log_page logformat_page_of(const struct mp3_proc_record *r, uint64_t seq,
				  uint64_t sys_pswpout, uint64_t wall_offset_ns, const char *comm);
/*
 * A page's event in the pages log: "out", "in" (from the swap cache),
 * "read" (from swap) or "refault" (a file's page read again).
 */
const char *logformat_swap_event_word(uint32_t event);
/* The pages log's header (logformat_header() of LOGKIND_PAGES). */
int logformat_pages_header(char *buf, size_t size, uint64_t created_s);
int logformat_page(char *buf, size_t size, const struct log_page *pg);
/* Parses a pages log's data line (without its '\n'), cutting it in place; false if none. */
bool logformat_parse_page(char *line, struct log_page *pg);

/* A target's cgroup's memory, read at wall_ns after sample seq. */
struct log_memory {
	uint64_t seq, wall_ns;
	uint32_t target;
	struct cgroup_memory m;
};

/* The memory log's header (logformat_header() of LOGKIND_MEMORY). */
int logformat_memory_header(char *buf, size_t size, uint64_t created_s);
int logformat_memory(char *buf, size_t size, const struct log_memory *lm);
/* Parses a memory log's data line (without its '\n'), cutting it in place; false if none. */
bool logformat_parse_memory(char *line, struct log_memory *lm);

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
