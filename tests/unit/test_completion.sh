#!/bin/bash
# Host test of pfprofctl's bash completion against pfprofctl itself: it
# offers exactly the commands of `pfprofctl --help` (the command table), and
# for each command every option its --help lists.
# Prints "PASS name" / "FAIL name: reason" and "N passed, N failed".
here=$(cd "$(dirname "$0")" && pwd)
ctl=$here/../../pfprofctl/pfprofctl
# shellcheck source=pfprofctl/pfprofctl.bash-completion
. "$here/../../pfprofctl/pfprofctl.bash-completion"
passed=0
failed=0

result() {	# name, then empty for a pass or the reason
	if [ -z "$2" ]; then
		echo "PASS $1"
		passed=$((passed + 1))
	else
		echo "FAIL $1: $2"
		failed=$((failed + 1))
	fi
}

# A list on one line, for messages.
words() {
	tr '\n' ' ' | sed 's/ $//'
}

# What the completion offers for the words given (the last one is completed).
complete_words() {
	COMP_WORDS=(pfprofctl "$@")
	COMP_CWORD=$#
	COMPREPLY=()
	_pfprofctl
	printf '%s\n' "${COMPREPLY[@]}" | sort -u
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

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
