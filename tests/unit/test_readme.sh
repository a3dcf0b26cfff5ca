#!/bin/sh
# Host test of README.md's promises that scripts keep (issue 27): every
# benchmark figure README.md and docs/ quote is bench/results.md's
# (bench/figures.sh, issue 44), never retyped; the blocks the install tests
# run as written are there; README.md stays a map (issue 59): at most 12 KB,
# the two commands near its top, every page of docs/ in its table.
# Prints "PASS name" / "FAIL name: reason" and "N passed, N failed".
here=$(cd "$(dirname "$0")" && pwd)
top=$here/../..
# shellcheck source=tests/unit/result.sh
. "$here/result.sh"

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
size=$(wc -c < "$top/README.md")
result readme_at_most_12_kb "$([ "$size" -le 12288 ] || echo "README.md is $size bytes")"
# make demo and make check within its first 20 lines.
result readme_two_commands_first "$(head -n 20 "$top/README.md" | grep -q '^    make demo' &&
	head -n 20 "$top/README.md" | grep -q '^    make check' || echo "not in its first 20 lines")"
docs_missing() {
	for page in "$top"/docs/*.md "$top"/docs/design/*.md; do
		grep -qF "](${page#"$top/"})" "$top/README.md" || echo "${page#"$top/"}"
	done
}
result readme_links_every_doc "$(docs_missing | sed 's/^/not linked from README.md: /')"
result readme_install_block "$(has_block install || echo "no 'tested: install' block")"
result_end
