/* SPDX-License-Identifier: GPL-2.0 */
/* Reading pfprofctl's --json back in the guest tests (json-c). */
#ifndef PFPROF_GUEST_JSONOUT_H
#define PFPROF_GUEST_JSONOUT_H

#include <stdbool.h>

#include <json.h>

/* The one line of JSON in path, parsed (json_object_put() it); fails otherwise. */
struct json_object *json_read_line(const char *path);
/* o's member at a dotted path ("daemon.pid"); fails if it is missing. */
struct json_object *json_at(struct json_object *o, const char *path);
/* The same, a number or a boolean (fails if it is another type). */
double json_number_at(struct json_object *o, const char *path);
bool json_bool_at(struct json_object *o, const char *path);

#endif
