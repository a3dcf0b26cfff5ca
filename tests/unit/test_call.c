// SPDX-License-Identifier: GPL-2.0
/*
 * pfprofctl's command lines (call.c), walked from its own command table:
 * every option of every command, typed short, long and --name=value, before
 * and after the operands, is taken with its value and leaves the operands
 * in their order; "--" ends the options; run's operands are a command line.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ctl.h"
#include "unit.h"

#define MAX_WORDS 16

/* ctl_parse_call() with its usage errors kept off the test's output. */
static int parse(const struct ctl_command *cmd, int argc, char **argv, struct ctl_call *call)
{
	int saved = dup(STDERR_FILENO), null = open("/dev/null", O_WRONLY), status;

	expect(saved >= 0 && null >= 0, "dup or /dev/null: %s", strerror(errno));
	dup2(null, STDERR_FILENO);
	close(null);
	status = ctl_parse_call(cmd, argc, argv, call);
	fflush(stderr);
	dup2(saved, STDERR_FILENO);
	close(saved);
	return status;
}

/* A command line under construction; argv[0] is the command's name. */
struct words {
	char *argv[MAX_WORDS + 1];
	int argc;
};

static void add_word(struct words *w, const char *word)
{
	expect(w->argc < MAX_WORDS, "more than %d words", MAX_WORDS);
	w->argv[w->argc++] = (char *)word;
	w->argv[w->argc] = NULL;
}

/* The spellings of one option as a user types it; its value is value. */
enum form { FORM_SHORT, FORM_LONG, FORM_LONG_EQUALS, NR_FORMS };

static const char *const form_names[] = { "-x VALUE", "--name VALUE", "--name=VALUE" };

/*
 * Appends option o in form; false if o has no such spelling (no short
 * name; a plain flag takes no =value). *extra is the operand it gives, if any.
 */
static bool add_option(struct words *w, const struct ctl_option *o, enum form form,
		       const char *value, char *buf, size_t size, const char **extra)
{
	bool has_value = o->metavar;

	*extra = NULL;
	switch (form) {
	case FORM_SHORT:
		if (!o->short_name)
			return false;
		snprintf(buf, size, "-%c", o->short_name);
		add_word(w, buf);
		break;
	case FORM_LONG:
		snprintf(buf, size, "--%s", o->name);
		add_word(w, buf);
		break;
	case FORM_LONG_EQUALS:
		if (!has_value && o->type != CTL_OPERAND_KIND)
			return false;
		snprintf(buf, size, "--%s=%s", o->name, value);
		add_word(w, buf);
		if (!has_value)
			*extra = value;
		return true;
	default:
		return false;
	}
	if (has_value)
		add_word(w, value);
	return true;
}

/* The operands a command needs, at least one where it takes any. */
static int operands_wanted(const struct ctl_command *cmd)
{
	if (cmd->min_operands > 0)
		return cmd->min_operands;
	return cmd->max_operands ? 1 : 0;
}

static void expect_operands(const char *line, const struct ctl_call *call, char *const *want,
			    int nr_want)
{
	expect(call->nr_operands == nr_want, "%s: %d operands, want %d", line,
	       call->nr_operands, nr_want);
	expect(!call->operands[nr_want], "%s: no NULL after the operands", line);
	for (int i = 0; i < nr_want; i++)
		expect(!strcmp(call->operands[i], want[i]), "%s: operand %d is '%s', want '%s'",
		       line, i, call->operands[i], want[i]);
}

static void join(const struct words *w, char *line, size_t size)
{
	size_t used = 0;

	line[0] = '\0';
	for (int i = 0; i < w->argc && used < size; i++)
		used += snprintf(line + used, size - used, "%s%s", i ? " " : "", w->argv[i]);
}

/*
 * One option in one form, before the operands (after: false) or after them:
 * parsed as set, with its value, the operands kept in order.
 */
static void check_option(const struct ctl_command *cmd, size_t i, enum form form, bool after)
{
	const struct ctl_option *o = &cmd->options[i];
	const char *value = o->type == CTL_STRING ? "v7" : "7", *extra;
	char *want[MAX_WORDS], buf[64], line[256];
	int nr_operands = operands_wanted(cmd), nr_want = 0;
	bool ends_options = after && cmd->options_end_at_operand;
	struct words w = { 0 };
	struct ctl_call call;
	int status;

	/* --unit=NAME is an operand itself: within the command's most. */
	if (form == FORM_LONG_EQUALS && o->type == CTL_OPERAND_KIND &&
	    nr_operands == cmd->max_operands)
		nr_operands--;

	add_word(&w, cmd->name);
	for (int k = 0; after && k < nr_operands; k++)
		add_word(&w, want[nr_want++] = "1");
	if (!add_option(&w, o, form, o->type == CTL_OPERAND_KIND ? "extra" : value, buf,
			sizeof(buf), &extra))
		return;
	if (ends_options)	/* the option is the command's own: an operand */
		for (int k = 1 + nr_operands; k < w.argc; k++)
			want[nr_want++] = w.argv[k];
	else if (extra)
		want[nr_want++] = (char *)extra;
	for (int k = 0; !after && k < nr_operands; k++)
		add_word(&w, want[nr_want++] = "1");
	join(&w, line, sizeof(line));
	status = parse(cmd, w.argc, w.argv, &call);
	expect(status == -1, "%s (%s): exit status %d", line, form_names[form], status);
	expect(call.option[i].set != ends_options, "%s: --%s %s", line, o->name,
	       ends_options ? "taken from the command's own words" : "not set");
	if (o->metavar && !ends_options) {
		expect(call.option[i].string && !strcmp(call.option[i].string, value),
		       "%s: --%s's value '%s', want '%s'", line, o->name,
		       call.option[i].string ? call.option[i].string : "(none)", value);
		expect(o->type == CTL_STRING || call.option[i].number == 7,
		       "%s: --%s's number %llu, want 7", line, o->name,
		       (unsigned long long)call.option[i].number);
	}
	expect_operands(line, &call, want, nr_want);
}

/* Every option of every command, in every form and both positions. */
static void test_every_option_anywhere(void)
{
	int checked = 0;

	for (size_t c = 0; ctl_commands[c]; c++) {
		const struct ctl_command *cmd = ctl_commands[c];

		for (size_t i = 0; i < CTL_MAX_OPTIONS && cmd->options[i].name; i++)
			for (int form = 0; form < NR_FORMS; form++)
				for (int after = 0; after <= (cmd->max_operands != 0); after++) {
					check_option(cmd, i, form, after);
					checked++;
				}
	}
	expect(checked > 100, "only %d command lines checked", checked);
}

/* The index of cmd's option called name, or fails. */
static size_t option_index(const struct ctl_command *cmd, const char *name)
{
	for (size_t i = 0; i < CTL_MAX_OPTIONS && cmd->options[i].name; i++)
		if (!strcmp(cmd->options[i].name, name))
			return i;
	expect(false, "%s has no --%s", cmd->name, name);
	return 0;
}

/* After "--", words that look like options are operands. */
static void test_double_dash_ends_options(void)
{
	char *argv[] = { "add", "--comm", "--", "--maps", "-t", NULL };
	char *want[] = { "--maps", "-t" };
	struct ctl_call call;

	expect(parse(&ctl_add_command, 5, argv, &call) == -1, "add: not parsed");
	expect_operands("add --comm -- --maps -t", &call, want, 2);
	expect(call.option[option_index(&ctl_add_command, "comm")].set, "add: --comm not set");
	expect(!call.option[option_index(&ctl_add_command, "maps")].set, "add: --maps set");
	expect(!call.option[option_index(&ctl_add_command, "tree")].set, "add: -t set");
}

/* A negative number is a (bad) operand, not an unknown option. */
static void test_negative_number_is_an_operand(void)
{
	char *argv[] = { "del", "3", "-5", NULL };
	char *want[] = { "3", "-5" };
	struct ctl_call call;

	expect(parse(&ctl_del_command, 3, argv, &call) == -1, "del 3 -5: not parsed");
	expect_operands("del 3 -5", &call, want, 2);
}

/* An unknown option is refused wherever it is, as a usage error. */
static void test_unknown_option_after_operand(void)
{
	char *argv[] = { "where", "1", "--bogus", NULL };
	struct ctl_call call;

	expect(parse(&ctl_where_command, 3, argv, &call) == PFPROF_EXIT_USAGE,
	       "where 1 --bogus: not a usage error");
}

/* -c FILE and --config=FILE after every command, as before it: pfprofctl's configuration. */
static void test_config_after_every_command(void)
{
	for (size_t c = 0; ctl_commands[c]; c++) {
		const struct ctl_command *cmd = ctl_commands[c];

		for (int form = 0; form < 2; form++) {
			struct words w = { 0 };
			struct ctl_call call;
			char line[256];
			char *want[2] = { "1", "2" };
			/* As many as it needs (page: two), one if it takes some. */
			int nr_want = operands_wanted(cmd);

			add_word(&w, cmd->name);
			if (form) {
				add_word(&w, "--config=/etc/x.conf");
			} else {
				add_word(&w, "-c");
				add_word(&w, "/etc/x.conf");
			}
			for (int i = 0; i < nr_want; i++)
				add_word(&w, want[i]);
			join(&w, line, sizeof(line));
			expect(parse(cmd, w.argc, w.argv, &call) == -1, "%s: not parsed", line);
			expect(call.config_path && !strcmp(call.config_path, "/etc/x.conf"),
			       "%s: configuration '%s'", line,
			       call.config_path ? call.config_path : "(none)");
			expect_operands(line, &call, want, nr_want);
		}
	}
}

/*
 * A letter means one long option in every command that has it, and none
 * takes -c or -h (every command's). The one exception, -n, is a count of
 * what is printed in both, as in top(1) and journalctl(1).
 */
static void test_one_letter_one_meaning(void)
{
	const char *meaning[128] = { 0 };

	for (size_t c = 0; ctl_commands[c]; c++) {
		const struct ctl_command *cmd = ctl_commands[c];

		for (size_t i = 0; i < CTL_MAX_OPTIONS && cmd->options[i].name; i++) {
			const struct ctl_option *o = &cmd->options[i];
			unsigned char letter = (unsigned char)o->short_name;

			if (!letter || letter == 'n')
				continue;
			expect(letter != 'c' && letter != 'h', "%s: -%c is every command's", cmd->name,
			       letter);
			expect(!meaning[letter] || !strcmp(meaning[letter], o->name),
			       "-%c is --%s in %s, --%s elsewhere", letter, o->name, cmd->name,
			       meaning[letter]);
			meaning[letter] = o->name;
		}
	}
}

UNIT_TESTS(
	UNIT_TEST(every_option_anywhere),
	UNIT_TEST(config_after_every_command),
	UNIT_TEST(one_letter_one_meaning),
	UNIT_TEST(double_dash_ends_options),
	UNIT_TEST(negative_number_is_an_operand),
	UNIT_TEST(unknown_option_after_operand),
);
