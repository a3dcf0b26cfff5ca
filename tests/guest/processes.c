// SPDX-License-Identifier: GPL-2.0
/*
 * What the guest tests share: processes to profile, made, told what to do
 * and read back (their /proc counters, names and mappings).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "clock.h"
#include "harness.h"

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

/* Whether the thread whose wchan file is @path sleeps (get_wchan(): off the run queue, 5.16). */
static bool asleep(const char *path)
{
	char wchan[64];
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return errno == ENOENT;	/* a thread gone since */
	n = read(fd, wchan, sizeof(wchan) - 1);
	close(fd);
	if (n <= 0)
		return false;
	wchan[n] = '\0';
	return strcmp(wchan, "0");
}

/* Whether every thread of @pid sleeps. */
static bool all_asleep(pid_t pid)
{
	char dir[64], path[PATH_MAX];
	struct dirent *d;
	bool all = true;
	DIR *tasks;

	snprintf(dir, sizeof(dir), "/proc/%d/task", (int)pid);
	tasks = opendir(dir);
	if (!tasks)
		fail("opendir %s: %s", dir, strerror(errno));
	while (all && (d = readdir(tasks))) {
		if (d->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s/wchan", dir, d->d_name);
		all = asleep(path);
	}
	closedir(tasks);
	return all;
}

void wait_blocked(pid_t pid, unsigned int timeout_ms)
{
	uint64_t deadline = now_ns() + (timeout_ms = scaled_ms(timeout_ms)) * 1000000ULL;

	while (!all_asleep(pid)) {
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

char *map_region_as(unsigned long pages, int sharing)
{
	char *p = mmap(NULL, pages * sysconf(_SC_PAGESIZE), PROT_READ | PROT_WRITE,
		       sharing | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED)
		_exit(3);
	return p;
}

char *map_region(unsigned long pages)
{
	return map_region_as(pages, MAP_PRIVATE);
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

char *region_touched_when_told(int go, int sharing)
{
	char *p;

	/* Before the mapping: no huge page, and no neighbour's huge page split in. */
	if (prctl(PR_SET_THP_DISABLE, 1, 0, 0, 0))
		_exit(6);
	p = map_region_as(REGION_PAGES, sharing);
	child_waits(go);
	touch_region(p, REGION_PAGES);
	return p;
}

void region_child(int go, int back)
{
	child_done(back, (uintptr_t)region_touched_when_told(go, MAP_PRIVATE));
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
