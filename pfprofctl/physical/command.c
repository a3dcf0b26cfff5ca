// SPDX-License-Identifier: GPL-2.0
/*
 * pfprofctl physical: which owners the machine's page frames are charged to
 * now (the paper's physical memory view), for administrators: the kernel's
 * /proc/kpagecgroup and /proc/kpageflags are root's.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "ctl.h"
#include "draw.h"
#include "plot/gnuplot.h"
#include "scan.h"

enum { OPT_OUTPUT, OPT_ROWS };

#define ROWS_DEFAULT 20

static const struct physical_scan *sorted_scan;

/* Most pages first; the pages of no cgroup among them. */
static int by_pages(const void *a, const void *b)
{
	const struct physical_owner *x = &sorted_scan->owners[*(const uint32_t *)a];
	const struct physical_owner *y = &sorted_scan->owners[*(const uint32_t *)b];

	return x->pages > y->pages ? -1 : x->pages < y->pages;
}

/* The owners with pages, most first, into order; their number. */
static size_t order_owners(const struct physical_scan *s, uint32_t *order)
{
	size_t n = 0;

	for (size_t i = 0; i < s->nr_owners; i++)
		if (s->owners[i].pages)
			order[n++] = (uint32_t)i;
	sorted_scan = s;
	qsort(order, n, sizeof(*order), by_pages);
	return n;
}

static void print_table(const struct physical_scan *s, const uint32_t *order, size_t n,
			size_t rows)
{
	uint64_t rest = 0;

	printf("%" PRIu64 " page frames (%.1f GiB), by the memory cgroup each is charged to"
	       " (the target holding it, else its first two levels), most first, in MiB:\n",
	       s->frames, ctl_pages_mib(s->frames) / 1024);
	printf("%10s %10s %10s %10s %10s %7s  %s\n", "MEMORY", "ANON", "FILE", "SHMEM",
	       "SWAPCACHE", "ACTIVE%", "OWNER");
	for (size_t i = 0; i < n; i++) {
		const struct physical_owner *o = &s->owners[order[i]];

		if (i >= rows) {
			rest += o->pages;
			continue;
		}
		printf("%10.1f %10.1f %10.1f %10.1f %10.1f %6.1f%%  %s\n", ctl_pages_mib(o->pages),
		       ctl_pages_mib(o->kind[PHYSICAL_ANON]), ctl_pages_mib(o->kind[PHYSICAL_FILE]),
		       ctl_pages_mib(o->kind[PHYSICAL_SHMEM]),
		       ctl_pages_mib(o->kind[PHYSICAL_SWAPCACHE]), 100.0 * (double)o->kind[PHYSICAL_ACTIVE] / (double)o->pages, o->label);
	}
	if (n > rows)
		printf("%10.1f %54s  (%zu others)\n", ctl_pages_mib(rest), "", n - rows);
}

/* Reports a failed scan of what: root's files want root. */
static void scan_failed(int err, const char *what)
{
	ctl_error(err, "reading %s", what);
	if (err == -EACCES || err == -EPERM)
		ctl_hint("the kernel lets only root (CAP_SYS_ADMIN) read which memory cgroup each "
			 "page frame is charged to: run it with sudo");
}

static int run(struct ctl *ctl, const struct ctl_call *call)
{
	const char *output = call->option[OPT_OUTPUT].set ? call->option[OPT_OUTPUT].string : NULL;
	size_t rows = call->option[OPT_ROWS].set ? call->option[OPT_ROWS].number : ROWS_DEFAULT;
	const long frames = sysconf(_SC_PHYS_PAGES);
	struct target_list targets = { 0 };
	struct physical_scan s;
	const char *what;
	uint32_t *order;
	int err, status = PFPROF_EXIT_FAILED;
	size_t n;

	if (!ctl_picture_option_ok(&ctl_physical_command, call, OPT_OUTPUT))
		return PFPROF_EXIT_USAGE;
	target_list_read(ctl->config.targets_file, &targets, NULL, NULL);
	/* Blocks of frames for the picture: its grid's cells, for the memory there is. */
	err = physical_scan(&s, &physical_system, &targets,
			    (size_t)(frames > 0 ? frames : 1) / (PHYSICAL_COLUMNS * PHYSICAL_ROWS) + 1,
			    &what);
	target_list_free(&targets);
	if (err) {
		scan_failed(err, what);
		goto out;
	}
	order = calloc(s.nr_owners + 1, sizeof(*order));
	if (!order) {
		ctl_error(-ENOMEM, "sorting the owners");
		goto out;
	}
	n = order_owners(&s, order);
	if (!output) {
		print_table(&s, order, n, rows);
		status = PFPROF_EXIT_OK;
	} else if (!physical_draw(output, &s, order)) {
		printf("%s: %" PRIu64 " page frames of %zu owners\n", output, s.frames, n);
		status = PFPROF_EXIT_OK;
	}
	free(order);
out:
	physical_scan_free(&s);
	return status;
}

const struct ctl_command ctl_physical_command = {
	.name = "physical", .operands = "", .max_operands = 0,
	.summary = "Show whose pages the machine's memory holds now (root)",
	.details = "Every page frame of the machine, read from the kernel's /proc/kpagecgroup\n"
		   "and /proc/kpageflags (root's: CAP_SYS_ADMIN), summed by the memory cgroup\n"
		   "it is charged to: the unit or cgroup of the targets file that holds that\n"
		   "cgroup, else the cgroup's first two levels (system.slice/ssh.service), and\n"
		   "the frames of no cgroup (the kernel's own, free memory). A row each, most\n"
		   "first: its memory, of it anonymous, page cache, shared memory, also in the\n"
		   "swap cache, and the share on the active lists. --output draws the frames\n"
		   "in order instead, each cell a block of them coloured by its owner.\n",
	.options = {
		[OPT_OUTPUT] = { "output", 'o', CTL_STRING, "FILE",
				 "draw the frames by owner into FILE, .png or .svg" },
		[OPT_ROWS] = { "rows", 'n', CTL_COUNT, "N",
			       "the first N owners, the rest summed (default 20)" },
	},
	.run = run,
};
