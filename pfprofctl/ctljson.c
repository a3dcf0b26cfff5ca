// SPDX-License-Identifier: GPL-2.0
/* pfprofctl --json: json-c's objects, built and printed one per line. */
#include <math.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "ctl.h"
#include "ctljson.h"

static struct json_object *made(struct json_object *o)
{
	if (!o) {
		ctl_error(-ENOMEM, "making the JSON output");
		exit(PFPROF_EXIT_FAILED);
	}
	return o;
}

struct json_object *ctl_json_object(void)
{
	return made(json_object_new_object());
}

struct json_object *ctl_json_array(void)
{
	return made(json_object_new_array());
}

void ctl_json_add(struct json_object *object, const char *key, struct json_object *value)
{
	/* json_object_array_add() for an array: key is NULL there. */
	if (json_object_is_type(object, json_type_array))
		json_object_array_add(object, value);
	else
		json_object_object_add(object, key, value);
}

void ctl_json_add_int(struct json_object *object, const char *key, int64_t value)
{
	ctl_json_add(object, key, made(json_object_new_int64(value)));
}

void ctl_json_add_uint(struct json_object *object, const char *key, uint64_t value)
{
	ctl_json_add(object, key, made(json_object_new_uint64(value)));
}

void ctl_json_add_double(struct json_object *object, const char *key, double value)
{
	char text[64];

	if (!isfinite(value)) {
		ctl_json_add(object, key, NULL);
		return;
	}
	value = round(value * 1000) / 1000;
	snprintf(text, sizeof(text), "%.3f", value);
	ctl_json_add(object, key, made(json_object_new_double_s(value, text)));
}

void ctl_json_add_string(struct json_object *object, const char *key, const char *value)
{
	ctl_json_add(object, key, value ? made(json_object_new_string(value)) : NULL);
}

void ctl_json_add_bool(struct json_object *object, const char *key, bool value)
{
	ctl_json_add(object, key, made(json_object_new_boolean(value)));
}

bool ctl_json_print(struct json_object *object)
{
	const char *text = json_object_to_json_string_ext(object, JSON_C_TO_STRING_PLAIN |
							  JSON_C_TO_STRING_NOSLASHESCAPE);
	bool ok = text && puts(text) >= 0;

	json_object_put(object);
	return ok;
}
