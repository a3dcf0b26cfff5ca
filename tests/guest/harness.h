/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The guest test suite: each test runs on the shared runner
 * (tests/harness/runner.h) against a freshly loaded mp3.ko, loaded with the
 * test's params as module parameters. What the tests share is defined in
 * statusfile.c (the module, /proc/mp3/status, errnos), device.c (the
 * device, its regions, waits for samples), processes.c (processes to
 * profile) and system.c (time, programs, files, terminals, cgroups).
 */
#ifndef PFPROF_GUEST_HARNESS_H
#define PFPROF_GUEST_HARNESS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "mp3ring.h"
#include "runner.h"

/* The suite, in running order (tests.c). */
extern const struct test tests[];
extern const size_t nr_tests;

/* Fails the test with "what: strerror" unless err is 0 (err is -errno). */
void expect_ok(int err, const char *what);
/* Fails the test unless err == -want (0 for success). */
void expect_errno(int err, int want, const char *what);
const char *errno_name(int err);

/* Module control; each returns 0 or -errno. */
int module_load(const char *params);
int module_unload(void);
bool module_loaded(void);

/* /proc/mp3/status. */
int status_write(const char *cmd);
/* One write() to a descriptor of the status file; 0 or -errno. */
int status_write_fd(int fd, const void *buf, size_t len);
int status_write_cmd_fd(int fd, const char *cmd);
int status_write_len(const void *buf, size_t len);	/* one write() */
int status_cmd(char cmd, pid_t pid);
/* One command, formatted, through @fd (-1: a descriptor root opens now); 0 or -errno. */
int __attribute__((format(printf, 2, 3))) status_printf(int fd, const char *fmt, ...);
/* The same command through fd, an open descriptor of the status file. */
int status_cmd_fd(int fd, char cmd, pid_t pid);
/* Fills pids (up to max) from the listing; returns how many, or fails. */
int status_list(pid_t *pids, int max);
bool status_lists(pid_t pid);
/* Fails unless the listing holds exactly the n PIDs in want. */
void expect_listing(const pid_t *want, int n, const char *when);

/* Helper processes; all die with the test's process group. */
pid_t spawn_sleeper(void);
/*
 * A sleeper that forks a sleeping child on a byte from *go_fd, then writes
 * the child's PID to *child_fd.
 */
pid_t spawn_forker(int *go_fd, int *child_fd);
/*
 * Forks a child that runs fn(go, back) and never returns from it: the
 * parent tells it things on *go_fd and hears from it on *back_fd.
 */
pid_t spawn_piped(void (*fn)(int go, int back), int *go_fd, int *back_fd);
/* 64 MiB of 4 KiB pages: one minor fault each at its first touch. */
#define REGION_PAGES 16384
/* A fresh anonymous region of pages pages, mapped only (the child exits if it cannot). */
char *map_region(unsigned long pages);
/* The same, MAP_PRIVATE or MAP_SHARED (shared anonymous memory is shmem). */
char *map_region_as(unsigned long pages, int sharing);
void touch_region(char *p, unsigned long pages);
/* A child's word to its parent: an address, or 0 (it exits if it cannot write). */
void child_says(int back, uintptr_t addr);
/* The same, then waits to be killed. */
__attribute__((noreturn)) void child_done(int back, uintptr_t addr);
/*
 * spawn_piped()'s fn: maps REGION_PAGES pages without huge pages, touches
 * each once when told to, sends the region's address back and waits to be
 * killed.
 */
void region_child(int go, int back);
/* A child waits for a byte from its parent (it exits if the pipe ends). */
void child_waits(int go);
/*
 * region_child()'s region, mapped MAP_PRIVATE or MAP_SHARED, then touched
 * once the parent says so.
 */
char *region_touched_when_told(int go, int sharing);
/* The name forking_child() takes, so that what it forks joins a command name's group. */
#define JOINER_COMM "pfprof-joiner"
/*
 * spawn_piped()'s fn: named JOINER_COMM, it forks when told to; the new
 * process takes a fault at once (a copy-on-write of its data), says its
 * PID and then does region_child()'s work, while the first waits for it.
 */
void forking_child(int go, int back);
#define SCREEN_MAX (1 << 20)	/* past it, a live view would block on a full terminal */
/* Appends what a pty's master shows within ms to screen (SCREEN_MAX bytes); its length. */
size_t pty_read_screen(int master, char *screen, size_t len, unsigned int ms);
/*
 * Appends what a pty's master shows until done(screen) or ms pass; its
 * length. A view starts and draws at the speed of a busy guest: wait for
 * what it should show, not for a time.
 */
size_t pty_read_until(int master, char *screen, size_t len, bool (*done)(const char *screen),
		      unsigned int ms);
/*
 * Types q into a live view (what) on the pty's master, pid its process:
 * it must exit with status 0 within 10 s and restore the terminal. Closes
 * master.
 */
void pty_expect_quit(int master, pid_t pid, char *screen, size_t len, const char *what);
/* The first address of the mapping of pid that holds addr (/proc/<pid>/maps). */
uint64_t mapping_start(pid_t pid, uint64_t addr);
/* A sleeper that has forked a sleeping child; the child's PID in *child. */
pid_t spawn_root_with_child(pid_t *child);
/* Waits until the listing no longer has pid, or has it; fails after timeout_ms. */
void wait_unlisted(pid_t pid, unsigned int timeout_ms);
void wait_listed(pid_t pid, unsigned int timeout_ms);
/* Waits until /proc/mp3/status lists no process; fails after timeout_ms. */
void wait_none_listed(unsigned int timeout_ms);
/* Runs on the CPU for ms milliseconds of its own CPU time. */
void burn_cpu_ms(unsigned long ms);
/* A sleeper running as uid and gid 65534, dumpable (become_nobody()). */
pid_t spawn_nobody_sleeper(void);
void kill_and_reap(pid_t pid);
/* Runs fn(arg) in a child; fails with "what failed" if the child fails. */
void in_child(void (*fn)(int), int arg, const char *what);
/* Drops the calling process to uid and gid 65534 (nobody), kept dumpable. */
#define NOBODY_ID 65534
/* A test's module parameters that say: the test loads mp3.ko itself. */
#define NO_MODULE "-"
void become_nobody(void);
/* Runs as uid (and gid), dumpable, named comm; exits 5 if it cannot. */
void become_named(int uid, const char *comm);
/*
 * A child that idles until the caller dies (pause(), or, if @wakes, waking
 * every 10 ms: a record at every sample); the caller exits 6 if it cannot fork.
 */
pid_t fork_dependent(bool wakes);
/* The caller, as uid 65534 with no process limit, and @n idle dependents. */
void become_nobody_with(int n);
/* A process of uid named comm that waits to be killed. */
pid_t spawn_user_named(int uid, const char *comm);
/* /proc/mp3/status opened by uid 65534, for writing: commands through it are nobody's. */
int nobody_status_fd(void);
/* /proc/mp3/status opened for writing by a child that called prepare() first. */
int status_fd_opened_after(void (*prepare)(void), const char *opener);

struct worker {
	pid_t pid;
	int cmd_fd;
	int ack_fd;
};
void worker_spawn(struct worker *w);
/* Runs one command in the worker and waits for it to finish:
 * 't' n: touch n fresh pages;  'c' n: burn n ms of CPU;
 * 'T' n: four threads each touch n/4 fresh pages and burn 100 ms of CPU. */
void worker_do(struct worker *w, char cmd, unsigned long arg);

struct proc_stat {
	unsigned long long minflt, majflt, utime, stime;	/* clock ticks */
};
void read_proc_stat(const char *path, struct proc_stat *st);
void read_pid_stat(pid_t pid, struct proc_stat *st);
/* pid's name (/proc/PID/comm), without its line end. */
void read_comm(pid_t pid, char *comm, size_t size);
/*
 * Waits until every thread of pid is off the run queue, asleep (its wchan
 * is shown); fails after timeout_ms.
 */
void wait_blocked(pid_t pid, unsigned int timeout_ms);
/* The number on the "key: number ..." or "key number" line of path (/proc/meminfo,
 * /proc/<pid>/status, a cgroup's cpu.stat); fails if there is none. */
unsigned long long proc_key_value(const char *path, const char *key);

/* The device and its versioned region. */
int open_device(int flags);
void map_ring(struct mp3ring *ring, int *fd);
/* Maps the classic region read-write, as monitor does. */
struct mp3_classic_sample *map_classic(void);
/*
 * The MP3_RING_STALLS a version 7 module's header has on this kernel: set
 * where the kernel has delay accounting (kernel.task_delayacct exists), 0
 * where it has not (the debug kernel).
 */
uint32_t kernel_stalls_flag(void);
/* Waits until head >= target; fails after timeout_ms. */
/*
 * The waits below fail after their timeout_ms times timeout_scale(): they
 * catch what never comes, not what comes late on a busy host.
 */
unsigned int scaled_ms(unsigned int ms);
uint64_t wait_head(const struct mp3ring *ring, uint64_t target, unsigned int timeout_ms);
/*
 * A wait for ticks samples: their periods and 10 s more, since a sample may
 * wait long for a CPU on a busy host (the limit catches a sampler that stopped).
 */
unsigned int ticks_ms(const struct mp3ring *ring, unsigned int ticks);
/* Waits until @pid has mapped the device (a reader that has begun); fails after timeout_ms. */
void wait_ring_mapped(pid_t pid, unsigned int timeout_ms);
/*
 * After the last process left (unregistered, or no longer listed): the
 * sampler publishes the records still written for it (an unregistered
 * process's MP3_RECORD_LEFT) in one last sample, then stops. Waits for that
 * sample by its records, not by time; then fails if samples still come
 * within three periods (100 ms at least). Returns the head.
 */
uint64_t wait_stopped(const struct mp3ring *ring);
/* Calls @fn for every record of samples [from, to); fails if a sample or a record is lost. */
void for_each_record_between(const struct mp3ring *ring, uint64_t from, uint64_t to,
			     void (*fn)(void *ctx, const struct mp3_proc_record *r), void *ctx);

struct sample_sum {
	uint64_t minor, major, cpu_ns, samples;
	uint32_t max_procs;
};
/* Sums samples [from, to) of the ring; fails if any of them was missed. */
void sum_samples(const struct mp3ring *ring, uint64_t from, uint64_t to,
		 struct sample_sum *sum);

void sleep_ms(unsigned int ms);
/*
 * @most, or fewer if the environment variable @name says so: tests/guest/run
 * asks for fewer forks and writes on the debug kernel, whose checkers make
 * each many times slower.
 */
int count_from_env(const char *name, int most);
/* The processes a test of a thousand registers, or PFPROF_MANY_PROCS. */
#define MANY_PROCS 1000
uint64_t now_ns(void);
/* Runs argv with stdout to out_path (may be NULL); returns the exit status. */
int run_program(char *const argv[], const char *out_path);
/* The same, with standard error to err_path (may be NULL). */
int run_program_err(char *const argv[], const char *out_path, const char *err_path);
/* run_program_err() in two halves: the program started, and waited for (its status as there). */
pid_t start_program_err(char *const argv[], const char *out_path, const char *err_path);
int wait_program(pid_t pid, const char *name);
/* cgroup2 mounted at root (made if missing; mounted already is fine). */
void mount_cgroup2(const char *root);
/* Where the tests mount cgroup2. */
#define CGROUP_ROOT "/tmp/cgroup2"
/* cgroup2 at CGROUP_ROOT (once), and the directory dir below it. */
void make_cgroup(const char *dir);
/* The id of a cgroup v2 directory: its inode number. */
unsigned long long cgroup_id(const char *dir);
/* pid into the cgroup v2 directory dir. */
void move_to_cgroup(const char *dir, pid_t pid);
/* Writes text to the file at path in one write(); fails the test if it cannot. */
void write_file(const char *path, const char *text);
/* A new file at path of pages 4 KiB pages, each starting with a byte 1 (the rest 0). */
void write_file_pages(const char *path, unsigned int pages);
/* Whether a line of the file at path contains needle. */
bool file_contains(const char *path, const char *needle);
/*
 * Whether the kernel's kprobes list (debugfs mounted if need be) has a
 * probe on symbol: KPROBE_ABSENT, KPROBE_DISABLED or KPROBE_ENABLED.
 */
enum kprobe_state { KPROBE_ABSENT, KPROBE_DISABLED, KPROBE_ENABLED };
enum kprobe_state kprobe_state(const char *symbol);
/* The lines of path (a last one without its newline counts); -1 if it cannot be read. */
int file_lines(const char *path);
/* The next process forked gets pid + 1, if that number is free. */
void set_last_pid(pid_t pid);
/* |a - b| <= pct % of b */
bool within_pct(double a, double b, double pct);
/*
 * Swap on zram0, set up at the first call; false, saying why, if this
 * guest cannot have it (no zram module, a kernel without swap).
 */
bool swap_device_ready(char *why, size_t size);
/*
 * One of /proc/vmstat's counters; 0 if this kernel has none of that name,
 * which fails the test if it is required (CONFIG_VM_EVENT_COUNTERS).
 */
uint64_t vmstat(const char *name, bool required);
/*
 * Pages read back from swap, and written out: from and to the device,
 * zswap's pool where it is on, and (6.12 on) the zero-filled pages kept
 * as a bit.
 */
uint64_t swapped_in(void);
uint64_t swapped_out(void);
/*
 * Whether @traced page events agree with the kernel's @kernel pages within
 * 1 %, counting the @dropped events the module could not keep (mp3.h: past
 * 8192 a CPU between two ticks, as when a late tick finds a whole region
 * paged out on one CPU), which may be of this kind or another.
 */
bool page_events_agree(uint64_t traced, uint64_t kernel, uint64_t dropped);
/* The page events the module dropped since @from (the ring's swap_dropped then). */
uint64_t page_events_dropped_since(const struct mp3ring *ring, uint64_t from);
/* memory.reclaim of @dir asked for @bytes: EAGAIN when it took less, which is fine here. */
void reclaim_cgroup(const char *dir, size_t bytes);
/*
 * @dir made, with the memory controller, if the guest has memory cgroups
 * and swap; else says why @test is not run (pages_swap checks the
 * refusal without memory cgroups) and returns false.
 */
bool child_in_cgroup_can_swap(const char *test, const char *dir);
/*
 * spawn_piped()'s fn: at "g", a memfd of REGION_PAGES pages written and
 * unmapped, the file kept open (shmem pages no process maps); says so. At
 * "t", mapped again and read, every page; says its address and waits.
 */
void unmapped_memfd_child(int go, int back);
/*
 * spawn_piped()'s fn: region_child's region, touched at "g"; at "o" it is
 * paged out (MADV_PAGEOUT); at "t" touched again, every page read back.
 */
void swapping_child(int go, int back);
/* The same with a shared anonymous region: shmem pages. */
void swapping_shared_child(int go, int back);
/* Copies a file into the test's output, each line after prefix. */
void show_file(const char *path, const char *prefix);

#endif /* PFPROF_GUEST_HARNESS_H */
