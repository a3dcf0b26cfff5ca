// SPDX-License-Identifier: GPL-2.0
#include "output.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int stdout_failed(const char *prog)
{
	fprintf(stderr, "%s: cannot write standard output: %s\n", prog, strerror(errno));
	return EXIT_FAILURE;
}

/* stdout may be a full disk or a closed pipe, and fclose's flush is where
 * buffered output meets it. */
int finish_stdout(const char *prog)
{
	return fclose(stdout) == 0 ? EXIT_SUCCESS : stdout_failed(prog);
}
