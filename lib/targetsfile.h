/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The targets file (the configuration's targets_file, once called pid_file
 * after its first kind of line): what pfprofd keeps registered, one per
 * line: a PID (that process), "tree PID" (the process and every process it
 * starts), "cgroup PATH" (a cgroup v2 directory), "unit NAME" (a systemd
 * unit) or "comm NAME" (every process of that command name). Any line may
 * start with options, "maps" (its processes' faults placed in their
 * mappings: "R <pid> maps", "M <target>") and "latency" (their faults timed:
 * "R <pid> latency", "L <target>"), or both ("maps latency unit NAME"); a
 * "comm" line may also start with "user=USER" (a user name or uid): only
 * that user's processes of the name ("P <target> <uid> <comm>"), where a
 * pfprofd before it reports the line as bad and follows nothing.
 * '#' comments and blank lines allowed. Its lines' syntax and reading it
 * here; changing it: targetsedit.h.
 */
#ifndef PFPROF_TARGETSFILE_H
#define PFPROF_TARGETSFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <sys/types.h>

/*
 * What a line names, a target of pfprofd's: a process, a tree, a cgroup, a
 * unit, a command name. The word before the value is "", "tree", "cgroup",
 * "unit", "comm".
 */
enum target_kind { TARGET_PID, TARGET_TREE, TARGET_CGROUP, TARGET_UNIT, TARGET_COMM };

/*
 * A line's options, the words before its kind's: flags, each an opt-in
 * measurement of the module, whose commands take the same words ("R <pid>
 * maps latency"). Options are combined, not kinds of their own, so that
 * another one adds a word, not a kind per kind it may precede.
 */
#define TARGETSFILE_OPT_MAPS	0x1u	/* "maps": the faults placed in their mappings */
#define TARGETSFILE_OPT_LATENCY	0x2u	/* "latency": how long the faults took */
#define TARGETSFILE_OPT_PAGES	0x4u	/* "pages": which pages went to swap and back */
#define TARGETSFILE_OPTS	(TARGETSFILE_OPT_MAPS | TARGETSFILE_OPT_LATENCY | TARGETSFILE_OPT_PAGES)
/* Options there are, one flag each from 0x1 up. */
#define TARGETSFILE_NR_OPTS	3

/* A value is one word (no white space, no '#') shorter than this. */
#define TARGETSFILE_VALUE_MAX 4096
/* A "user=" word's user is one word shorter than this: a login name (useradd: 32 bytes) or uid. */
#define TARGETSFILE_USER_MAX 33

/* targetsfile_read_values()'s kinds: a mask of these. */
#define TARGETSFILE_KIND(kind) (1u << (kind))

/* targetsfile_parse_line()'s answer for a blank or comment line, and for a malformed one. */
#define TARGETSFILE_LINE_BLANK (-1)
#define TARGETSFILE_LINE_BAD (-2)

/*
 * A line is blank, a comment, or options' words (in any order), a kind's
 * word (none for a PID), white space and a value, then optional white space
 * and comment. Its kind, its options in *options, the value in value
 * (TARGETSFILE_VALUE_MAX bytes), a PID's in canonical form, a "comm"
 * line's user in user (TARGETSFILE_USER_MAX bytes, "" for none); or
 * TARGETSFILE_LINE_BLANK or TARGETSFILE_LINE_BAD. line[len] must be '\0'
 * (getline() ensures it) so that strtol() stops in the buffer.
 */
int targetsfile_parse_line(const char *line, size_t len, char *value, unsigned int *options,
			   char *user);

/* Whether user can be a "user=" word's: 1 to TARGETSFILE_USER_MAX - 1 bytes, one word. */
bool targetsfile_valid_user(const char *user);

/*
 * A value a line can hold: one word, no longer than TARGETSFILE_VALUE_MAX - 1,
 * a PID's in canonical form (as targetsfile_parse_line() will read it back).
 */
bool targetsfile_valid_value(enum target_kind kind, const char *value);

/* The word of a kind's lines: "" for a PID's, "tree", "unit"... */
const char *targetsfile_words(enum target_kind kind);

/* The words of options, as a line and the module's "R" take them: "", "maps", "maps latency"... */
const char *targetsfile_option_words(unsigned int options);

/*
 * @names[i] of each option (flag 1 << i) in @options, in the order of the
 * flags, as a list ("a", "a and b", "a, b and c") in @buf; "" for none.
 */
const char *targetsfile_options_list(unsigned int options,
				     const char *const names[TARGETSFILE_NR_OPTS], char *buf,
				     size_t size);

/* PIDs: the module's listing, or the targets file's processes (target_list_take_pids()). */
struct pidlist {
	pid_t *pids;
	size_t count;
	unsigned int *options;	/* the targets file's: each PID's lines' options; else NULL */
};

struct targetsfile_values {
	char **values;
	char **users;			/* of each "comm" value's line: NULL, anyone's */
	enum target_kind *kinds;	/* of each value's line */
	unsigned int *options;		/* of each value's lines, together */
	size_t count;
};

/* Called for each line that is none of the kinds, a comment nor blank. */
typedef void targetsfile_report_fn(void *ctx, const char *file, unsigned int line,
				   const char *message);

void pidlist_free(struct pidlist *list);

/*
 * The values of the lines of the kinds in the mask kinds (TARGETSFILE_KIND()), in
 * file order, PIDs as decimal text, in one read; a value on several lines
 * of its kind is listed once, with the options of all of them (a line
 * without "maps" does not take it from one with). Bad lines go to report
 * if not NULL. 0 or -errno.
 */
int targetsfile_read_values(const char *path, unsigned int kinds, struct targetsfile_values *list,
			    targetsfile_report_fn *report, void *ctx);
void targetsfile_values_free(struct targetsfile_values *list);


/* The index in list of the line of kind with that value and user (NULL: none), or -1. */
ssize_t targetsfile_values_find(const struct targetsfile_values *list, enum target_kind kind,
				const char *value, const char *user);

/* After getline() returned -1: 0 at the end of f, or the error (-errno) that stopped it. */
int targetsfile_read_error(FILE *f);

#endif /* PFPROF_TARGETSFILE_H */
