#!/bin/sh
# Host test of README.md's promises that scripts keep (issue 27): the
# Benchmarks section's table is bench/results.md's (bench/summary.sh), never
# retyped, and so is every benchmark figure README.md and docs/ quote
# (bench/figures.sh, issue 44); the blocks the install tests run as written
# are there.
# Prints "PASS name" / "FAIL name: reason" and "N passed, N failed".
here=$(cd "$(dirname "$0")" && pwd)
top=$here/../..
# shellcheck source=tests/unit/result.sh
. "$here/result.sh"

# The lines between the bench-summary markers are what bench/summary.sh prints.
bench_table_current() {
	"$top/bench/summary.sh" | awk -v readme="$top/README.md" '
		{ want[++n] = $0 }
		END {
			while ((getline line < readme) > 0) {
				if (line ~ /^<!-- end bench-summary -->$/) break
				if (inside) got[++m] = line
				if (line ~ /^<!-- bench-summary: /) inside = 1
			}
			if (m != n) exit 1
			for (i = 1; i <= n; i++) if (got[i] != want[i]) exit 1
		}'
}

result readme_bench_table_is_results "$(bench_table_current || echo "README.md's bench table is not bench/summary.sh's")"
# A figure changed by hand is found, and named with its place.
stale_figure_found() {
	doc=$(mktemp)
	grep -m1 'bench:commit -->' "$top/docs/design/faults.md" |
		sed 's/bench:commit -->[^<]*</bench:commit -->0000000</' > "$doc"
	out=$("$top/bench/figures.sh" "$doc" 2>&1) && status=0 || status=$?
	rm -f "$doc"
	[ "$status" = 1 ] && case $out in *":1: commit: 0000000, the results say "*) ;; *) false ;; esac
}

# Outside the figures, no page says which run it quotes: a run's commit
# typed by hand goes stale with the next run.
no_typed_run() {
	sed 's/<!-- bench:[a-z0-9_]* -->[^<]*<!-- \/bench -->//g' "$top/README.md" "$top"/docs/*.md "$top"/docs/design/*.md |
		grep -v '^From \[bench/results.md\](bench/results.md), the run of commit ' |
		grep -E 'run of (commit )?[0-9a-f]{7}' && return 1
	return 0
}

result docs_bench_figures_are_results "$("$top/bench/figures.sh" 2>&1)"
result docs_bench_figures_stale_found "$(stale_figure_found || echo "bench/figures.sh missed a figure changed by hand")"
result docs_no_typed_bench_run "$(no_typed_run | sed 's/^/typed by hand: /')"
# The Parts table names every unit, fragment and rule that systemd and udev get.
parts_missing() {
	for file in "$top"/systemd/* "$top"/udev/*; do
		grep '^| .systemd/., ' "$top/README.md" | grep -qF "\`${file##*/}\`" || echo "${file##*/}"
	done
}
result readme_parts_name_every_unit "$(parts_missing | sed 's/^/not in the Parts table: /')"
has_block() { "$top/tests/lib/readme-block.sh" "$1" "$top/README.md" > /dev/null; }

result readme_build_block "$(has_block build || echo "no 'tested: build' block")"
result readme_install_block "$(has_block install || echo "no 'tested: install' block")"
result_end
