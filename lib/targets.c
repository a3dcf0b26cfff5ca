// SPDX-License-Identifier: GPL-2.0
#include "targets.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pidlist.h"

/* The PID file's line kind of each target kind. */
static const enum pidlist_kind line_kinds[] = {
	[TARGET_TREE] = PIDLIST_TREE, [TARGET_CGROUP] = PIDLIST_CGROUP,
	[TARGET_UNIT] = PIDLIST_UNIT,
};

static const char *const kind_words[] = {
	[TARGET_TREE] = "tree", [TARGET_CGROUP] = "cgroup", [TARGET_UNIT] = "unit",
};

#define NR_KINDS (sizeof(kind_words) / sizeof(kind_words[0]))

const char *target_kind_word(enum target_kind kind)
{
	return kind_words[kind];
}

/* 32-bit FNV-1a: the same number in every reader, whatever its build. */
static uint32_t fnv1a(uint32_t hash, const char *s)
{
	for (; *s; s++)
		hash = (hash ^ (unsigned char)*s) * 16777619U;
	return hash;
}

uint32_t target_number(enum target_kind kind, const char *name)
{
	if (kind == TARGET_TREE)
		return (uint32_t)strtoul(name, NULL, 10);
	/* The kind is hashed too: a unit and a cgroup of one name are two targets. */
	return TARGET_NAMED_FIRST |
	       (fnv1a(fnv1a(2166136261U, kind_words[kind]), name) & (TARGET_NAMED_FIRST - 1));
}

static int append_kind(struct target_list *list, enum target_kind kind,
		       struct pidlist_values *values)
{
	struct target *grown = reallocarray(list->targets, list->count + values->count,
					    sizeof(*grown));

	if (!grown && list->count + values->count)
		return -ENOMEM;
	list->targets = grown;
	for (size_t i = 0; i < values->count; i++) {
		list->targets[list->count++] = (struct target){
			.kind = kind, .name = values->values[i],
			.number = target_number(kind, values->values[i]),
		};
	}
	/* The names belong to the list now. */
	free(values->values);
	values->values = NULL;
	values->count = 0;
	return 0;
}

int target_list_read(const char *pid_file, struct target_list *list)
{
	int err = 0;

	*list = (struct target_list){ 0 };
	for (size_t kind = 0; kind < NR_KINDS && !err; kind++) {
		struct pidlist_values values;

		err = pidlist_read_values(pid_file, line_kinds[kind], &values, NULL, NULL);
		if (!err) {
			err = append_kind(list, kind, &values);
			pidlist_values_free(&values);
		}
	}
	if (err)
		target_list_free(list);
	return err;
}

void target_list_free(struct target_list *list)
{
	for (size_t i = 0; i < list->count; i++)
		free(list->targets[i].name);
	free(list->targets);
	*list = (struct target_list){ 0 };
}

const struct target *target_list_find(const struct target_list *list, uint32_t number)
{
	for (size_t i = 0; i < list->count; i++)
		if (list->targets[i].number == number)
			return &list->targets[i];
	return NULL;
}

const struct target *target_list_collision(const struct target_list *list,
					   enum target_kind kind, const char *name)
{
	const struct target *t = target_list_find(list, target_number(kind, name));

	return t && (t->kind != kind || strcmp(t->name, name)) ? t : NULL;
}

const char *target_label(const struct target_list *list, uint32_t number, char *buf,
			 size_t size)
{
	const struct target *t = target_list_find(list, number);

	if (t)
		snprintf(buf, size, "%s:%s", kind_words[t->kind], t->name);
	else
		snprintf(buf, size, "%s:%u", number < TARGET_NAMED_FIRST ? "tree" : "target",
			 (unsigned int)number);
	return buf;
}
