/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The targets file (the configuration's pid_file, for its first kind of
 * line): what pfprofd keeps registered, one per line: a PID (that
 * process), "maps PID" (that process, its faults placed in its mappings:
 * "R <pid> maps"), "tree PID" (the process and every process it starts), "cgroup
 * PATH" (a cgroup v2 directory), "unit NAME" (a systemd unit) or "comm
 * NAME" (every process of that command name); a target's line may start with
 * "maps" too ("maps unit NAME": its processes' faults placed, "M <target>");
 * '#' comments and blank lines allowed. Reading it: targetsread.h;
 * changing it: targetsedit.h.
 */
#ifndef PFPROF_TARGETSLINE_H
#define PFPROF_TARGETSLINE_H

#include <stdbool.h>
#include <stddef.h>

/*
 * The kinds of lines; the words before the value are "", "tree", "cgroup",
 * "unit", "comm", "maps", then "maps" and one of the targets' words.
 */
enum targetsfile_kind { TARGETSFILE_PID, TARGETSFILE_TREE, TARGETSFILE_CGROUP, TARGETSFILE_UNIT,
			TARGETSFILE_COMM, TARGETSFILE_MAPS, TARGETSFILE_MAPS_TREE,
			TARGETSFILE_MAPS_CGROUP, TARGETSFILE_MAPS_UNIT, TARGETSFILE_MAPS_COMM };

/* A value is one word (no white space, no '#') shorter than this. */
#define TARGETSFILE_VALUE_MAX 4096

/* targetsfile_read_values()'s kinds: a mask of these. */
#define TARGETSFILE_KIND(kind) (1u << (kind))

/* targetsline_parse()'s answer for a blank or comment line, and for a malformed one. */
#define TARGETSLINE_BLANK (-1)
#define TARGETSLINE_BAD (-2)

/*
 * A line is blank, a comment, or a kind's word (none for a PID), white space
 * and a value, then optional white space and comment. Its kind, the value in
 * value (TARGETSFILE_VALUE_MAX bytes), a PID's in canonical form; or
 * TARGETSLINE_BLANK or TARGETSLINE_BAD. line[len] must be '\0' (getline()
 * ensures it) so that strtol() stops in the buffer.
 */
int targetsline_parse(const char *line, size_t len, char *value);

/*
 * A value a line can hold: one word, no longer than TARGETSFILE_VALUE_MAX - 1,
 * a PID's in canonical form (as targetsline_parse() will read it back).
 */
bool targetsline_valid_value(enum targetsfile_kind kind, const char *value);

/* The words before a line's value: "" for a PID's, "tree", "maps unit"... */
const char *targetsline_words(enum targetsfile_kind kind);

/* The kind of the lines that are plain's with "maps" before; plain itself if none. */
enum targetsfile_kind targetsline_maps_kind(enum targetsfile_kind plain);

#endif /* PFPROF_TARGETSLINE_H */
