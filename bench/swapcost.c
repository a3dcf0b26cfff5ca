// SPDX-License-Identifier: GPL-2.0
#include "swapcost.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <linux/mp3.h>

#include "benchring.h"
#include "clock.h"
#include "kprobes.h"
#include "swaprounds.h"
#include "targetsfile.h"

/* The swap records of one process, their pages summed by event. */
struct traced {
	uint32_t tgid;
	uint64_t out, in, read;
	uint64_t lost;		/* bpftrace's: events its buffers dropped */
};

static void add_traced(void *ctx, const struct mp3_proc_record *r)
{
	struct traced *t = ctx;

	if (r->type != MP3_RECORD_SWAP || r->tgid != t->tgid)
		return;
	if (r->swap.event == MP3_SWAP_OUT)
		t->out += r->swap_time.pages;
	else if (r->swap.event & MP3_SWAP_READ)
		t->read += r->swap_time.pages;
	else
		t->in += r->swap_time.pages;
}

#define BPFTRACE_OUTPUT "/tmp/pfprof-bench-bpftrace.out"

/*
 * What the module's hooks do, written for bpftrace: the process's pages
 * about to be written out, each page written out and each swap-in fault
 * with the time it stalled the thread, an event line each.
 */
static const char bpftrace_script[] =
	"kprobe:try_to_unmap_one /pid == %d/ { @unmapped = count(); }\n"
	"tracepoint:vmscan:mm_vmscan_write_folio /pid == %d/ { printf(\"out %%lx\\n\", args->pfn); }\n"
	"kprobe:do_swap_page /pid == %d/ { @start[tid] = nsecs; }\n"
	"kretprobe:do_swap_page /@start[tid]/ {\n"
	"\tprintf(\"in %%d\\n\", nsecs - @start[tid]); delete(@start[tid]); }\n";

/* bpftrace tracing this process, its output into BPFTRACE_OUTPUT; once its probes are attached. */
static pid_t start_bpftrace(void)
{
	char script[sizeof(bpftrace_script) + 64];
	pid_t me = getpid(), tracer;

	snprintf(script, sizeof(script), bpftrace_script, (int)me, (int)me, (int)me);
	unlink(BPFTRACE_OUTPUT);
	tracer = fork();
	if (tracer < 0)
		die("fork", errno);
	if (!tracer) {
		int fd = open(BPFTRACE_OUTPUT, O_WRONLY | O_CREAT | O_TRUNC, 0644);

		if (fd < 0 || dup2(fd, STDOUT_FILENO) < 0 || dup2(fd, STDERR_FILENO) < 0)
			_exit(126);
		execlp("bpftrace", "bpftrace", "-e", script, (char *)NULL);
		_exit(127);
	}
	/* "Attaching 4 probes..." once they are: LLVM compiles the script first. */
	for (int i = 0; i < 1200; i++) {
		FILE *f = fopen(BPFTRACE_OUTPUT, "re");
		char line[128] = "";
		bool attached = f && fgets(line, sizeof(line), f) && !strncmp(line, "Attaching", 9);

		if (f)
			fclose(f);
		if (attached)
			return tracer;
		if (waitpid(tracer, NULL, WNOHANG) == tracer)
			die("bpftrace exited before attaching its probes", ECHILD);
		usleep(100000);
	}
	die("bpftrace did not attach its probes in 120 s", ETIMEDOUT);
}

/* A process's CPU time so far, to the ns (its CPU-time clock). */
static uint64_t process_cpu_ns(pid_t pid)
{
	clockid_t clock;
	int err = clock_getcpuclockid(pid, &clock);

	if (err)
		die("clock_getcpuclockid", err);
	return clock_ns(clock);
}

/* bpftrace stopped; the events its output has into t. */
static void stop_bpftrace(pid_t tracer, struct traced *t)
{
	char line[128];
	FILE *f;

	kill(tracer, SIGINT);
	if (waitpid(tracer, NULL, 0) != tracer)
		die("waiting for bpftrace", errno);
	f = fopen(BPFTRACE_OUTPUT, "re");
	if (!f)
		die(BPFTRACE_OUTPUT, errno);
	while (fgets(line, sizeof(line), f)) {
		t->out += !strncmp(line, "out ", 4);
		t->read += !strncmp(line, "in ", 3);
		if (!strncmp(line, "Lost ", 5))
			t->lost += strtoull(line + 5, NULL, 10);
	}
	fclose(f);
}

int cmd_swap_cost(unsigned long pages, unsigned int rounds, const char *mode)
{
	bool other = !strcmp(mode, "other"), self = !strcmp(mode, "self");
	bool bpftrace = !strcmp(mode, "bpftrace"), ftrace;
	struct traced traced = { .tgid = (uint32_t)getpid() };
	struct swap_rounds swapped;
	uint64_t first, dropped, tracer_cpu_ns = 0, ticks, sampler_ns, ticks_after, sampler_ns_after;
	struct mp3ring ring;
	pid_t sleeper, tracer = 0;
	int armed;

	sleeper = spawn_registered_sleeper(other ? TARGETSFILE_OPT_PAGES : 0);
	if (self)
		register_self(TARGETSFILE_OPT_PAGES);
	map_ring(&ring);
	armed = kprobe_expect("do_swap_page", 'r', other || self, &ftrace);
	if (bpftrace)
		tracer = start_bpftrace();
	first = mp3ring_head(&ring);
	dropped = mp3ring_swap_dropped(&ring);
	/* bpftrace's CPU over the rounds only: compiling its script took far more. */
	if (bpftrace)
		tracer_cpu_ns = process_cpu_ns(tracer);
	mp3ring_sampler_cost(&ring, &ticks, &sampler_ns);
	swapped = swap_rounds(pages, rounds);
	dropped = mp3ring_swap_dropped(&ring) - dropped;
	/* The events of the last period are in the next tick's records, or bpftrace's buffers. */
	usleep(200000);
	mp3ring_sampler_cost(&ring, &ticks_after, &sampler_ns_after);
	if (bpftrace)
		tracer_cpu_ns = process_cpu_ns(tracer) - tracer_cpu_ns;
	if (self) {
		read_records(&ring, first, add_traced, &traced);
		unregister_self();
	}
	if (bpftrace) {
		stop_bpftrace(tracer, &traced);
		dropped = traced.lost;
	}
	end_registered_sleeper(sleeper);
	mp3ring_unmap(&ring);
	printf("swap mode=%s pages=%lu rounds=%u swapouts=%llu ns_per_swapout=%.1f swapins=%ld"
	       " ns_per_swapin=%.1f armed=%d traced_out=%llu traced_read=%llu traced_in=%llu"
	       " dropped=%llu tracer_ns_per_event=%.1f ticks=%llu sampler_ns=%llu\n", mode, pages, rounds,
	       (unsigned long long)swapped.swapouts,
	       swapped.swapouts ? (double)swapped.out_cpu_ns / swapped.swapouts : 0.0,
	       swapped.swapins, (double)swapped.in_cpu_ns / swapped.swapins, armed,
	       (unsigned long long)traced.out, (unsigned long long)traced.read,
	       (unsigned long long)traced.in, (unsigned long long)dropped,
	       (traced.out + traced.read) ?
	       (double)tracer_cpu_ns / (double)(traced.out + traced.read) : 0.0,
	       (unsigned long long)(ticks_after - ticks),
	       (unsigned long long)(sampler_ns_after - sampler_ns));
	return 0;
}
