// SPDX-License-Identifier: GPL-2.0
#include "targets.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cgroupfs.h"
#include "targetsfile.h"

const char *target_kind_word(enum target_kind kind)
{
	return kind == TARGET_PID ? "pid" : targetsfile_words(kind);
}

/* 32-bit FNV-1a: the same number in every reader, whatever its build. */
static uint32_t fnv1a(uint32_t hash, const char *s)
{
	for (; *s; s++)
		hash = (hash ^ (unsigned char)*s) * 16777619U;
	return hash;
}

uint32_t target_number(enum target_kind kind, const char *name, const char *user)
{
	uint32_t hash;

	if (kind == TARGET_TREE)
		return (uint32_t)strtoul(name, NULL, 10);
	/* The kind is hashed too: a unit and a cgroup of one name are two targets. */
	hash = fnv1a(fnv1a(2166136261U, targetsfile_words(kind)), name);
	/* And a name's user: one user's postgres is not anyone's. */
	if (user)
		hash = fnv1a(fnv1a(hash, "@"), user);
	return TARGET_NAMED_FIRST | (hash & (TARGET_NAMED_FIRST - 1));
}

unsigned int target_line_options(const struct target *t)
{
	return t->options;
}

int target_list_read(const char *targets_file, struct target_list *list,
		     targetsfile_report_fn *report, void *ctx)
{
	unsigned int kinds = TARGETSFILE_KIND(TARGET_PID) | TARGETSFILE_KIND(TARGET_TREE) |
			     TARGETSFILE_KIND(TARGET_CGROUP) | TARGETSFILE_KIND(TARGET_UNIT) |
			     TARGETSFILE_KIND(TARGET_COMM);
	struct targetsfile_values values;
	int err = targetsfile_read_values(targets_file, kinds, &values, report, ctx);

	*list = (struct target_list){ 0 };
	if (err)
		return err;
	list->targets = calloc(values.count ? values.count : 1, sizeof(*list->targets));
	if (!list->targets) {
		targetsfile_values_free(&values);
		return -ENOMEM;
	}
	/* One value per kind: targetsfile_read_values() joined the lines of each. */
	for (size_t i = 0; i < values.count; i++) {
		enum target_kind kind = values.kinds[i];

		/* The names belong to the list now. */
		list->targets[list->count++] = (struct target){
			.kind = kind, .name = values.values[i], .user = values.users[i],
			.number = kind == TARGET_PID ? 0 :
				  target_number(kind, values.values[i], values.users[i]),
			.options = values.options[i] & TARGETSFILE_OPTS,
		};
		values.values[i] = values.users[i] = NULL;
	}
	targetsfile_values_free(&values);
	return 0;
}

int target_list_take_pids(struct target_list *list, struct pidlist *pids)
{
	size_t kept = 0;

	*pids = (struct pidlist){ 0 };
	pids->pids = calloc(list->count ? list->count : 1, sizeof(*pids->pids));
	pids->options = calloc(list->count ? list->count : 1, sizeof(*pids->options));
	if (!pids->pids || !pids->options) {
		pidlist_free(pids);
		return -ENOMEM;
	}
	for (size_t i = 0; i < list->count; i++) {
		struct target *t = &list->targets[i];

		if (t->kind != TARGET_PID) {
			list->targets[kept++] = *t;
			continue;
		}
		pids->pids[pids->count] = target_pid(t);
		pids->options[pids->count++] = target_line_options(t);
		free(t->name);
	}
	list->count = kept;
	return 0;
}

pid_t target_pid(const struct target *t)
{
	return t->kind == TARGET_PID || t->kind == TARGET_TREE ? (pid_t)atoi(t->name) : 0;
}

void target_list_free(struct target_list *list)
{
	for (size_t i = 0; i < list->count; i++) {
		free(list->targets[i].name);
		free(list->targets[i].user);
	}
	free(list->targets);
	*list = (struct target_list){ 0 };
}

const struct target *target_list_find(const struct target_list *list, uint32_t number)
{
	for (size_t i = 0; i < list->count; i++)
		if (list->targets[i].kind != TARGET_PID && list->targets[i].number == number)
			return &list->targets[i];
	return NULL;
}

const struct target *target_list_collision(const struct target_list *list,
					   enum target_kind kind, const char *name, const char *user)
{
	const struct target *t = target_list_find(list, target_number(kind, name, user));

	return t && (t->kind != kind || strcmp(t->name, name) ||
		     (t->user && user ? strcmp(t->user, user) : t->user != user)) ? t : NULL;
}

bool target_comm_valid(const char *name)
{
	size_t len = strlen(name);

	for (const char *c = name; *c; c++)
		if (!isgraph((unsigned char)*c) || *c == '#')
			return false;
	return len > 0 && len <= TARGET_COMM_MAX;
}

bool target_cgroup(const struct target *t, char *path, size_t size)
{
	if (t->kind != TARGET_UNIT && t->kind != TARGET_CGROUP)
		return false;
	if (t->kind == TARGET_UNIT)
		return !cgroupfs_find_unit(CGROUPFS_ROOT, t->name, path, size);
	return snprintf(path, size, "%s", t->name) < (int)size && !access(path, F_OK);
}

const char *target_format_label(const struct target *t, char *buf, size_t size)
{
	snprintf(buf, size, "%s:%s%s%s", target_kind_word(t->kind), t->name, t->user ? "@" : "",
		 t->user ? t->user : "");
	return buf;
}

const char *target_label(const struct target_list *list, uint32_t number, char *buf,
			 size_t size)
{
	const struct target *t = target_list_find(list, number);

	if (t)
		target_format_label(t, buf, size);
	else
		snprintf(buf, size, "%s:%u", number < TARGET_NAMED_FIRST ? "tree" : "target",
			 (unsigned int)number);
	return buf;
}
