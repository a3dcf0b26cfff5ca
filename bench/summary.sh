#!/bin/sh
# Usage: bench/summary.sh [--update]
#
# What README.md's Benchmarks section quotes of bench/results.md: the run's
# commit and its table of targets, so that the README never retypes a
# figure. Printed; with --update, written into README.md between its lines
# "<!-- bench-summary: bench/summary.sh writes this -->" and
# "<!-- end bench-summary -->" (bench/run.sh does so after each run).
# tests/unit/test_readme.sh checks that README.md holds what this prints.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
begin='<!-- bench-summary: bench/summary.sh writes this -->'
end='<!-- end bench-summary -->'

summary() {
	awk '
		/^Run of commit / { commit = $4 }
		/^## Targets$/ { in_targets = 1; next }
		in_targets && /^## / { exit }
		in_targets && !started && /^$/ { next }
		in_targets {
			if (!started)
				printf "From [bench/results.md](bench/results.md), the run of commit %s:\n\n", commit
			started = 1
			print
		}
	' "$top/bench/results.md"
}

# README.md with the lines between the markers replaced by stdin.
replace_block() {
	awk -v begin="$begin" -v end="$end" -v block="$1" '
		$0 == begin { print; while ((getline line < block) > 0) print line; skipping = 1; next }
		$0 == end { skipping = 0; found = 1 }
		!skipping { print }
		END { exit !found }
	' "$top/README.md"
}

if [ "${1:-}" = --update ]; then
	block=$(mktemp)
	trap 'rm -f "$block" "$block.readme"' EXIT
	summary > "$block"
	replace_block "$block" > "$block.readme" ||
		{ echo "bench/summary.sh: README.md has no bench-summary markers" >&2; exit 1; }
	cat "$block.readme" > "$top/README.md"
else
	summary
fi
