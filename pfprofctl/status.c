// SPDX-License-Identifier: GPL-2.0
/* pfprofctl status: is everything in place, and how far has it got? */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "ctl.h"
#include "mp3ring.h"
#include "procstatus.h"
#include "state.h"

/* Why the module is not loaded, and what to do. */
static void show_module_missing(void)
{
	struct utsname uts;

	if (ctl_module_installed(&uts)) {
		printf("module:    not loaded (load it with: modprobe mp3)\n");
		return;
	}
	printf("module:    not loaded, and not installed for the running kernel %s: DKMS\n"
	       "           builds it once that kernel's headers are installed (on Debian: apt\n"
	       "           install linux-headers-%s); from a build tree: insmod module/mp3.ko\n",
	       uts.release, uts.release);
}

/* The processes of followed trees, cgroups and names the module left out since its load. */
static void show_unfollowed(const struct mp3ring *ring)
{
	uint64_t skipped, missed;

	mp3ring_unfollowed(ring, &skipped, &missed);
	if (skipped)
		printf("followed:  %" PRIu64 " processes left out: whoever added their unit, tree"
		       " or name may not read them (another user's, or a setuid program)\n",
		       skipped);
	if (missed)
		printf("followed:  %" PRIu64 " processes left out: the kernel had no memory for"
		       " them at their fork\n", missed);
}

/* The ring's header as the device at fd maps it, or why it cannot be read. */
static void show_ring(const char *device, int fd)
{
	struct mp3ring ring;
	int err = mp3ring_map(&ring, fd);

	if (err) {
		printf("module:    loaded\ndevice:    %s: %s\n", device, strerror(-err));
		return;
	}
	printf("module:    loaded, load %016" PRIx64 ", period %" PRIu64 " ms, HZ %u\n",
	       ring.load_id, (uint64_t)ring.hdr->period_ns / 1000000, ring.hdr->hz);
	printf("device:    %s, %" PRIu64 " samples taken since load\n", device,
	       mp3ring_head(&ring));
	printf("sampler:   %s\n", ring.hdr->flags & MP3_RING_ACTIVE_ONLY ?
	       "events: each sample visits the processes that ran" :
	       "visit: each sample visits every registered process");
	/* Version 5's; 0 from an older module, whose header has no such field. */
	if (ring.hdr->faults_dropped)
		printf("faults:    %llu of processes added with --maps not placed: a CPU's"
		       " buffer was full\n", (unsigned long long)ring.hdr->faults_dropped);
	/* Version 6's; 0 from an older module. */
	if (ring.hdr->faults_summed)
		printf("faults:    %llu of processes added with --maps counted as not"
		       " placed: a process faulted in more mappings in one sample than"
		       " its %d records\n", (unsigned long long)ring.hdr->faults_summed,
		       MP3_FAULT_RECORDS_MAX);
	show_unfollowed(&ring);
	mp3ring_unmap(&ring);
}

/* Prints the module's own view; false if it is not loaded. */
static bool show_module(const struct ctl *ctl)
{
	struct pidlist procs;
	int fd;

	if (access("/sys/module/mp3", F_OK)) {
		show_module_missing();
		return false;
	}
	fd = open(ctl->config.device, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		printf("module:    loaded\ndevice:    %s: %s\n", ctl->config.device,
		       strerror(errno));
	} else {
		show_ring(ctl->config.device, fd);
		close(fd);
	}
	if (!procstatus_list(ctl->config.status_file, &procs)) {
		printf("processes: %zu profiled\n", procs.count);
		pidlist_free(&procs);
	}
	return true;
}

/* Prints the daemon's view; false if it is not running. */
static bool show_daemon(const struct ctl *ctl)
{
	struct pfprof_state st;
	pid_t pid;
	int err = state_daemon_pid(ctl->config.runtime_dir, &pid);

	if (err == -EACCES) {
		/* The runtime directory is the group pfprof's (privfile.h). */
		printf("daemon:    unknown: %s/pfprofd.pid: %s (the group pfprof may read it)\n",
		       ctl->config.runtime_dir, strerror(-err));
		return false;
	}
	if (err) {
		printf("daemon:    not running%s%s (start it with: systemctl start pfprofd)\n",
		       err == -ESRCH ? "" : ": ", err == -ESRCH ? "" : strerror(-err));
		return false;
	}
	printf("daemon:    running, PID %d\n", (int)pid);
	err = state_read(ctl->config.runtime_dir, &st);
	if (err) {
		printf("logs:      unknown (%s/state: %s)\n", ctl->config.runtime_dir, strerror(-err));
		return true;
	}
	printf("logged:    %" PRIu64 " samples, %" PRIu64 " missed, %" PRIu64
	       " waiting for the disk (as of %lld s ago)\n", st.logged, st.missed, st.queued,
	       (long long)time(NULL) - (long long)st.updated_s);
	printf("log file:  %s%s%s\n", st.log_file, st.log_error[0] ? ": cannot write: " : "",
	       st.log_error);
	return true;
}

static int status(struct ctl *ctl, const struct ctl_call *call)
{
	bool module, daemon;

	(void)call;
	module = show_module(ctl);
	daemon = show_daemon(ctl);
	if (!module)
		return PFPROF_EXIT_NO_MODULE;
	return daemon ? PFPROF_EXIT_OK : PFPROF_EXIT_NO_DAEMON;
}

const struct ctl_command ctl_status_command = {
	.name = "status", .operands = "",
	.summary = "Show the module, the device, the daemon and the logs",
	.details = "Exit status: 0 all is running, 3 the module is not loaded, 4 pfprofd is not\n"
		   "running.\n",
	.run = status,
};
