/* SPDX-License-Identifier: GPL-2.0 */
/* pfprofctl top --json. */
#ifndef PFPROF_TOPJSON_H
#define PFPROF_TOPJSON_H

#include <stdbool.h>

#include "targets.h"
#include "data.h"

/*
 * Prints the grouped snapshot (top_group()) as one line of JSON, its targets
 * named from targets; false if stdout failed.
 */
bool top_print_json(const struct top_snapshot *snap, const struct target_list *targets);

#endif /* PFPROF_TOPJSON_H */
