#!/bin/sh
# Usage: bench/figures.sh [--update] [FILE...]
#
# A figure README.md or a page of docs/ takes from a benchmark is written
#     <!-- bench:KEY -->VALUE<!-- /bench -->
# and KEY names a line of the "figures" comment blocks that bench/report.sh
# and bench/damon-report.sh end bench/results.md and bench/damon-results.md
# with. Without --update, prints each figure whose value is not the
# results' (FILE:LINE: KEY: VALUE, the results say WANTED) or whose key no
# results file has (on stderr), and exits 1 if there is one; with --update, writes the
# results' values into the files (bench/run.sh and bench/damon.sh do after
# each run). FILEs default to README.md, docs/*.md and docs/design/*.md.
# tests/unit/test_bench_figures.sh runs the check.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
update=0
if [ "${1:-}" = --update ]; then
	update=1
	shift
fi
[ $# -gt 0 ] || set -- "$top/README.md" "$top"/docs/*.md "$top"/docs/design/*.md

# The figures, "KEY VALUE" a line, from both results files.
figures=$(mktemp)
trap 'rm -f "$figures" "$figures.file"' EXIT
awk '/^<!-- figures: / { inside = 1; next } /^-->$/ { inside = 0 } inside' \
	"$top/bench/results.md" "$top/bench/damon-results.md" > "$figures"

status=0
for file; do
	awk -v figures="$figures" -v file="${file#"$top"/}" -v update="$update" '
		BEGIN {
			while ((getline line < figures) > 0) {
				split(line, f, " ")
				value[f[1]] = substr(line, length(f[1]) + 2)
			}
			open = "<!-- bench:"; close_tag = "<!-- /bench -->"
		}
		{
			out = ""; rest = $0
			while (match(rest, /<!-- bench:[a-z0-9_]+ -->[^<]*<!-- \/bench -->/)) {
				figure = substr(rest, RSTART, RLENGTH)
				head = index(figure, " -->")
				key = substr(figure, length(open) + 1, head - length(open) - 1)
				quoted = substr(figure, head + 4, length(figure) - head - 3 - length(close_tag))
				if (!(key in value)) {
					printf "%s:%d: %s: no such figure in bench/results.md or bench/damon-results.md\n",
						file, NR, key > "/dev/stderr"
					bad = 1
				} else if (quoted != value[key]) {
					if (!update)
						printf "%s:%d: %s: %s, the results say %s\n", file, NR, key, quoted,
							value[key] > "/dev/stderr"
					changed = 1
					quoted = value[key]
				}
				out = out substr(rest, 1, RSTART - 1) open key " -->" quoted close_tag
				rest = substr(rest, RSTART + RLENGTH)
			}
			print out rest
		}
		END { exit bad ? 2 : changed ? 1 : 0 }
	' "$file" > "$figures.file" || case $? in
		1) if [ "$update" = 1 ]; then cat "$figures.file" > "$file"; else status=1; fi ;;
		*) status=1 ;;
	esac
done
exit "$status"
