// SPDX-License-Identifier: GPL-2.0
/*
 * The pages log's lines (logformat.h): a page sent to swap or taken back,
 * or a page of a file read again.
 */
#include "logformat.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <sys/sysmacros.h>

#include "logfields.h"
#include "printable.h"

#define PAGE_FIELDS 14
/* Format 1 had no memory column: its pages were anonymous. Format 2 had no file. */
#define PAGE_FIELDS_1 11
#define PAGE_FIELDS_2 13

static const char pages_header_format[] =
	LOGFORMAT_PAGES_MAGIC "3\n"
	"# created %" PRIu64 "\n"
	LOGFORMAT_PAGES_COLUMNS "\n"
	"# units: tab-separated; one line per page a process registered with pages sent to"
	" swap or took back, or page of a file it read again after reclaim dropped it;"
	" seq = the number of the sample that carried it (as in "
	LOGFORMAT_FILE "); wall_time_s = when it happened, seconds since 1970-01-01 UTC;"
	" pid = the process, 0 = none (a page of a followed cgroup's shared memory written out"
	" while none of its processes mapped it, or of its files evicted); comm = its name;"
	" target = its target, 0 = none; event = out"
	" (written to swap and unmapped), in (faulted back from the swap cache, nothing"
	" read), read (faulted back, read from swap: the kernel's pswpin) or refault (a"
	" file's page read again: the kernel's workingset_refault_file) or evict (a file's"
	" page reclaim dropped); device, offset ="
	" its swap slot: the swap area's index in the order of swapon, the page in it (of a"
	" refault or evict: -, the page in the file); address = the page in the process, hex,"
	" - = unknown; pages = 1, more for a large folio; stall_ms = the time the faulting"
	" thread spent in the fault, ms, - for out, refault and evict; memory = anon (private"
	" anonymous), shmem (tmpfs, memfd, SysV, shared anonymous) or file; sys_pswpout = the"
	" machine's pages written to swap since boot, at the sample that carried it; file ="
	" of a refault or evict, the file's device (major:minor, hex, as in /proc/PID/maps)"
	" and inode (major:minor:inode), - for the others\n";

int logformat_pages_header(char *buf, size_t size, uint64_t created_s)
{
	return snprintf(buf, size, pages_header_format, created_s);
}

const char *logformat_swap_event_word(uint32_t event)
{
	if (event == LOGFORMAT_FILE_REFAULT)
		return "refault";
	if (event == LOGFORMAT_FILE_EVICT)
		return "evict";
	if (event == MP3_SWAP_OUT)
		return "out";
	return event & MP3_SWAP_READ ? "read" : "in";
}

/* A page's memory, as the faults log names it: anon, shmem, or (a file page's) file. */
static bool memory_of_word(const char *word, uint32_t event, uint32_t *mapping)
{
	int m = logformat_mapping_of_word(word);

	if (logformat_file_event(event) ? m != MP3_MAPPING_FILE :
	    m != MP3_MAPPING_ANON && m != MP3_MAPPING_SHMEM)
		return false;
	*mapping = (uint32_t)m;
	return true;
}

static bool event_of_word(const char *word, uint32_t *event)
{
	if (!strcmp(word, "out"))
		*event = MP3_SWAP_OUT;
	else if (!strcmp(word, "in"))
		*event = MP3_SWAP_IN;
	else if (!strcmp(word, "read"))
		*event = MP3_SWAP_IN | MP3_SWAP_READ;
	else if (!strcmp(word, "refault"))
		*event = LOGFORMAT_FILE_REFAULT;
	else if (!strcmp(word, "evict"))
		*event = LOGFORMAT_FILE_EVICT;
	else
		return false;
	return true;
}

struct log_page logformat_page_of(const struct mp3_proc_record *r, uint64_t seq,
				  uint64_t sys_pswpout, uint64_t wall_offset_ns, const char *comm)
{
	struct log_page pg = {
		.sys_pswpout = sys_pswpout,
		.seq = seq, .wall_ns = r->swap_time.time_ns + wall_offset_ns, .pid = r->tgid,
		.target = r->target, .pages = r->swap_time.pages, .mapping = r->mapping,
		.comm = comm,
	};

	if (r->type == MP3_RECORD_REFAULT || r->type == MP3_RECORD_CGROUP_EVICT) {
		pg.event = r->type == MP3_RECORD_REFAULT ? LOGFORMAT_FILE_REFAULT :
			   LOGFORMAT_FILE_EVICT;
		pg.offset = r->refault.index;
		pg.file_dev = r->dev;
		pg.inode = r->refault.inode;
		pg.stall_ns = LOGFORMAT_TIME_UNKNOWN;
		return pg;
	}
	pg.event = r->swap.event;
	pg.device = r->swap.device;
	pg.offset = r->swap.offset;
	pg.address = r->swap.address;
	pg.stall_ns = r->swap_time.stall_ns;
	return pg;
}

/* Whether a page's event has no stall: a swap-out's or a file page's. */
static bool stall_unknown(uint32_t event)
{
	return event == MP3_SWAP_OUT || logformat_file_event(event);
}

int logformat_page(char *buf, size_t size, const struct log_page *pg)
{
	uint64_t wall_us = logfields_us(pg->wall_ns);
	char comm[sizeof(((struct mp3_proc_record *)0)->comm)], address[24] = "-", stall[32];
	char sys_pswpout[24] = "-", device[16] = "-", file[48] = "-";

	logfields_copy(comm, sizeof(comm), pg->comm);
	if (pg->address)
		snprintf(address, sizeof(address), "%" PRIx64, pg->address);
	if (logformat_file_event(pg->event))
		snprintf(file, sizeof(file), "%x:%x:%" PRIu64, major(pg->file_dev),
			 minor(pg->file_dev), pg->inode);
	else
		snprintf(device, sizeof(device), "%" PRIu32, pg->device);
	if (pg->sys_pswpout != LOGFORMAT_COUNT_UNKNOWN)
		snprintf(sys_pswpout, sizeof(sys_pswpout), "%" PRIu64, pg->sys_pswpout);
	logfields_format_ms(stall, sizeof(stall),
			    stall_unknown(pg->event) ? LOGFORMAT_TIME_UNKNOWN : pg->stall_ns);
	return snprintf(buf, size,
			"%" PRIu64 "\t%" PRIu64 ".%06" PRIu64 "\t%" PRIu32 "\t%s\t%" PRIu32
			"\t%s\t%s\t%" PRIu64 "\t%s\t%" PRIu32 "\t%s\t%s\t%s\t%s\n",
			pg->seq, wall_us / 1000000, wall_us % 1000000, pg->pid, comm, pg->target,
			logformat_swap_event_word(pg->event), device, pg->offset, address, pg->pages,
			stall, logformat_mapping_word(pg->mapping), sys_pswpout, file);
}

/* A file page's file, "major:minor:inode" (major and minor hex). */
static bool file_of_word(const char *word, struct log_page *pg)
{
	unsigned int maj, min;
	int end = 0;

	if (sscanf(word, "%x:%x:%" SCNu64 "%n", &maj, &min, &pg->inode, &end) != 3 ||
	    word[end] || !pg->inode)
		return false;
	pg->file_dev = (uint32_t)makedev(maj, min);
	return true;
}

/* The device of a swap event, or "-" for a file page's, whose file is in file_word. */
static bool place_of_words(const char *device_word, const char *file_word, struct log_page *pg)
{
	uint64_t device;

	pg->device = 0;
	pg->file_dev = 0;
	pg->inode = 0;
	if (logformat_file_event(pg->event))
		return !strcmp(device_word, "-") && file_word && file_of_word(file_word, pg);
	if (file_word && strcmp(file_word, "-"))
		return false;
	if (!logfields_u64(device_word, 10, &device) || device > UINT32_MAX)
		return false;
	pg->device = (uint32_t)device;
	return true;
}

bool logformat_parse_page(char *line, struct log_page *pg)
{
	char *field[PAGE_FIELDS];
	uint64_t pid, target, pages;
	size_t n = logfields_split(line, field, PAGE_FIELDS);

	if (n != PAGE_FIELDS_1 && n != PAGE_FIELDS_2 && n != PAGE_FIELDS)
		return false;
	pg->address = 0;
	pg->mapping = MP3_MAPPING_ANON;
	pg->sys_pswpout = LOGFORMAT_COUNT_UNKNOWN;
	if (!logfields_u64(field[0], 10, &pg->seq) || !logfields_wall(field[1], &pg->wall_ns) ||
	    !logfields_u64(field[2], 10, &pid) || pid > INT32_MAX ||
	    !logfields_u64(field[4], 10, &target) || target > UINT32_MAX ||
	    !event_of_word(field[5], &pg->event) ||
	    !place_of_words(field[6], n == PAGE_FIELDS ? field[13] : NULL, pg) ||
	    !logfields_u64(field[7], 10, &pg->offset) ||
	    (strcmp(field[8], "-") && !logfields_u64(field[8], 16, &pg->address)) ||
	    !logfields_u64(field[9], 10, &pages) || !pages || pages > UINT32_MAX ||
	    !logfields_ms(field[10], &pg->stall_ns) ||
	    stall_unknown(pg->event) != (pg->stall_ns == LOGFORMAT_TIME_UNKNOWN) ||
	    (n > PAGE_FIELDS_1 && (!memory_of_word(field[11], pg->event, &pg->mapping) ||
				   (strcmp(field[12], "-") &&
				    !logfields_u64(field[12], 10, &pg->sys_pswpout)))) ||
	    (!pid && ((pg->event != MP3_SWAP_OUT && pg->event != LOGFORMAT_FILE_EVICT) ||
		      !target)) ||
	    (pid && pg->event == LOGFORMAT_FILE_EVICT))
		return false;
	pg->pid = (uint32_t)pid;
	pg->target = (uint32_t)target;
	pg->pages = (uint32_t)pages;
	pg->comm = printable(field[3]);
	return true;
}
