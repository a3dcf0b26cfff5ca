#!/bin/bash
# Host test of the man pages' form (issue 27): each page renders without a
# warning from man and groff, and no line is wider than 80 columns, neither
# in the source nor as man shows it at MANWIDTH=80 (in ASCII, where a
# character is a byte and a column).
# Prints "PASS name" / "FAIL name: reason" and "N passed, N failed".
here=$(cd "$(dirname "$0")" && pwd)
top=$here/../..
# shellcheck source=tests/unit/result.sh
. "$here/result.sh"
export LC_ALL=C.UTF-8 MANROFFSEQ='' MANWIDTH=80

for page in "$top"/daemon/*.[58] "$top"/pfprofctl/*.8 "$top"/tools/*.1; do
	name=${page##*/}
	warnings=$(man --warnings -E UTF-8 -l -Tutf8 "$page" 2>&1 >/dev/null)
	result "${name}_no_warnings" "${warnings:+$(head -n 3 <<<"$warnings")}"
	long=$(awk 'length($0) > 80 { print FNR; exit }' "$page")
	result "${name}_source_80_columns" "${long:+line $long is longer}"
	long=$(man -E ascii -l "$page" 2>/dev/null | awk 'length($0) > 80 { print; exit }')
	result "${name}_rendered_80_columns" "${long:+wider: $long}"
done

result_end
