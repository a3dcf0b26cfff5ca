/* SPDX-License-Identifier: GPL-2.0 */
/* Ending standard output so that a write error (full disk, closed pipe) is seen. */
#ifndef PFPROF_OUTPUT_H
#define PFPROF_OUTPUT_H

/* Says "<prog>: cannot write standard output: <errno's text>"; EXIT_FAILURE. */
int stdout_failed(const char *prog);

/* fclose(stdout): EXIT_SUCCESS, or stdout_failed(prog). */
int finish_stdout(const char *prog);

#endif /* PFPROF_OUTPUT_H */
