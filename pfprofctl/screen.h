/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The live views' terminal (pfprofctl top, where --watch): plain ANSI escapes
 * rather than ncurses. A view is a header and a table redrawn whole each
 * interval, which needs only "home", "clear to end of line/screen" and the
 * terminal's size; curses would add a library and its own terminal set-up
 * for no simpler code.
 */
#ifndef PFPROF_SCREEN_H
#define PFPROF_SCREEN_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>

/* The size the text is cut to; 0 rows or columns: no limit. */
struct screen_size {
	size_t rows, cols;
};

/* Set by SIGWINCH and by SIGINT or SIGTERM once screen_catch_signals() ran. */
extern volatile sig_atomic_t screen_resized, screen_interrupted;

void screen_catch_signals(void);

/* One line, cut to width columns (0: whole), then eol and a newline. */
__attribute__((format(printf, 3, 4)))
void screen_put_line(size_t width, const char *eol, const char *fmt, ...);

/* The terminal's size; 24 x 80 if unknown or smaller than min_rows. */
struct screen_size screen_terminal_size(size_t min_rows);

/*
 * Keys without echo nor Enter, the alternate screen without a cursor, as top
 * does. False if stdin is no terminal (nothing changed).
 */
bool screen_enter(void);
void screen_leave(void);

/* Draws: home, then print(ctx) with each line cleared to its end, the rest cleared. */
void screen_draw(void (*print)(void *ctx, struct screen_size size, const char *eol), void *ctx,
		 size_t min_rows);

/*
 * The live views' loop (where --watch, heatmap --watch): take(ctx) anew,
 * then print it as screen_draw() does, every delay_ms (on a resize at once,
 * without taking), until q or a signal. False if stdin or stdout is no
 * terminal (nothing changed); else *err is take()'s failure (-errno), which
 * ended the loop, for the caller to say once the terminal is restored (on
 * the alternate screen it would go with it).
 */
bool screen_watch(int (*take)(void *ctx),
		  void (*print)(void *ctx, struct screen_size size, const char *eol), void *ctx,
		  size_t min_rows, int delay_ms, int *err);

/* Waits ms, or until a key (if keys) or a signal; returns the key, 0 for none. */
int screen_wait_key(int ms, bool keys);

/* "-d 0.5": a delay of 0.05 s to 3600 s, in ms; -1 if not one. */
int screen_parse_delay(const char *arg);

#endif /* PFPROF_SCREEN_H */
