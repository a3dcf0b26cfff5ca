#!/bin/sh
# Host test of README.md's promises that scripts keep (issue 27): the
# Benchmarks section's table is bench/results.md's (bench/summary.sh), never
# retyped; the blocks the install tests run as written are there.
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
has_block() { "$top/tests/lib/readme-block.sh" "$1" "$top/README.md" > /dev/null; }

result readme_build_block "$(has_block build || echo "no 'tested: build' block")"
result readme_install_block "$(has_block install || echo "no 'tested: install' block")"
result_end
