// SPDX-License-Identifier: GPL-2.0
/* pfprofctl: a command's line parsed against its table entry, and its --help. */
#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ctl.h"

#define HELP_KEY 'h'
/* pfprofctl's -c/--config, taken after the command as before it. */
#define CONFIG_KEY 'c'
/* getopt_long() values of long-only options: their index, past any character. */
#define LONG_ONLY_BASE 256

static size_t nr_options(const struct ctl_command *cmd)
{
	size_t n = 0;

	while (n < CTL_MAX_OPTIONS && cmd->options[n].name)
		n++;
	return n;
}

static int option_key(const struct ctl_command *cmd, size_t i)
{
	return cmd->options[i].short_name ? cmd->options[i].short_name : LONG_ONLY_BASE + (int)i;
}

static void print_option(const struct ctl_option *o)
{
	const char *value = o->metavar ? o->metavar : "";
	char left[64];

	if (o->short_name)
		snprintf(left, sizeof(left), "-%c, --%s %s", o->short_name, o->name, value);
	else
		snprintf(left, sizeof(left), "    --%s %s", o->name, value);
	printf("  %-20s %s\n", left, o->help);
}

/* "Usage: pfprofctl CMD [options] A", and "       pfprofctl CMD [options] B" for A | B. */
static void print_usage(const struct ctl_command *cmd)
{
	const char *options = nr_options(cmd) ? " [options]" : "", *alt = cmd->operands;
	const char *lead = "Usage:";

	do {
		const char *bar = strstr(alt, " | ");
		int len = bar ? (int)(bar - alt) : (int)strlen(alt);

		printf("%s pfprofctl %s%s%s%.*s\n", lead, cmd->name, options, len ? " " : "", len,
		       alt);
		lead = "      ";
		alt = bar ? bar + 3 : NULL;
	} while (alt);
}

static void print_help(const struct ctl_command *cmd)
{
	print_usage(cmd);
	printf("%s.\n", cmd->summary);
	if (cmd->details)
		printf("%s", cmd->details);
	printf("\nOptions:\n");
	for (size_t i = 0; i < nr_options(cmd); i++)
		print_option(&cmd->options[i]);
	printf("  %-20s %s\n", "-h, --help", "this help");
}

/*
 * Stores the value of option i and how it was typed, "--name" (typed_long)
 * or "-x" (key); false (after saying why, naming it as typed) if it is not
 * valid.
 */
static bool store_option(const struct ctl_command *cmd, size_t i, bool typed_long, int key,
			 const char *arg, struct ctl_call *call)
{
	const struct ctl_option *o = &cmd->options[i];
	char *typed = call->option[i].typed, *end;

	if (typed_long)
		snprintf(typed, sizeof(call->option[i].typed), "--%s", o->name);
	else
		snprintf(typed, sizeof(call->option[i].typed), "-%c", key);
	call->option[i].set = true;
	call->option[i].string = arg;
	if (o->type == CTL_STRING || o->type == CTL_OPERAND_KIND)
		return true;
	errno = 0;
	call->option[i].number = strtoull(arg, &end, 10);
	if (*arg >= '0' && *arg <= '9' && !*end && !errno &&
	    (o->type == CTL_NUMBER || call->option[i].number > 0))
		return true;
	ctl_usage_error(cmd, "%s wants a number%s, not '%s'", typed,
			o->type == CTL_COUNT ? " from 1" : "", arg);
	return false;
}

/* getopt_long()'s view of the command's options, --help and --config included. */
static void getopt_table(const struct ctl_command *cmd, struct option *longopts,
			 char *shortopts)
{
	size_t n = nr_options(cmd), s = 0;

	/* '+': getopt stops at each operand, which parse_words() moves aside; ':' a missing value. */
	shortopts[s++] = '+';
	shortopts[s++] = ':';
	shortopts[s++] = HELP_KEY;
	shortopts[s++] = CONFIG_KEY;
	shortopts[s++] = ':';
	for (size_t i = 0; i < n; i++) {
		const struct ctl_option *o = &cmd->options[i];
		int has_arg = o->metavar ? required_argument : no_argument;

		if (o->type == CTL_OPERAND_KIND)
			has_arg = optional_argument;
		longopts[i] = (struct option){ o->name, has_arg, NULL, option_key(cmd, i) };
		if (o->short_name) {
			shortopts[s++] = o->short_name;
			if (o->metavar)
				shortopts[s++] = ':';
		}
	}
	shortopts[s] = '\0';
	longopts[n] = (struct option){ "help", no_argument, NULL, HELP_KEY };
	longopts[n + 1] = (struct option){ "config", required_argument, NULL, CONFIG_KEY };
	longopts[n + 2] = (struct option){ 0 };
}

/* Whether word is a negative number: an operand (a bad one), not options. */
static bool is_negative_number(const char *word)
{
	return word[0] == '-' && isdigit((unsigned char)word[1]);
}

/* The index of cmd's option getopt_long() returns as key, or nr_options(cmd) for none. */
static size_t option_of_key(const struct ctl_command *cmd, int key)
{
	size_t i;

	for (i = 0; i < nr_options(cmd) && option_key(cmd, i) != key; i++)
		;
	return i;
}

/*
 * Whether typed (an unknown "-x" or "--name") may mean --option: a long
 * name starting with the short one's letter, or --json for the output
 * formats other tools take (-o, --output, --format).
 */
static bool may_mean(const char *typed, const char *option)
{
	const char *name = typed + strspn(typed, "-");
	size_t len = strcspn(name, "=");
	bool short_form = typed[1] != '-';

	if (!strcmp(option, "json") && (short_form ? typed[1] == 'o' :
	    !strncmp(name, "output", len) || !strncmp(name, "format", len)))
		return true;
	return short_form && option[0] == typed[1];
}

/* "--a or --b": the long options of cmd (and every command's) that match(typed, name). */
static size_t long_names(const struct ctl_command *cmd, const char *typed,
			 bool (*match)(const char *typed, const char *name), char *out,
			 size_t size)
{
	static const char *const everyones[] = { "help", "config" };
	size_t len = 0, n = 0;

	out[0] = '\0';
	for (size_t i = 0; i < nr_options(cmd) + 2 && len < size; i++) {
		const char *name = i < nr_options(cmd) ? cmd->options[i].name :
			everyones[i - nr_options(cmd)];

		if (!match(typed, name))
			continue;
		len += (size_t)snprintf(out + len, size - len, "%s--%s", n ? " or " : "", name);
		n++;
	}
	return n;
}

/* Whether the long option typed ("--co", "--co=x") is a prefix of name. */
static bool abbreviates(const char *typed, const char *name)
{
	const char *word = typed + 2;

	return typed[1] == '-' && !strncmp(name, word, strcspn(word, "="));
}

/*
 * An option cmd does not have, as typed: said, with those it may have meant;
 * or a long one abbreviated so that it names several.
 */
static void unknown_option(const struct ctl_command *cmd, const char *typed)
{
	int typed_len = (int)strcspn(typed, "=");
	char meant[128];

	if (long_names(cmd, typed, abbreviates, meant, sizeof(meant)) > 1)
		ctl_usage_error(cmd, "ambiguous option '%.*s': %s", typed_len, typed, meant);
	else if (long_names(cmd, typed, may_mean, meant, sizeof(meant)))
		ctl_usage_error(cmd, "unknown option '%.*s'; did you mean %s?", typed_len, typed,
				meant);
	else
		ctl_usage_error(cmd, "unknown option '%.*s'", typed_len, typed);
}

/*
 * What getopt_long() refused, said once, as the mistake it is: an option
 * cmd does not have, a value missing, or a value given to a flag. @word is
 * the word getopt_long() last passed: the option's if long, or if it ended
 * its word; an unknown letter within a word (-xb) is optopt alone.
 */
static void refused_option(const struct ctl_command *cmd, int key, const char *word)
{
	size_t i = option_of_key(cmd, optopt);
	bool long_word = word[0] == '-' && word[1] == '-';
	char letter[3] = { '-', (char)optopt, '\0' };

	if (key == ':')
		ctl_usage_error(cmd, "%s wants %s", long_word ? word : letter,
				optopt == CONFIG_KEY ? "a file" : i < nr_options(cmd) ?
				cmd->options[i].metavar : "a value");
	else if (optopt && i < nr_options(cmd))
		ctl_usage_error(cmd, "--%s takes no value: '%s'", cmd->options[i].name, word);
	else if (optopt == HELP_KEY)
		ctl_usage_error(cmd, "--help takes no value: '%s'", word);
	else if (optopt)
		unknown_option(cmd, letter);
	else
		unknown_option(cmd, word);
}

/*
 * Takes the option getopt_long() returned as key; false (said) if it is none
 * of cmd's or its value is not valid. --unit=NAME and its like give NAME as
 * an operand, into argv's slot *nr (consumed already).
 */
static bool take_option(const struct ctl_command *cmd, int key, int long_index, char **argv,
			int *nr, struct ctl_call *call)
{
	size_t i = option_of_key(cmd, key);

	if (key == ':' || key == '?' || i == nr_options(cmd)) {
		refused_option(cmd, key, argv[optind - 1]);
		return false;
	}
	if (cmd->options[i].type == CTL_OPERAND_KIND && optarg)
		argv[1 + (*nr)++] = optarg;
	return store_option(cmd, i, long_index >= 0, key, optarg, call);
}

/*
 * Options anywhere among the operands, until "--" (or, for a command whose
 * operands are a command line, until the first operand). The operands are
 * gathered in order at the front of argv, from argv[1]: each is moved only
 * into a slot getopt_long() has passed already.
 */
static int parse_words(const struct ctl_command *cmd, int argc, char **argv,
		       struct ctl_call *call)
{
	struct option longopts[CTL_MAX_OPTIONS + 3];
	char shortopts[2 * CTL_MAX_OPTIONS + 6];
	int nr = 0;

	getopt_table(cmd, longopts, shortopts);
	optind = 0;	/* glibc's fresh start: it forgets a word it read half of */
	opterr = 0;
	while (optind < argc) {
		int before = optind ? optind : 1, long_index = -1, key = -1;

		if (before < argc && !is_negative_number(argv[before]))
			key = getopt_long(argc, argv, shortopts, longopts, &long_index);
		if (key == HELP_KEY) {
			print_help(cmd);
			return PFPROF_EXIT_OK;
		}
		if (key == CONFIG_KEY) {
			call->config_path = optarg;
			continue;
		}
		if (key != -1) {
			if (!take_option(cmd, key, long_index, argv, &nr, call))
				return PFPROF_EXIT_USAGE;
			continue;
		}
		if (optind == before + 1 || before == argc)	/* "--", or the end */
			break;
		optind = before + 1;
		argv[1 + nr++] = argv[before];
		if (cmd->options_end_at_operand)
			break;
	}
	for (int rest = optind ? optind : 1; rest < argc; rest++)
		argv[1 + nr++] = argv[rest];
	argv[1 + nr] = NULL;	/* run's operands are an argv of their own */
	call->operands = argv + 1;
	call->nr_operands = nr;
	return -1;
}

int ctl_parse_call(const struct ctl_command *cmd, int argc, char **argv, struct ctl_call *call)
{
	int status;

	memset(call, 0, sizeof(*call));
	status = parse_words(cmd, argc, argv, call);
	if (status >= 0)
		return status;
	if (call->nr_operands < cmd->min_operands)
		return ctl_usage_error(cmd, "%s", cmd->missing_operands);
	if (cmd->max_operands >= 0 && call->nr_operands > cmd->max_operands)
		return ctl_usage_error(cmd, "unexpected argument '%s'",
				       call->operands[cmd->max_operands]);
	return -1;
}
