/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pfprofctl --json: what a command shows, as JSON for scripts (json-c). One
 * object per line; the field names are pfprofctl(8)'s, under JSON OUTPUT.
 */
#ifndef PFPROF_CTLJSON_H
#define PFPROF_CTLJSON_H

#include <stdbool.h>
#include <stdint.h>

#include <json.h>

/* A new object; fails (exits, as json-c would leave it half made) without memory. */
struct json_object *ctl_json_object(void);
struct json_object *ctl_json_array(void);

/* Adds key: value to object, the value made here. */
void ctl_json_add_int(struct json_object *object, const char *key, int64_t value);
void ctl_json_add_uint(struct json_object *object, const char *key, uint64_t value);
/* Rounded to 3 decimals: rates and percentages are not exact past that. */
void ctl_json_add_double(struct json_object *object, const char *key, double value);
/* NULL: null. */
void ctl_json_add_string(struct json_object *object, const char *key, const char *value);
void ctl_json_add_bool(struct json_object *object, const char *key, bool value);
/* object takes value (json_object_put() with it). */
void ctl_json_add(struct json_object *object, const char *key, struct json_object *value);

/* Prints object on a line of its own and frees it; false if stdout failed. */
bool ctl_json_print(struct json_object *object);

#endif /* PFPROF_CTLJSON_H */
