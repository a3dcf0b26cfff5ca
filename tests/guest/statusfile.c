// SPDX-License-Identifier: GPL-2.0
/*
 * What the guest tests share: the module loaded and unloaded, /proc/mp3/status
 * written and listed, and expectations about errnos.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "harness.h"

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
