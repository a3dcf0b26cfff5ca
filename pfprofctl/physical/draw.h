/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pfprofctl physical --output: the paper's physical memory view drawn, the
 * machine's page frames in order, row after row, each cell a block of
 * frames coloured by the owner with most pages in it.
 */
#ifndef PFPROF_PHYSICALDRAW_H
#define PFPROF_PHYSICALDRAW_H

#include "scan.h"

/* Columns of the picture's grid of blocks: the command scans that many times rows. */
#define PHYSICAL_COLUMNS 512
#define PHYSICAL_ROWS 256

/*
 * Draws s into out, a .png or .svg, the owners in order (order[0] first;
 * the first PHYSICAL_COLOURS apart, the rest as one). 0, or -1 with the
 * failure said.
 */
#define PHYSICAL_COLOURS 9
int physical_draw(const char *out, const struct physical_scan *s, const uint32_t *order);

#endif /* PFPROF_PHYSICALDRAW_H */
