// SPDX-License-Identifier: GPL-2.0
/* What the guest tests share: module control, the proc file, helpers. */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "clock.h"
#include "harness.h"
#include "stalls.h"

#define MODULE_FILE "mp3.ko"	/* the suite runs in the directory holding it */

void expect_ok(int err, const char *what)
{
	if (err)
		fail("%s: %s", what, strerror(-err));
}

const char *errno_name(int err)
{
	static const struct { int err; const char *name; } names[] = {
		{ 0, "success" }, { EINVAL, "EINVAL" }, { ESRCH, "ESRCH" },
		{ EPERM, "EPERM" }, { EEXIST, "EEXIST" }, { ENOENT, "ENOENT" },
		{ EACCES, "EACCES" }, { EAGAIN, "EAGAIN" }, { EBUSY, "EBUSY" }, { ENOSPC, "ENOSPC" },
		{ EFAULT, "EFAULT" }, { ENXIO, "ENXIO" },
	};

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (names[i].err == (err < 0 ? -err : err))
			return names[i].name;
	return strerror(err < 0 ? -err : err);
}

void expect_errno(int err, int want, const char *what)
{
	if (err != -want)
		fail("%s: got %s, want %s", what, errno_name(err), errno_name(want));
}

int module_load(const char *params)
{
	int fd = open(MODULE_FILE, O_RDONLY | O_CLOEXEC);
	int err = 0;

	if (fd < 0)
		return -errno;
	if (syscall(SYS_finit_module, fd, params ? params : "", 0))
		err = -errno;
	close(fd);
	return err;
}

int module_unload(void)
{
	return syscall(SYS_delete_module, "mp3", O_NONBLOCK) ? -errno : 0;
}

bool module_loaded(void)
{
	return access("/sys/module/mp3", F_OK) == 0;
}

int status_write_fd(int fd, const void *buf, size_t len)
{
	ssize_t n = write(fd, buf, len);

	if (n < 0)
		return -errno;
	if ((size_t)n != len)
		fail("short write of %zu bytes to %s: %zd", len, MP3_STATUS_PATH, n);
	return 0;
}

int status_write_len(const void *buf, size_t len)
{
	int fd = open(MP3_STATUS_PATH, O_WRONLY | O_CLOEXEC);
	int err;

	if (fd < 0)
		return -errno;
	err = status_write_fd(fd, buf, len);
	close(fd);
	return err;
}

int status_write(const char *cmd)
{
	return status_write_len(cmd, strlen(cmd));
}

int status_write_cmd_fd(int fd, const char *cmd)
{
	return status_write_fd(fd, cmd, strlen(cmd));
}

/* One command, formatted, through @fd (-1: a descriptor root opens now); 0 or -errno. */
int __attribute__((format(printf, 2, 3))) status_printf(int fd, const char *fmt, ...)
{
	char cmd[MP3_STATUS_MAX_WRITE + 1];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	return fd < 0 ? status_write(cmd) : status_write_cmd_fd(fd, cmd);
}

int status_cmd_fd(int fd, char cmd, pid_t pid)
{
	char buf[32];
	int len = snprintf(buf, sizeof(buf), "%c %d\n", cmd, (int)pid);

	return status_write_fd(fd, buf, len);
}

int status_cmd(char cmd, pid_t pid)
{
	int fd = open(MP3_STATUS_PATH, O_WRONLY | O_CLOEXEC);
	int err;

	if (fd < 0)
		return -errno;
	err = status_cmd_fd(fd, cmd, pid);
	close(fd);
	return err;
}

int status_list(pid_t *pids, int max)
{
	FILE *f = fopen(MP3_STATUS_PATH, "re");
	char line[64];
	int n = 0;

	if (!f)
		fail("open %s: %s", MP3_STATUS_PATH, strerror(errno));
	while (fgets(line, sizeof(line), f)) {
		char *end;
		long v = strtol(line, &end, 10);

		if (end == line || strcmp(end, "\n") || v <= 0)
			fail("bad line in %s: '%s'", MP3_STATUS_PATH, line);
		if (n >= max)
			fail("%s lists more than %d PIDs", MP3_STATUS_PATH, max);
		pids[n++] = (pid_t)v;
	}
	fclose(f);
	return n;
}

bool status_lists(pid_t pid)
{
	pid_t pids[256];
	int n = status_list(pids, 256);

	for (int i = 0; i < n; i++)
		if (pids[i] == pid)
			return true;
	return false;
}

pid_t spawn_sleeper(void)
{
	pid_t pid = fork();

	if (pid < 0)
		fail("fork: %s", strerror(errno));
	if (pid == 0) {
		for (;;)
			pause();
	}
	return pid;
}

pid_t spawn_nobody_sleeper(void)
{
	int ready[2];
	pid_t pid;
	char ack;

	if (pipe2(ready, O_CLOEXEC))
		fail("pipe: %s", strerror(errno));
	pid = fork();
	if (pid < 0)
		fail("fork: %s", strerror(errno));
	if (pid == 0) {
		become_nobody();
		if (write(ready[1], "k", 1) != 1)
			_exit(1);
		for (;;)
			pause();
	}
	close(ready[1]);
	/* Until then it is still root's. */
	if (read(ready[0], &ack, 1) != 1)
		fail("the sleeper could not become uid %d", NOBODY_ID);
	close(ready[0]);
	return pid;
}

void kill_and_reap(pid_t pid)
{
	kill(pid, SIGKILL);
	if (waitpid(pid, NULL, 0) != pid)
		fail("waitpid %d: %s", (int)pid, strerror(errno));
}

void in_child(void (*fn)(int), int arg, const char *what)
{
	int status;
	pid_t pid = fork();

	if (pid < 0)
		fail("fork: %s", strerror(errno));
	if (pid == 0) {
		fn(arg);
		_exit(0);
	}
	if (waitpid(pid, &status, 0) != pid)
		fail("waitpid %d: %s", (int)pid, strerror(errno));
	expect(WIFEXITED(status) && WEXITSTATUS(status) == 0, "%s failed", what);
}

void become_named(int uid, const char *comm)
{
	if (setresgid(uid, uid, uid) || setresuid(uid, uid, uid) ||
	    prctl(PR_SET_DUMPABLE, 1) || prctl(PR_SET_NAME, comm))
		_exit(5);
}

pid_t fork_dependent(bool wakes)
{
	pid_t child = fork();

	if (child < 0)
		_exit(6);
	if (child)
		return child;
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	for (;;)
		if (wakes)
			usleep(10000);
		else
			pause();
}

void become_nobody_with(int n)
{
	/* RLIMIT_NPROC is half of threads-max by default: 1950 in a 512 MiB guest. */
	const struct rlimit unlimited = { RLIM_INFINITY, RLIM_INFINITY };

	if (setrlimit(RLIMIT_NPROC, &unlimited))
		_exit(5);
	become_nobody();
	for (int i = 0; i < n; i++)
		fork_dependent(false);
}

static int named_uid;
static const char *named_comm;

static void named_child(int go, int back)
{
	(void)go;
	become_named(named_uid, named_comm);
	child_done(back, 1);
}

pid_t spawn_user_named(int uid, const char *comm)
{
	uintptr_t said;
	int go, back;
	pid_t pid;

	named_uid = uid;
	named_comm = comm;
	pid = spawn_piped(named_child, &go, &back);
	if (read(back, &said, sizeof(said)) != sizeof(said))
		fail("PID %d could not become uid %d named %s", (int)pid, uid, comm);
	close(go);
	close(back);
	return pid;
}

void become_nobody(void)
{
	if (setresgid(NOBODY_ID, NOBODY_ID, NOBODY_ID) || setresuid(NOBODY_ID, NOBODY_ID, NOBODY_ID))
		fail("dropping to uid %d: %s", NOBODY_ID, strerror(errno));
	/* Changing credentials made us undumpable like a setuid program;
	 * an ordinary user's processes are dumpable. */
	if (prctl(PR_SET_DUMPABLE, 1))
		fail("PR_SET_DUMPABLE: %s", strerror(errno));
}

static void touch_pages(unsigned long pages)
{
	long page = sysconf(_SC_PAGESIZE);
	char *p = mmap(NULL, pages * page, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED)
		_exit(3);
	for (unsigned long i = 0; i < pages; i++)
		((volatile char *)p)[i * page] = 1;
	/* Kept mapped: unmapping is not what is measured. */
}

void burn_cpu_ms(unsigned long ms)
{
	uint64_t start = clock_ns(CLOCK_THREAD_CPUTIME_ID);

	while (clock_ns(CLOCK_THREAD_CPUTIME_ID) - start < ms * 1000000ULL)
		;
}

static void *thread_work(void *arg)
{
	touch_pages((unsigned long)arg);
	burn_cpu_ms(100);
	return NULL;
}

static void threaded_work(unsigned long pages)
{
	pthread_t threads[4];

	for (int i = 0; i < 4; i++)
		if (pthread_create(&threads[i], NULL, thread_work, (void *)(pages / 4)))
			_exit(4);
	for (int i = 0; i < 4; i++)
		pthread_join(threads[i], NULL);
}

struct worker_cmd {
	char cmd;
	unsigned long arg;
};

static void worker_loop(int cmd_fd, int ack_fd)
{
	struct worker_cmd c;

	/*
	 * One fault per 4 KiB page, whatever the THP setting. Not
	 * MADV_NOHUGEPAGE after mmap(): until then the new region can merge
	 * with a neighbour, such as a thread's stack, that another thread
	 * faults a huge page into; the split at madvise() leaves up to 511
	 * of our pages present without a fault (seen on the debug kernel,
	 * 14 threads of 240).
	 */
	if (prctl(PR_SET_THP_DISABLE, 1, 0, 0, 0))
		_exit(6);
	while (read(cmd_fd, &c, sizeof(c)) == sizeof(c)) {
		switch (c.cmd) {
		case 't':
			touch_pages(c.arg);
			break;
		case 'c':
			burn_cpu_ms(c.arg);
			break;
		case 'T':
			threaded_work(c.arg);
			break;
		}
		if (write(ack_fd, "k", 1) != 1)
			_exit(5);
	}
	_exit(0);
}

void worker_spawn(struct worker *w)
{
	int cmd[2], ack[2];

	if (pipe(cmd) || pipe(ack))
		fail("pipe: %s", strerror(errno));
	w->pid = fork();
	if (w->pid < 0)
		fail("fork: %s", strerror(errno));
	if (w->pid == 0) {
		close(cmd[1]);
		close(ack[0]);
		worker_loop(cmd[0], ack[1]);
	}
	close(cmd[0]);
	close(ack[1]);
	w->cmd_fd = cmd[1];
	w->ack_fd = ack[0];
}

void worker_do(struct worker *w, char cmd, unsigned long arg)
{
	struct worker_cmd c = { .cmd = cmd, .arg = arg };
	char ack;

	if (write(w->cmd_fd, &c, sizeof(c)) != sizeof(c))
		fail("sending '%c' to worker %d: %s", cmd, (int)w->pid, strerror(errno));
	if (read(w->ack_fd, &ack, 1) != 1)
		fail("worker %d died during '%c'", (int)w->pid, cmd);
}

void read_proc_stat(const char *path, struct proc_stat *st)
{
	char buf[1024], *p;
	ssize_t n;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		fail("open %s: %s", path, strerror(errno));
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		fail("read %s: %s", path, n ? strerror(errno) : "empty");
	buf[n] = '\0';
	p = strrchr(buf, ')');	/* comm may hold spaces and parentheses */
	/* Fields 3..: state ppid pgrp session tty tpgid flags minflt cminflt
	 * majflt cmajflt utime stime */
	if (!p || sscanf(p + 1, " %*c %*d %*d %*d %*d %*d %*u %llu %*u %llu %*u %llu %llu",
			 &st->minflt, &st->majflt, &st->utime, &st->stime) != 4)
		fail("cannot parse %s: '%s'", path, buf);
}

void read_pid_stat(pid_t pid, struct proc_stat *st)
{
	char path[64];

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	read_proc_stat(path, st);
}

void read_comm(pid_t pid, char *comm, size_t size)
{
	char path[64];
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/comm", (int)pid);
	f = fopen(path, "re");
	expect(f && fgets(comm, size, f), "reading %s: %s", path, strerror(errno));
	fclose(f);
	comm[strcspn(comm, "\n")] = '\0';
}

unsigned int scaled_ms(unsigned int ms)
{
	return (unsigned int)(ms * timeout_scale());
}

void wait_blocked(pid_t pid, unsigned int timeout_ms)
{
	uint64_t deadline = now_ns() + (timeout_ms = scaled_ms(timeout_ms)) * 1000000ULL;
	char path[64], wchan[64];
	ssize_t n;
	int fd;

	/* get_wchan() names a place only for a task that is asleep and off the run queue (5.16). */
	snprintf(path, sizeof(path), "/proc/%d/wchan", (int)pid);
	for (;;) {
		fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			fail("open %s: %s", path, strerror(errno));
		n = read(fd, wchan, sizeof(wchan) - 1);
		close(fd);
		if (n > 0) {
			wchan[n] = '\0';
			if (strcmp(wchan, "0"))
				return;
		}
		if (now_ns() > deadline)
			fail("process %d still runnable after %u ms", (int)pid, timeout_ms);
		sleep_ms(1);
	}
}

unsigned long long proc_key_value(const char *path, const char *key)
{
	size_t key_len = strlen(key);
	unsigned long long value;
	char line[256];
	bool found = false;
	FILE *f = fopen(path, "r");

	if (!f)
		fail("open %s: %s", path, strerror(errno));
	while (!found && fgets(line, sizeof(line), f))
		found = !strncmp(line, key, key_len) &&
			(line[key_len] == ':' || line[key_len] == ' ') &&
			sscanf(line + key_len + 1, "%llu", &value) == 1;
	fclose(f);
	expect(found, "%s has no %s line", path, key);
	return value;
}

int open_device(int flags)
{
	int fd = open(MP3_DEVICE_PATH, flags | O_CLOEXEC);

	if (fd < 0)
		fail("open %s: %s", MP3_DEVICE_PATH, strerror(errno));
	return fd;
}

/* Maps the classic region read-write, as monitor does. */
struct mp3_classic_sample *map_classic(void)
{
	int fd = open_device(O_RDWR);
	void *p = mmap(NULL, MP3_CLASSIC_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED, fd,
		       MP3_CLASSIC_OFFSET);

	if (p == MAP_FAILED)
		fail("mmap of the classic region: %s", strerror(errno));
	close(fd);
	return p;
}

void map_ring(struct mp3ring *ring, int *fd)
{
	*fd = open_device(O_RDONLY);
	expect_ok(mp3ring_map(ring, *fd), "mapping the versioned region");
}

uint32_t kernel_stalls_flag(void)
{
	return access(DELAYACCT_SYSCTL, F_OK) ? 0 : MP3_RING_STALLS;
}

uint64_t wait_head(const struct mp3ring *ring, uint64_t target, unsigned int timeout_ms)
{
	uint64_t deadline = now_ns() + (timeout_ms = scaled_ms(timeout_ms)) * 1000000ULL;
	uint64_t head;

	while ((head = mp3ring_head(ring)) < target) {
		if (now_ns() > deadline)
			fail("head stayed at %llu, waited %u ms for %llu",
			     (unsigned long long)head, timeout_ms, (unsigned long long)target);
		sleep_ms(2);
	}
	return head;
}

unsigned int ticks_ms(const struct mp3ring *ring, unsigned int ticks)
{
	return ticks * (unsigned int)(ring->hdr->period_ns / 1000000) + 10000;
}

/* Whether record record_head is written for sample head, not yet published. */
static bool record_unpublished(const struct mp3ring *ring, uint64_t record_head, uint64_t head)
{
	struct mp3_proc_record r;

	return mp3ring_read_record(ring, record_head, head, &r);
}

uint64_t wait_stopped(const struct mp3ring *ring)
{
	unsigned int settle_ms = 3 * ring->hdr->period_ns / 1000000 + 1;
	/* Before the head: a sample published between the two loads then owns the record. */
	uint64_t record_head = __atomic_load_n(&ring->hdr->record_head, __ATOMIC_ACQUIRE);
	uint64_t head = mp3ring_head(ring);

	/* The last sample may wait long for a CPU: the debug kernel under TCG, beside other guests. */
	if (record_unpublished(ring, record_head, head))
		head = wait_head(ring, head + 1, 60000);
	if (settle_ms < 100)
		settle_ms = 100;
	sleep_ms(settle_ms);
	expect(head == mp3ring_head(ring), "samples after the last process's last one: %llu, then %llu",
	       (unsigned long long)head, (unsigned long long)mp3ring_head(ring));
	return head;
}

void sum_samples(const struct mp3ring *ring, uint64_t from, uint64_t to,
		 struct sample_sum *sum)
{
	struct mp3_ring_sample s;
	uint64_t next = from, missed = 0;

	memset(sum, 0, sizeof(*sum));
	while (next < to) {
		if (mp3ring_read(ring, &next, &s, &missed) != MP3RING_SAMPLE)
			fail("sample %llu is not published", (unsigned long long)next);
		if (missed)
			fail("missed %llu samples before %llu", (unsigned long long)missed,
			     (unsigned long long)s.seq);
		sum->minor += s.minor_faults;
		sum->major += s.major_faults;
		sum->cpu_ns += s.cpu_ns;
		sum->samples++;
		if (s.nr_procs > sum->max_procs)
			sum->max_procs = s.nr_procs;
	}
}

void for_each_record_between(const struct mp3ring *ring, uint64_t from, uint64_t to,
			     void (*fn)(void *ctx, const struct mp3_proc_record *r), void *ctx)
{
	uint64_t next = from, missed = 0;
	struct mp3_ring_sample s;

	while (next < to) {
		expect(mp3ring_read(ring, &next, &s, &missed) == MP3RING_SAMPLE,
		       "sample %llu not published", (unsigned long long)next);
		expect(!missed, "%llu samples missed before %llu", (unsigned long long)missed,
		       (unsigned long long)next);
		expect(!mp3ring_for_each_record(ring, &s, fn, ctx), "records of sample %llu lost",
		       (unsigned long long)s.seq);
	}
}

void sleep_ms(unsigned int ms)
{
	struct timespec t = { ms / 1000, (long)(ms % 1000) * 1000000L };

	while (nanosleep(&t, &t) && errno == EINTR)
		;
}

uint64_t now_ns(void)
{
	return clock_ns(CLOCK_MONOTONIC);
}

/* In a child about to exec: the file at path (if any) becomes descriptor target. */
static void redirect(const char *path, int target)
{
	int fd;

	if (!path)
		return;
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd < 0 || dup2(fd, target) < 0)
		_exit(126);
}

int run_program(char *const argv[], const char *out_path)
{
	return run_program_err(argv, out_path, NULL);
}

pid_t start_program_err(char *const argv[], const char *out_path, const char *err_path)
{
	pid_t pid = fork();

	if (pid < 0)
		fail("fork: %s", strerror(errno));
	if (pid == 0) {
		redirect(out_path, STDOUT_FILENO);
		redirect(err_path, STDERR_FILENO);
		execv(argv[0], argv);
		_exit(127);
	}
	return pid;
}

int wait_program(pid_t pid, const char *name)
{
	int status;

	if (waitpid(pid, &status, 0) != pid)
		fail("waitpid %s: %s", name, strerror(errno));
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

int run_program_err(char *const argv[], const char *out_path, const char *err_path)
{
	return wait_program(start_program_err(argv, out_path, err_path), argv[0]);
}

bool within_pct(double a, double b, double pct)
{
	double d = a > b ? a - b : b - a;

	return d <= b * pct / 100.0;
}

bool file_contains(const char *path, const char *needle)
{
	FILE *f = fopen(path, "r");
	char line[1024];
	bool found = false;

	if (!f)
		return false;
	while (!found && fgets(line, sizeof(line), f))
		found = strstr(line, needle) != NULL;
	fclose(f);
	return found;
}

int file_lines(const char *path)
{
	FILE *f = fopen(path, "r");
	int lines = 0, c, last = '\n';

	if (!f)
		return -1;
	while ((c = fgetc(f)) != EOF) {
		lines += c == '\n';
		last = c;
	}
	fclose(f);
	return lines + (last != '\n');
}

void set_last_pid(pid_t pid)
{
	char buf[32];
	int fd = open("/proc/sys/kernel/ns_last_pid", O_WRONLY | O_CLOEXEC);
	int len = snprintf(buf, sizeof(buf), "%d", (int)pid);

	if (fd < 0 || write(fd, buf, len) != len)
		fail("writing /proc/sys/kernel/ns_last_pid: %s", strerror(errno));
	close(fd);
}

pid_t spawn_piped(void (*fn)(int go, int back), int *go_fd, int *back_fd)
{
	int go[2], back[2];
	pid_t pid;

	expect(!pipe(go) && !pipe(back), "pipe: %s", strerror(errno));
	pid = fork();
	expect(pid >= 0, "fork: %s", strerror(errno));
	if (pid == 0) {
		close(go[1]);
		close(back[0]);
		fn(go[0], back[1]);
		_exit(5);
	}
	close(go[0]);
	close(back[1]);
	*go_fd = go[1];
	*back_fd = back[0];
	return pid;
}

/* spawn_forker()'s child: forks a sleeping child on a byte, writes its PID back. */
static void forker(int go, int back)
{
	pid_t child;
	char byte;

	if (read(go, &byte, 1) != 1)
		_exit(3);
	child = fork();
	if (child == 0)
		for (;;)
			pause();
	if (write(back, &child, sizeof(child)) != sizeof(child))
		_exit(4);
	for (;;)
		pause();
}

pid_t spawn_forker(int *go_fd, int *child_fd)
{
	return spawn_piped(forker, go_fd, child_fd);
}

char *map_region(unsigned long pages)
{
	char *p = mmap(NULL, pages * sysconf(_SC_PAGESIZE), PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED)
		_exit(3);
	return p;
}

void touch_region(char *p, unsigned long pages)
{
	long page = sysconf(_SC_PAGESIZE);

	for (unsigned long i = 0; i < pages; i++)
		((volatile char *)p)[i * page] = 1;
}

void child_says(int back, uintptr_t addr)
{
	if (write(back, &addr, sizeof(addr)) != sizeof(addr))
		_exit(4);
}

void child_done(int back, uintptr_t addr)
{
	child_says(back, addr);
	for (;;)
		pause();
}

void child_waits(int go)
{
	char byte;

	if (read(go, &byte, 1) != 1)
		_exit(3);
}

char *region_touched_when_told(int go)
{
	char *p;

	/* Before the mapping: no huge page, and no neighbour's huge page split in. */
	if (prctl(PR_SET_THP_DISABLE, 1, 0, 0, 0))
		_exit(6);
	p = map_region(REGION_PAGES);
	child_waits(go);
	touch_region(p, REGION_PAGES);
	return p;
}

void region_child(int go, int back)
{
	child_done(back, (uintptr_t)region_touched_when_told(go));
}

void forking_child(int go, int back)
{
	static volatile pid_t joiner;
	char byte;
	pid_t pid;

	if (prctl(PR_SET_NAME, JOINER_COMM, 0, 0, 0) || read(go, &byte, 1) != 1)
		_exit(3);
	pid = fork();
	if (pid < 0)
		_exit(4);
	if (!pid) {
		joiner = getpid();
		child_says(back, (uintptr_t)joiner);
		region_child(go, back);
	}
	waitpid(pid, NULL, 0);
	_exit(0);
}

/* Whether @pid has the ring mapped: a line of its maps names the device. */
static bool ring_mapped_by(pid_t pid)
{
	char path[64], line[512];
	bool mapped = false;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/maps", (int)pid);
	f = fopen(path, "re");
	if (!f)
		return false;
	while (!mapped && fgets(line, sizeof(line), f))
		mapped = strstr(line, " " MP3_DEVICE_PATH "\n") != NULL;
	fclose(f);
	return mapped;
}

void wait_ring_mapped(pid_t pid, unsigned int timeout_ms)
{
	timeout_ms = scaled_ms(timeout_ms);
	for (unsigned int waited = 0; !ring_mapped_by(pid); waited += 10) {
		expect(waited < timeout_ms, "PID %d did not map %s in %u ms", (int)pid,
		       MP3_DEVICE_PATH, timeout_ms);
		usleep(10000);
	}
}

uint64_t mapping_start(pid_t pid, uint64_t addr)
{
	unsigned long long start, end;
	char path[64], line[512];
	uint64_t found = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/maps", (int)pid);
	f = fopen(path, "re");
	expect(f, "%s: %s", path, strerror(errno));
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "%llx-%llx", &start, &end) == 2 && start <= addr && addr < end)
			found = start;
	fclose(f);
	expect(found, "no mapping of %d holds %#llx", (int)pid, (unsigned long long)addr);
	return found;
}

/* A root that has forked a child which sleeps; the child's PID in *child. */
pid_t spawn_root_with_child(pid_t *child)
{
	int go_fd, child_fd;
	pid_t root = spawn_forker(&go_fd, &child_fd);

	expect(write(go_fd, "g", 1) == 1 && read(child_fd, child, sizeof(*child)) == sizeof(*child),
	       "the root did not fork");
	close(go_fd);
	close(child_fd);
	return root;
}

/* Waits until the listing has pid, or no longer has it; fails after timeout_ms. */
static void wait_listing(pid_t pid, bool listed, unsigned int timeout_ms)
{
	uint64_t deadline = now_ns() + (timeout_ms = scaled_ms(timeout_ms)) * 1000000ULL;

	while (status_lists(pid) != listed) {
		expect(now_ns() < deadline, "PID %d still %slisted after %u ms", (int)pid,
		       listed ? "not " : "", timeout_ms);
		sleep_ms(10);
	}
}

void wait_unlisted(pid_t pid, unsigned int timeout_ms)
{
	wait_listing(pid, false, timeout_ms);
}

void wait_listed(pid_t pid, unsigned int timeout_ms)
{
	wait_listing(pid, true, timeout_ms);
}

/* More than the most any test registers at once (tree_churn: 4000). */
#define LISTED_MAX 16384

void wait_none_listed(unsigned int timeout_ms)
{
	uint64_t deadline = now_ns() + (timeout_ms = scaled_ms(timeout_ms)) * 1000000ULL;
	static pid_t pids[LISTED_MAX];
	int n;

	while ((n = status_list(pids, LISTED_MAX))) {
		expect(now_ns() < deadline, "%d PIDs still listed after %u ms, PID %d first", n,
		       timeout_ms, (int)pids[0]);
		sleep_ms(10);
	}
}

size_t pty_read_screen(int master, char *screen, size_t len, unsigned int ms)
{
	uint64_t deadline = now_ns() + ms * 1000000ULL;
	struct pollfd pfd = { .fd = master, .events = POLLIN };

	while (now_ns() < deadline && len < SCREEN_MAX - 1) {
		ssize_t n;

		if (poll(&pfd, 1, 50) <= 0)
			continue;
		n = read(master, screen + len, SCREEN_MAX - 1 - len);
		if (n <= 0)
			break;
		len += n;
	}
	screen[len] = '\0';
	return len;
}

size_t pty_read_until(int master, char *screen, size_t len, bool (*done)(const char *screen),
		      unsigned int ms)
{
	uint64_t deadline = now_ns() + scaled_ms(ms) * 1000000ULL;

	screen[len] = '\0';
	while (!done(screen) && now_ns() < deadline && len < SCREEN_MAX - 1) {
		size_t before = len;

		len = pty_read_screen(master, screen, len, 100);
		if (len == before)
			sleep_ms(10);	/* EIO once the view exited: no busy loop */
	}
	return len;
}

void show_file(const char *path, const char *prefix)
{
	char line[256];
	FILE *f = fopen(path, "re");

	expect(f, "%s: %s", path, strerror(errno));
	while (fgets(line, sizeof(line), f))
		printf("  %s%s", prefix, line);
	fclose(f);
}

void pty_expect_quit(int master, pid_t pid, char *screen, size_t len, const char *what)
{
	int status = -1;

	expect(write(master, "q", 1) == 1, "typing q: %s", strerror(errno));
	/*
	 * Once the view has closed the terminal, reads fail at once while its
	 * exit is still under way: the wait is a time, not a number of reads.
	 */
	for (uint64_t deadline = now_ns() + 10000000000ULL;
	     waitpid(pid, &status, WNOHANG) == 0 && now_ns() < deadline;) {
		len = pty_read_screen(master, screen, len, 10);
		sleep_ms(10);
	}
	expect(WIFEXITED(status) && !WEXITSTATUS(status), "%s did not quit on q (status %#x), "
	       "its last output: %s", what, status, screen + (len > 160 ? len - 160 : 0));
	pty_read_screen(master, screen, len, 100);
	expect(strstr(screen, "\033[?25h\033[?1049l"), "the terminal was not restored");
	close(master);
}

void mount_cgroup2(const char *root)
{
	mkdir(root, 0755);
	expect(!mount("none", root, "cgroup2", 0, NULL) || errno == EBUSY,
	       "mounting cgroup2 at %s: %s", root, strerror(errno));
}

unsigned long long cgroup_id(const char *dir)
{
	struct stat st;

	expect(!stat(dir, &st), "stat %s: %s", dir, strerror(errno));
	return (unsigned long long)st.st_ino;
}

void make_cgroup(const char *dir)
{
	mount_cgroup2(CGROUP_ROOT);
	expect(!mkdir(dir, 0755) || errno == EEXIST, "mkdir %s: %s", dir, strerror(errno));
}

void move_to_cgroup(const char *dir, pid_t pid)
{
	char path[128], text[16];
	int fd;

	snprintf(path, sizeof(path), "%s/cgroup.procs", dir);
	snprintf(text, sizeof(text), "%d", (int)pid);
	fd = open(path, O_WRONLY);
	expect(fd >= 0 && write(fd, text, strlen(text)) == (ssize_t)strlen(text),
	       "moving PID %d into %s: %s", (int)pid, dir, strerror(errno));
	close(fd);
}

/* Hands @fd to the other end of the unix socket @sock (SCM_RIGHTS). */
static void send_fd(int sock, int fd)
{
	char cbuf[CMSG_SPACE(sizeof(int))] = { 0 };
	struct iovec iov = { .iov_base = "f", .iov_len = 1 };
	struct msghdr msg = {
		.msg_iov = &iov, .msg_iovlen = 1,
		.msg_control = cbuf, .msg_controllen = sizeof(cbuf),
	};
	struct cmsghdr *cmsg = CMSG_FIRSTHDR(&msg);

	cmsg->cmsg_level = SOL_SOCKET;
	cmsg->cmsg_type = SCM_RIGHTS;
	cmsg->cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(cmsg), &fd, sizeof(int));
	if (sendmsg(sock, &msg, 0) != 1)
		fail("sendmsg(SCM_RIGHTS): %s", strerror(errno));
}

static int recv_fd(int sock)
{
	char cbuf[CMSG_SPACE(sizeof(int))], byte;
	struct iovec iov = { .iov_base = &byte, .iov_len = 1 };
	struct msghdr msg = {
		.msg_iov = &iov, .msg_iovlen = 1,
		.msg_control = cbuf, .msg_controllen = sizeof(cbuf),
	};
	struct cmsghdr *cmsg;
	int fd;

	if (recvmsg(sock, &msg, MSG_CMSG_CLOEXEC) != 1)
		fail("recvmsg(SCM_RIGHTS): %s", strerror(errno));
	cmsg = CMSG_FIRSTHDR(&msg);
	if (!cmsg || cmsg->cmsg_type != SCM_RIGHTS)
		fail("no descriptor came over the socket");
	memcpy(&fd, CMSG_DATA(cmsg), sizeof(int));
	return fd;
}

/* What the opener of status_fd_opened_after() does first. */
static void (*opener_prepares)(void);

static void open_and_send(int sock)
{
	int fd;

	opener_prepares();
	fd = open(MP3_STATUS_PATH, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		fail("opening %s: %s", MP3_STATUS_PATH, strerror(errno));
	send_fd(sock, fd);
}

int status_fd_opened_after(void (*prepare)(void), const char *opener)
{
	int sv[2], fd;

	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv))
		fail("socketpair: %s", strerror(errno));
	opener_prepares = prepare;
	in_child(open_and_send, sv[1], opener);
	fd = recv_fd(sv[0]);
	close(sv[0]);
	close(sv[1]);
	return fd;
}

int nobody_status_fd(void)
{
	return status_fd_opened_after(become_nobody, "the unprivileged opener");
}
