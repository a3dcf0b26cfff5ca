// SPDX-License-Identifier: GPL-2.0
/* The pages log's lines (logformat.h): a page sent to swap or taken back. */
#include "logformat.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "logfields.h"
#include "printable.h"

#define PAGE_FIELDS 13
/* Format 1 had no memory column: its pages were anonymous. */
#define PAGE_FIELDS_1 11

static const char pages_header_format[] =
	LOGFORMAT_PAGES_MAGIC "2\n"
	"# created %" PRIu64 "\n"
	LOGFORMAT_PAGES_COLUMNS "\n"
	"# units: tab-separated; one line per page a process registered with pages sent to"
	" swap or took back; seq = the number of the sample that carried it (as in "
	LOGFORMAT_FILE "); wall_time_s = when it happened, seconds since 1970-01-01 UTC;"
	" pid = the process; comm = its name; target = its target, 0 = none; event = out"
	" (written to swap and unmapped), in (faulted back from the swap cache, nothing"
	" read) or read (faulted back, read from swap: the kernel's pswpin); device, offset ="
	" its swap slot: the swap area's index in the order of swapon, the page in it;"
	" address = the page in the process, hex, - = unknown; pages = 1, more for a large"
	" folio; stall_ms = the time the faulting thread spent in the fault, ms, - for out;"
	" memory = anon (private anonymous) or shmem (tmpfs, memfd, SysV, shared anonymous);"
	" sys_pswpout = the machine's pages written to swap since boot, at the sample that"
	" carried it\n";

int logformat_pages_header(char *buf, size_t size, uint64_t created_s)
{
	return snprintf(buf, size, pages_header_format, created_s);
}

const char *logformat_swap_event_word(uint32_t event)
{
	if (event == MP3_SWAP_OUT)
		return "out";
	return event & MP3_SWAP_READ ? "read" : "in";
}

/* A swap record's memory, as the faults log names it: anon or shmem only. */
static bool memory_of_word(const char *word, uint32_t *mapping)
{
	int m = logformat_mapping_of_word(word);

	if (m != MP3_MAPPING_ANON && m != MP3_MAPPING_SHMEM)
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
	else
		return false;
	return true;
}

struct log_page logformat_page_of(const struct mp3_proc_record *r, uint64_t seq,
				  uint64_t sys_pswpout, uint64_t wall_offset_ns, const char *comm)
{
	return (struct log_page){
		.sys_pswpout = sys_pswpout,
		.seq = seq, .wall_ns = r->swap_time.time_ns + wall_offset_ns, .pid = r->tgid,
		.target = r->target, .event = r->swap.event, .device = r->swap.device,
		.pages = r->swap_time.pages, .offset = r->swap.offset, .address = r->swap.address,
		.stall_ns = r->swap_time.stall_ns, .mapping = r->mapping, .comm = comm,
	};
}

int logformat_page(char *buf, size_t size, const struct log_page *pg)
{
	uint64_t wall_us = logfields_us(pg->wall_ns);
	char comm[sizeof(((struct mp3_proc_record *)0)->comm)], address[24] = "-", stall[32];
	char sys_pswpout[24] = "-";

	logfields_copy(comm, sizeof(comm), pg->comm);
	if (pg->address)
		snprintf(address, sizeof(address), "%" PRIx64, pg->address);
	if (pg->sys_pswpout != LOGFORMAT_COUNT_UNKNOWN)
		snprintf(sys_pswpout, sizeof(sys_pswpout), "%" PRIu64, pg->sys_pswpout);
	logfields_format_ms(stall, sizeof(stall),
			    pg->event == MP3_SWAP_OUT ? LOGFORMAT_TIME_UNKNOWN : pg->stall_ns);
	return snprintf(buf, size,
			"%" PRIu64 "\t%" PRIu64 ".%06" PRIu64 "\t%" PRIu32 "\t%s\t%" PRIu32
			"\t%s\t%" PRIu32 "\t%" PRIu64 "\t%s\t%" PRIu32 "\t%s\t%s\t%s\n",
			pg->seq, wall_us / 1000000, wall_us % 1000000, pg->pid, comm, pg->target,
			logformat_swap_event_word(pg->event), pg->device, pg->offset, address, pg->pages, stall,
			logformat_mapping_word(pg->mapping), sys_pswpout);
}

bool logformat_parse_page(char *line, struct log_page *pg)
{
	char *field[PAGE_FIELDS];
	uint64_t pid, target, device, pages;
	size_t n = logfields_split(line, field, PAGE_FIELDS);

	if (n != PAGE_FIELDS_1 && n != PAGE_FIELDS)
		return false;
	pg->address = 0;
	pg->mapping = MP3_MAPPING_ANON;
	pg->sys_pswpout = LOGFORMAT_COUNT_UNKNOWN;
	if (!logfields_u64(field[0], 10, &pg->seq) || !logfields_wall(field[1], &pg->wall_ns) ||
	    !logfields_u64(field[2], 10, &pid) || !pid || pid > INT32_MAX ||
	    !logfields_u64(field[4], 10, &target) || target > UINT32_MAX ||
	    !event_of_word(field[5], &pg->event) ||
	    !logfields_u64(field[6], 10, &device) || device > UINT32_MAX ||
	    !logfields_u64(field[7], 10, &pg->offset) ||
	    (strcmp(field[8], "-") && !logfields_u64(field[8], 16, &pg->address)) ||
	    !logfields_u64(field[9], 10, &pages) || !pages || pages > UINT32_MAX ||
	    !logfields_ms(field[10], &pg->stall_ns) ||
	    (pg->event == MP3_SWAP_OUT) != (pg->stall_ns == LOGFORMAT_TIME_UNKNOWN) ||
	    (n == PAGE_FIELDS && (!memory_of_word(field[11], &pg->mapping) ||
				  (strcmp(field[12], "-") &&
				   !logfields_u64(field[12], 10, &pg->sys_pswpout)))))
		return false;
	pg->pid = (uint32_t)pid;
	pg->target = (uint32_t)target;
	pg->device = (uint32_t)device;
	pg->pages = (uint32_t)pages;
	pg->comm = printable(field[3]);
	return true;
}
