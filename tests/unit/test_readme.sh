#!/bin/sh
# Host test of README.md's promises that scripts keep (issue 27): the
# Benchmarks section's table is bench/results.md's (bench/summary.sh), never
# retyped; the blocks the install tests run as written are there.
# Prints "PASS name" / "FAIL name: reason" and "N passed, N failed".
here=$(cd "$(dirname "$0")" && pwd)
top=$here/../..
passed=0
failed=0

check() {	# name, then a command that must succeed
	name=$1
	shift
	if "$@"; then
		echo "PASS $name"
		passed=$((passed + 1))
	else
		echo "FAIL $name: $*"
		failed=$((failed + 1))
	fi
}

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

check readme_bench_table_is_results bench_table_current
has_block() { "$top/tests/lib/readme-block.sh" "$1" "$top/README.md" > /dev/null; }

check readme_build_block has_block build
check readme_install_block has_block install
echo "$passed passed, $failed failed"
