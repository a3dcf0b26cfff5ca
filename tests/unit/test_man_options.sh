#!/bin/bash
# Host test of pfprofctl(8) against pfprofctl itself (issue 44): for every
# command of `pfprofctl --help` and every option its --help lists, the
# man page's SYNOPSIS shows the option on one of that command's lines and
# its COMMANDS entry for the command describes the long option.
# Prints "PASS name" / "FAIL name: reason" and "N passed, N failed".
here=$(cd "$(dirname "$0")" && pwd)
top=$here/../..
ctl=$top/pfprofctl/pfprofctl
# shellcheck source=tests/unit/result.sh
. "$here/result.sh"
export LC_ALL=C.UTF-8 MANROFFSEQ='' MANWIDTH=200

page=$(man -E ascii -l "$top/pfprofctl/pfprofctl.8" 2>/dev/null | col -b)
commands=$("$ctl" --help | awk '/^Commands:/ { on = 1; next } /^$/ { on = 0 } on { print $1 }')

# The man page's section called $1, without its heading.
section() {
	awk -v name="$1" '/^[A-Z]/ { on = ($0 == name); next } on' <<<"$page"
}

synopsis=$(section SYNOPSIS)
entries=$(section COMMANDS)

# The COMMANDS entry of command $1: from its line to the next command's.
entry_of() {
	awk -v cmd="$1" -v all="$commands" '
		BEGIN { n = split(all, names, "\n"); for (i = 1; i <= n; i++) is_cmd[names[i]] = 1 }
		/^       [a-z]/ { word = $1; if (is_cmd[word]) on = (word == cmd) }
		on' <<<"$entries"
}

# The options of command $1, one "SHORT LONG" per line (SHORT "-" if none).
options_of() {
	"$ctl" "$1" --help | awk '/^Options:/ { on = 1; next } on && /^ +-/ {
		if ($1 ~ /^-.,$/) { short = substr($1, 1, 2); long = $2 } else { short = "-"; long = $1 }
		if (long != "--help") print short, long }'
}

for cmd in $commands; do
	lines=$(grep -E "^ *pfprofctl( \[-c file\])? $cmd( |$)" <<<"$synopsis")
	entry=$(entry_of "$cmd")
	result "${cmd}_has_synopsis" "$([ -n "$lines" ] || echo "no SYNOPSIS line for $cmd")"
	result "${cmd}_has_entry" "$([ -n "$entry" ] || echo "no COMMANDS entry for $cmd")"
	while read -r short long; do
		[ -n "$long" ] || continue
		why="" spellings=$long
		[ "$short" = - ] || spellings="$short|$long"
		if ! grep -qE -- "(^|[^a-z-])($spellings)([^a-z-]|$)" <<<"$lines"; then
			why="$short/$long not in the SYNOPSIS lines of $cmd"
		elif ! grep -qE -- "(^|[^a-z-])$long([^a-z-]|$)" <<<"$entry"; then
			why="$long not described in the COMMANDS entry of $cmd"
		fi
		result "${cmd}_${long#--}_in_man_page" "$why"
	done < <(options_of "$cmd")
done

result_end
