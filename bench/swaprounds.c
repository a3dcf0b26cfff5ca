// SPDX-License-Identifier: GPL-2.0
#include "swaprounds.h"

#include <errno.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "benchring.h"
#include "clock.h"

/* MADV_PAGEOUT (Linux 5.4) from <linux/mman.h>, which glibc's headers may lack. */
#ifndef MADV_PAGEOUT
#define MADV_PAGEOUT 21
#endif

static void touch_all(char *p, unsigned long pages, long page)
{
	for (unsigned long i = 0; i < pages; i++)
		((volatile char *)p)[i * page]++;
}

struct swap_rounds swap_rounds(unsigned long pages, unsigned int rounds)
{
	long page = sysconf(_SC_PAGESIZE);
	struct swap_rounds r = { 0 };
	struct rusage before, after;
	char *p;

	/* One swap event per 4 KiB page, whatever the THP setting. */
	if (prctl(PR_SET_THP_DISABLE, 1, 0, 0, 0))
		die("PR_SET_THP_DISABLE", errno);
	p = mmap(NULL, pages * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		die("mmap", errno);
	touch_all(p, pages, page);
	for (unsigned int i = 0; i < rounds; i++) {
		uint64_t out_before = vmstat_count("pswpout"), start;

		start = clock_ns(CLOCK_PROCESS_CPUTIME_ID);
		if (madvise(p, pages * page, MADV_PAGEOUT))
			die("madvise(MADV_PAGEOUT)", errno);
		r.out_cpu_ns += clock_ns(CLOCK_PROCESS_CPUTIME_ID) - start;
		r.swapouts += vmstat_count("pswpout") - out_before;
		getrusage(RUSAGE_SELF, &before);
		start = clock_ns(CLOCK_PROCESS_CPUTIME_ID);
		touch_all(p, pages, page);
		r.in_cpu_ns += clock_ns(CLOCK_PROCESS_CPUTIME_ID) - start;
		getrusage(RUSAGE_SELF, &after);
		r.swapins += after.ru_majflt - before.ru_majflt;
	}
	munmap(p, pages * page);
	if (r.swapins < (long)pages * rounds / 2)
		die("swapping the pages in (is swap on?)", EAGAIN);
	return r;
}
