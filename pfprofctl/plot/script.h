/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Where pfprofctl plot's gnuplot script is: installed, or beside a pfprofctl
 * run from where it was built.
 */
#ifndef PFPROF_PLOTSCRIPT_H
#define PFPROF_PLOTSCRIPT_H

#include <stddef.h>

#define PLOTSCRIPT_NAME "pfprof-log.gp"
/* The installed one; the Makefile gives its DATADIR's. */
#ifndef PFPROF_PLOT_SCRIPT
#define PFPROF_PLOT_SCRIPT "/usr/local/share/pfprof/" PLOTSCRIPT_NAME
#endif

/*
 * PFPROF_PLOT_SCRIPT if set, else the first that exists of pfprof-log.gp
 * beside the running pfprofctl, ../plots/ from it (the source tree) and the
 * installed one: in buf, or NULL with the places tried reported.
 */
const char *plot_script_find(char *buf, size_t size);

#endif /* PFPROF_PLOTSCRIPT_H */
