// SPDX-License-Identifier: GPL-2.0
/* Reading pfprofctl's --json back: one line, one object, members by path. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "jsonout.h"

struct json_object *json_read_line(const char *path)
{
	FILE *f = fopen(path, "re");
	char *text = NULL, *more = NULL;
	size_t size = 0, more_size = 0;
	struct json_object *o;

	expect(f && getline(&text, &size, f) > 0, "%s: %s", path, strerror(errno));
	expect(getline(&more, &more_size, f) < 0, "%s: a second line: %s", path, more);
	fclose(f);
	o = json_tokener_parse(text);
	expect(o, "%s: not JSON: %s", path, text);
	free(text);
	free(more);
	return o;
}

struct json_object *json_at(struct json_object *o, const char *path)
{
	char key[64];
	const char *at = path;

	while (*at) {
		size_t len = strcspn(at, ".");
		struct json_object *member;

		snprintf(key, sizeof(key), "%.*s", (int)len, at);
		expect(json_object_object_get_ex(o, key, &member), "no %s in %s", path,
		       json_object_to_json_string(o));
		o = member;
		at += len + (at[len] == '.');
	}
	return o;
}

double json_number_at(struct json_object *o, const char *path)
{
	struct json_object *v = json_at(o, path);

	expect(json_object_is_type(v, json_type_int) || json_object_is_type(v, json_type_double),
	       "%s is not a number: %s", path, json_object_to_json_string(v));
	return json_object_get_double(v);
}

bool json_bool_at(struct json_object *o, const char *path)
{
	struct json_object *v = json_at(o, path);

	expect(json_object_is_type(v, json_type_boolean), "%s is not true or false: %s", path,
	       json_object_to_json_string(v));
	return json_object_get_boolean(v);
}
