// SPDX-License-Identifier: GPL-2.0
/*
 * pfprofctl page: one page's last activities, as the 2002 paper's page
 * view showed them: its swap-outs with their slot, its returns with the
 * time it was away and the stall, from the pages logs.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ctl.h"
#include "ctljson.h"
#include "logformat.h"
#include "logscan.h"
#include "memory/data.h"

enum { OPT_COUNT, OPT_JSON };

#define PAGE_EVENTS_DEFAULT 10
#define PAGE_EVENTS_MAX 1000

/* One event of the page, and how long it had been away if it came back. */
struct page_event {
	struct log_page pg;
	uint64_t away_ns;		/* 0: not known (no swap-out of it before) */
};

/* The last count events of one page of one process, in a ring. */
struct page_history {
	pid_t pid;
	uint64_t page, page_mask;
	char comm[24];
	struct page_event *events;	/* count places, next is the oldest once full */
	size_t count, next, seen;
	uint64_t last_out_ns;		/* its last swap-out, 0: none */
	bool foreign;			/* a file that is not a pages log */
	uint64_t bad_lines;
};

static void keep_line(char *line, void *ctx)
{
	struct page_history *h = ctx;
	struct page_event e = { 0 };

	if (line[0] == '#') {
		h->foreign |= memory_log_foreign(line);
		return;
	}
	if (!logformat_parse_page(line, &e.pg)) {
		h->bad_lines++;
		return;
	}
	/* A file's page read again has no address in the process. */
	if (logformat_file_event(e.pg.event) || e.pg.pid != (uint32_t)h->pid ||
	    (e.pg.address & h->page_mask) != h->page)
		return;
	if (e.pg.event == MP3_SWAP_OUT)
		h->last_out_ns = e.pg.wall_ns;
	else if (h->last_out_ns && e.pg.wall_ns >= h->last_out_ns)
		e.away_ns = e.pg.wall_ns - h->last_out_ns;
	snprintf(h->comm, sizeof(h->comm), "%s", e.pg.comm);
	e.pg.comm = NULL;	/* the line's buffer is the scan's */
	h->events[h->next] = e;
	h->next = (h->next + 1) % h->count;
	h->seen++;
}

/* The i-th of the events kept, oldest first (i below the number kept). */
static const struct page_event *kept(const struct page_history *h, size_t i)
{
	size_t first = h->seen < h->count ? 0 : h->next;

	return &h->events[(first + i) % h->count];
}

/* "2026-12-05 16:40:01.123456" in UTC. */
static void format_wall(char *buf, size_t size, uint64_t ns)
{
	char second[24];

	ctl_format_utc(second, sizeof(second), ns);
	snprintf(buf, size, "%s.%06" PRIu64, second, ns % 1000000000 / 1000);
}

static void print_history(const struct page_history *h)
{
	bool cut = h->seen > h->count;
	size_t n = cut ? h->count : h->seen;

	printf("PID %d (%s), page %" PRIx64 ": %zu events in the logs%s\n", (int)h->pid, h->comm,
	       h->page, h->seen, cut ? ", the last of them:" : ":");
	printf("%-26s  %-5s  %-6s  %-18s  %10s  %10s\n", "TIME (UTC)", "EVENT", "MEMORY", "SLOT",
	       "AWAY-S", "STALL-MS");
	for (size_t i = 0; i < n; i++) {
		const struct page_event *e = kept(h, i);
		char when[48], slot[48], away[24] = "-", stall[24] = "-";

		format_wall(when, sizeof(when), e->pg.wall_ns);
		snprintf(slot, sizeof(slot), "%" PRIu32 ":%" PRIu64, e->pg.device, e->pg.offset);
		if (e->away_ns)
			snprintf(away, sizeof(away), "%.3f", (double)e->away_ns / 1e9);
		if (e->pg.event != MP3_SWAP_OUT)
			snprintf(stall, sizeof(stall), "%.3f", (double)e->pg.stall_ns / 1e6);
		printf("%-26s  %-5s  %-6s  %-18s  %10s  %10s\n", when,
		       logformat_swap_event_word(e->pg.event), logformat_mapping_word(e->pg.mapping),
		       slot, away, stall);
	}
}

static bool print_json(const struct page_history *h)
{
	struct json_object *o = ctl_json_object(), *events = ctl_json_array();
	size_t n = h->seen < h->count ? h->seen : h->count;
	char page[24];

	snprintf(page, sizeof(page), "%" PRIx64, h->page);
	ctl_json_add_int(o, "pid", h->pid);
	ctl_json_add_string(o, "comm", h->comm);
	ctl_json_add_string(o, "page", page);
	ctl_json_add_uint(o, "events_in_logs", h->seen);
	for (size_t i = 0; i < n; i++) {
		const struct page_event *e = kept(h, i);
		struct json_object *j = ctl_json_object();

		ctl_json_add_double(j, "unix_time", (double)e->pg.wall_ns / 1e9);
		ctl_json_add_string(j, "event", logformat_swap_event_word(e->pg.event));
		ctl_json_add_string(j, "memory", logformat_mapping_word(e->pg.mapping));
		ctl_json_add_uint(j, "swap_device", e->pg.device);
		ctl_json_add_uint(j, "swap_offset", e->pg.offset);
		if (e->away_ns)
			ctl_json_add_uint(j, "away_ns", e->away_ns);
		else
			ctl_json_add(j, "away_ns", NULL);
		if (e->pg.event == MP3_SWAP_OUT)
			ctl_json_add(j, "stall_ns", NULL);
		else
			ctl_json_add_uint(j, "stall_ns", e->pg.stall_ns);
		ctl_json_add(events, NULL, j);
	}
	ctl_json_add(o, "events", events);
	return ctl_json_print(o);
}

static uint64_t page_mask_of_system(void)
{
	return ~((uint64_t)sysconf(_SC_PAGESIZE) - 1);
}

/* The page of an address: hex, with or without 0x; false if it is none. */
static bool parse_page(const char *arg, uint64_t *page)
{
	char *end;

	errno = 0;
	*page = strtoull(arg, &end, 16);
	if (errno || end == arg || *end || *arg == '-')
		return false;
	*page &= page_mask_of_system();
	return true;
}

static int show(const struct ctl *ctl, struct page_history *h, bool json)
{
	int err = logscan_forward(ctl->config.log_dir, LOGKIND_PAGES, ctl->config.keep,
				  keep_line, h);

	if (!err && h->foreign)
		err = -EPROTO;
	if (err) {
		memory_log_failed(ctl->config.log_dir, err);
		return PFPROF_EXIT_FAILED;
	}
	if (h->bad_lines)
		ctl_error(0, "%" PRIu64 " lines of %s/" LOGFORMAT_PAGES_FILE "* are no pages log "
			  "lines: left out", h->bad_lines, ctl->config.log_dir);
	if (!h->seen) {
		ctl_error(0, "no swap traffic of page %" PRIx64 " of PID %d in %s/"
			  LOGFORMAT_PAGES_FILE "*", h->page, (int)h->pid, ctl->config.log_dir);
		ctl_hint("pfprofctl add --pages %d traces its pages to swap and back, while "
			 "pfprofd runs; pfprofctl memory %d shows what it swapped", (int)h->pid,
			 (int)h->pid);
		return PFPROF_EXIT_FAILED;
	}
	if (json)
		return print_json(h) ? PFPROF_EXIT_OK : PFPROF_EXIT_FAILED;
	print_history(h);
	return PFPROF_EXIT_OK;
}

static int run(struct ctl *ctl, const struct ctl_call *call)
{
	struct page_history h = { .count = PAGE_EVENTS_DEFAULT, .page_mask = page_mask_of_system() };
	int status;

	if (!ctl_parse_pid(call->operands[0], &h.pid))
		return ctl_usage_error(&ctl_page_command, "'%s' is not a PID", call->operands[0]);
	if (!parse_page(call->operands[1], &h.page))
		return ctl_usage_error(&ctl_page_command, "'%s' is not an address (hex)",
				       call->operands[1]);
	if (call->option[OPT_COUNT].set) {
		if (call->option[OPT_COUNT].number > PAGE_EVENTS_MAX)
			return ctl_usage_error(&ctl_page_command, "%s: at most %d events",
					       call->option[OPT_COUNT].typed, PAGE_EVENTS_MAX);
		h.count = call->option[OPT_COUNT].number;
	}
	h.events = calloc(h.count, sizeof(*h.events));
	if (!h.events) {
		ctl_error(-ENOMEM, "the history of page %" PRIx64, h.page);
		return PFPROF_EXIT_FAILED;
	}
	status = show(ctl, &h, call->option[OPT_JSON].set);
	free(h.events);
	return status;
}

const struct ctl_command ctl_page_command = {
	.name = "page", .operands = "<pid> <address>",
	.min_operands = 2, .max_operands = 2,
	.missing_operands = "which PID and address?",
	.summary = "Show a page's last trips to swap and back",
	.details = "From pfprofd's pages logs (pfprof-pages.log and its rotated files), of a\n"
		   "process added with pfprofctl add --pages (alone or in a target): the page\n"
		   "that holds the address (hex, as /proc/PID/maps and pfprofctl where give\n"
		   "them), its last events, oldest first: out (written to swap, with its\n"
		   "slot: the swap area and the page in it), in (back from the swap cache)\n"
		   "or read (read back from swap), how long it had been away, and the time\n"
		   "the swap-in stalled the faulting thread.\n",
	.options = {
		[OPT_COUNT] = { "count", 'n', CTL_COUNT, "N",
				"the last N events (default 10, at most 1000)" },
		[OPT_JSON] = { "json", 0, CTL_STRING, NULL, "the events as JSON" },
	},
	.run = run,
};
