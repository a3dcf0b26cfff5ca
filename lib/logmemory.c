// SPDX-License-Identifier: GPL-2.0
/* The memory log's lines (logformat.h): a target's cgroup's memory at one moment. */
#include "logformat.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "logfields.h"

#define MEMORY_FIELDS (3 + CGMEM_FIELDS)

static const char memory_header_format[] =
	LOGFORMAT_MEMORY_MAGIC "1\n"
	"# created %" PRIu64 "\n"
	LOGFORMAT_MEMORY_COLUMNS "\n"
	"# units: tab-separated; one line a second per unit or cgroup target added with pages;"
	" seq = the last sample pfprofd had read (as in " LOGFORMAT_FILE "); wall_time_s ="
	" when its cgroup's files were read, seconds since 1970-01-01 UTC; target = the"
	" target's number (as in " LOGFORMAT_PAGES_FILE "); current_bytes, max_bytes,"
	" high_bytes, swap_bytes = memory.current, memory.max, memory.high,"
	" memory.swap.current (max = no limit); pressure_some_us, pressure_full_us ="
	" memory.pressure's totals, us; refault_anon, refault_file = memory.stat's"
	" workingset_refault_anon and _file, pages faulted back since the cgroup was made;"
	" - = unknown\n";

int logformat_memory_header(char *buf, size_t size, uint64_t created_s)
{
	return snprintf(buf, size, memory_header_format, created_s);
}

/* "\t<value>", "\tmax" or "\t-" of each field of m at the end of buf. */
static int format_values(char *buf, size_t size, const struct cgroup_memory *m)
{
	size_t len = 0;

	for (int f = 0; f < CGMEM_FIELDS && len < size; f++) {
		int n;

		if (!cgroup_memory_has(m, f))
			n = snprintf(buf + len, size - len, "\t-");
		else if (m->value[f] == CGROUP_MEMORY_NO_LIMIT)
			n = snprintf(buf + len, size - len, "\tmax");
		else
			n = snprintf(buf + len, size - len, "\t%" PRIu64, m->value[f]);
		if (n < 0)
			return n;
		len += (size_t)n;
	}
	return (int)len;
}

int logformat_memory(char *buf, size_t size, const struct log_memory *lm)
{
	uint64_t wall_us = logfields_us(lm->wall_ns);
	int head = snprintf(buf, size, "%" PRIu64 "\t%" PRIu64 ".%06" PRIu64 "\t%" PRIu32,
			    lm->seq, wall_us / 1000000, wall_us % 1000000, lm->target);
	int values, tail;

	if (head < 0 || (size_t)head >= size)
		return head;
	values = format_values(buf + head, size - (size_t)head, &lm->m);
	if (values < 0 || (size_t)(head + values) >= size)
		return values < 0 ? values : head + values;
	tail = snprintf(buf + head + values, size - (size_t)(head + values), "\n");
	return tail < 0 ? tail : head + values + tail;
}

/* A value field: a number, "max" where f may have no limit, "-" unknown. */
static bool parse_value(const char *text, enum cgroup_memory_field f, struct cgroup_memory *m)
{
	if (!strcmp(text, "-"))
		return true;
	if (!strcmp(text, "max")) {
		if (!cgroup_memory_is_limit(f))
			return false;
		m->value[f] = CGROUP_MEMORY_NO_LIMIT;
	} else if (!logfields_u64(text, 10, &m->value[f]) ||
		   m->value[f] == CGROUP_MEMORY_NO_LIMIT) {
		return false;
	}
	m->known |= 1U << f;
	return true;
}

bool logformat_parse_memory(char *line, struct log_memory *lm)
{
	char *field[MEMORY_FIELDS];
	uint64_t target;

	if (logfields_split(line, field, MEMORY_FIELDS) != MEMORY_FIELDS ||
	    !logfields_u64(field[0], 10, &lm->seq) || !logfields_wall(field[1], &lm->wall_ns) ||
	    !logfields_u64(field[2], 10, &target) || !target || target > UINT32_MAX)
		return false;
	lm->target = (uint32_t)target;
	lm->m.known = 0;
	for (int f = 0; f < CGMEM_FIELDS; f++)
		if (!parse_value(field[3 + f], f, &lm->m))
			return false;
	return true;
}
