#!/bin/bash
# Host test of pfprofctl's bash completion against pfprofctl itself: it
# offers exactly the commands of `pfprofctl --help` (the command table), and
# for each command every option its --help lists; then what it offers for
# files (--out=FILE too), run's program and add's PIDs (issue 27).
# Prints "PASS name" / "FAIL name: reason" and "N passed, N failed".
here=$(cd "$(dirname "$0")" && pwd)
ctl=$here/../../pfprofctl/pfprofctl
# shellcheck source=pfprofctl/pfprofctl.bash-completion
. "$here/../../pfprofctl/pfprofctl.bash-completion"
# shellcheck source=tests/unit/result.sh
. "$here/result.sh"

# A list on one line, for messages.
words() {
	tr '\n' ' ' | sed 's/ $//'
}

# compopt works only under readline: here it writes its options to a file.
compopt_file=$(mktemp "${TMPDIR:-/tmp}/pfprof-compopt.XXXXXX")
trap 'rm -f "$compopt_file"' EXIT
compopt() {
	echo "$*" >> "$compopt_file"
}

# What the completion offers for the words given (the last one is
# completed), in its order; COMP_TYPE as in the environment.
complete_raw() {
	COMP_WORDS=(pfprofctl "$@")
	COMP_CWORD=$#
	COMPREPLY=()
	: > "$compopt_file"
	_pfprofctl
	[ ${#COMPREPLY[@]} -eq 0 ] || printf '%s\n' "${COMPREPLY[@]}"
}

complete_words() {
	complete_raw "$@" | sort -u
}

# The options a --help text lists: "-x, --long" and "    --long" lines.
help_options() {
	sed -n 's/^  \(-[a-zA-Z]\), \(--[a-z-]*\).*/\1\n\2/p; s/^      \(--[a-z-]*\).*/\1/p' |
		sort -u
}

table=$("$ctl" --help | sed -n '/^Commands:/,/^$/s/^  \([a-z]\+\) .*/\1/p' | sort)
[ -n "$table" ] || result commands_listed "pfprofctl --help lists no command"
offered=$(complete_words "")
result commands_complete "$([ "$offered" = "$table" ] ||
	echo "offered '$(words <<< "$offered")', pfprofctl has '$(words <<< "$table")'")"
result commands_after_config "$([ "$(complete_words -c /etc/pfprof/pfprofd.conf "")" = "$table" ] ||
	echo "not the commands after -c FILE")"

global=$("$ctl" --help | help_options)
missing=$(comm -23 <(echo "$global") <(complete_words -))
result global_options "${missing:+not offered: $(words <<< "$missing")}"

for command in $table; do
	options=$("$ctl" "$command" --help | help_options)
	if [ -z "$options" ]; then
		result "options_$command" "pfprofctl $command --help lists no option"
		continue
	fi
	missing=$(comm -23 <(echo "$options") <(complete_words "$command" -))
	result "options_$command" "${missing:+not offered: $(words <<< "$missing")}"
done

result del_offers_no_command "$(complete_words del "" | grep -x add)"
result plot_out_is_a_file "$(cd "$here" && complete_words plot --out test_comp | grep -vx test_completion.sh)"
operand=$(cd "$here" && complete_words plot test_comp)
result plot_operand_is_a_file "$([ "$operand" = test_completion.sh ] ||
	echo "offered '$(words <<< "$operand")' for plot test_comp")"
operand=$(cd "$here/../.." && complete_words plot -o x.png plot)
result plot_operand_is_a_directory "$([ "$operand" = plots ] ||
	echo "offered '$(words <<< "$operand")' for plot -o x.png plot")"


# Files: readline is told they are files (it quotes them, and ends a
# directory with '/', not a space); --out=FILE and --config=FILE complete
# the file, whether bash split the word at '=' or not.
result plot_out_filenames "$(cd "$here" && complete_words plot -o test_comp > /dev/null
	grep -qx -- '-o filenames' "$compopt_file" || echo "no compopt -o filenames")"
result plot_out_equals_split "$(cd "$here" && [ "$(complete_words plot --out = test_comp)" = \
	test_completion.sh ] || echo "not test_completion.sh after '--out' '='")"
result plot_out_equals_whole "$(cd "$here" && [ "$(complete_words plot --out=test_comp)" = \
	--out=test_completion.sh ] || echo "not --out=test_completion.sh")"
result config_equals "$(cd "$here" && [ "$(complete_words --config = test_comp)" = \
	test_completion.sh ] || echo "not test_completion.sh after '--config' '='")"
result config_equals_then_command "$([ "$(complete_words --config = /x "")" = "$table" ] ||
	echo "not the commands after --config=FILE")"

# run: programs, each once, and no shell keyword, builtin or function.
offered=$(complete_raw run "")
result run_programs_once "$(sort <<< "$offered" | uniq -d | head -n 3 | words)"
result run_no_keywords "$(grep -x -e 'then' -e 'if' -e _pfprofctl <<< "$offered" | words)"
type -P cd > /dev/null || result run_no_builtin "$(grep -x cd <<< "$offered")"
result run_path "$(cd "$here" && [ "$(complete_words run ./test_comp)" = ./test_completion.sh ] ||
	echo "not ./test_completion.sh")"
# After run's own options and after "--", the program still; after it, files.
for words in "--no-children" "--" "--no-children --"; do
	# shellcheck disable=SC2086 # the words, split
	offered=$(complete_words run $words bas)
	result "run_program_after_${words// /_}" "$(grep -qx bash <<< "$offered" ||
		echo "no bash in: $(head -n 5 <<< "$offered" | words)")"
done
offered=$(cd "$here" && complete_words run --no-children bash ./test_comp)
result run_files_after_program "$([ "$offered" = ./test_completion.sh ] ||
	echo "not ./test_completion.sh: $(words <<< "$offered")")"

# add: user processes with their names, no kernel thread (PF_KTHREAD in
# /proc/PID/stat's flags); menu completion (COMP_TYPE 37) inserts whole
# candidates: bare PIDs there.
kthread=$(awk '{ sub(/.*\) /, ""); if (int($7 / 2097152) % 2) { print FILENAME; exit } }' \
	/proc/[0-9]*/stat 2> /dev/null | cut -d/ -f3)
if [ -n "$kthread" ]; then
	result add_no_kernel_thread "$(COMP_TYPE=37 complete_words add "$kthread" | grep -x "$kthread")"
fi
result add_shows_names "$(complete_words add "" | grep -qxF "$$ ($(cat /proc/$$/comm))" ||
	echo "no '$$ ($(cat /proc/$$/comm))'")"
result add_menu_bare_pids "$(COMP_TYPE=37 complete_words add "" | grep -F '(' | head -n 3 | words)"

result_end
