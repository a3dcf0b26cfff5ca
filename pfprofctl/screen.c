// SPDX-License-Identifier: GPL-2.0
#include "screen.h"

#include <errno.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/ioctl.h>
#include <termios.h>
#include <unistd.h>

#include "printable.h"

volatile sig_atomic_t screen_resized, screen_interrupted;

static struct termios saved_termios;

static void on_resize(int sig)
{
	(void)sig;
	screen_resized = 1;
}

static void on_interrupt(int sig)
{
	(void)sig;
	screen_interrupted = 1;
}

static void catch(int sig, void (*handler)(int))
{
	/*
	 * SA_RESTART, or a resize during a write to the terminal fails it with
	 * EINTR; poll() returns on the signal all the same (signal(7)), so the
	 * loop still redraws or stops at once.
	 */
	struct sigaction sa = { .sa_handler = handler, .sa_flags = SA_RESTART };

	sigemptyset(&sa.sa_mask);
	sigaction(sig, &sa, NULL);
}

void screen_catch_signals(void)
{
	catch(SIGINT, on_interrupt);
	catch(SIGTERM, on_interrupt);
	catch(SIGWINCH, on_resize);
}

void screen_put_line(size_t width, const char *eol, const char *fmt, ...)
{
	char line[1024];
	va_list ap;
	int len;

	va_start(ap, fmt);
	len = vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	if (len < 0)
		return;
	if (width && (size_t)len > width && width < sizeof(line))
		line[width] = '\0';
	/* Names of processes and files are in it: no escape sequence of theirs is drawn. */
	printable(line);
	printf("%s%s\n", line, eol);
}

struct screen_size screen_terminal_size(size_t min_rows)
{
	struct winsize ws;

	if (ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) || ws.ws_row < min_rows || !ws.ws_col)
		return (struct screen_size){ 24, 80 };
	return (struct screen_size){ ws.ws_row, ws.ws_col };
}

bool screen_enter(void)
{
	struct termios raw;

	if (tcgetattr(STDIN_FILENO, &saved_termios))
		return false;
	raw = saved_termios;
	raw.c_lflag &= ~(ICANON | ECHO);
	raw.c_cc[VMIN] = 0;
	raw.c_cc[VTIME] = 0;
	tcsetattr(STDIN_FILENO, TCSANOW, &raw);
	printf("\033[?1049h\033[?25l");
	return true;
}

void screen_leave(void)
{
	printf("\033[?25h\033[?1049l");
	fflush(stdout);
	tcsetattr(STDIN_FILENO, TCSANOW, &saved_termios);
}

void screen_draw(void (*print)(void *ctx, struct screen_size size, const char *eol), void *ctx,
		 size_t min_rows)
{
	printf("\033[H");
	print(ctx, screen_terminal_size(min_rows), "\033[K");
	printf("\033[J");
	fflush(stdout);
}

bool screen_watch(int (*take)(void *ctx),
		  void (*print)(void *ctx, struct screen_size size, const char *eol), void *ctx,
		  size_t min_rows, int delay_ms, int *err)
{
	int key = 0;

	*err = 0;
	if (!isatty(STDOUT_FILENO) || !screen_enter())
		return false;
	screen_catch_signals();
	while (!screen_interrupted && key != 'q') {
		if (!screen_resized && (*err = take(ctx)))
			break;
		screen_resized = 0;
		screen_draw(print, ctx, min_rows);
		key = screen_wait_key(delay_ms, true);
	}
	screen_leave();
	return true;
}

int screen_wait_key(int ms, bool keys)
{
	struct pollfd pfd = { .fd = STDIN_FILENO, .events = POLLIN };
	char c;

	if (poll(&pfd, keys ? 1 : 0, ms) > 0 && read(STDIN_FILENO, &c, 1) == 1)
		return c;
	return 0;
}

int screen_parse_delay(const char *arg)
{
	char *end;
	double s;

	errno = 0;
	s = strtod(arg, &end);
	if (errno || end == arg || *end || s < 0.05 || s > 3600)
		return -1;
	return (int)(s * 1000 + 0.5);
}
