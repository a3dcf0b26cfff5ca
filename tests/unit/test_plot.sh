#!/bin/sh
# Host test of `pfprofctl plot` with the real gnuplot script: a log laid out
# in the documented format becomes a PNG, with a panel of per-process curves
# when there is a per-process log; no logs is an error with a hint.
# Prints "PASS name" / "FAIL name: reason" and "N passed, N failed".
here=$(cd "$(dirname "$0")" && pwd)
ctl=$here/../../pfprofctl/pfprofctl
export PFPROF_PLOT_SCRIPT="$here/../../plots/pfprof-log.gp"
dir=$(mktemp -d "${TMPDIR:-/tmp}/pfprof-plot-test.XXXXXX")
trap 'rm -rf "$dir"' EXIT
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

is_png() {
	[ "$(od -An -tx1 -N8 "$1" 2>/dev/null | tr -d ' \n')" = 89504e470d0a1a0a ]
}

mkdir "$dir/log"
printf 'log_dir = %s/log\n' "$dir" > "$dir/pfprofd.conf"

# No logs yet: exit 1 and a hint.
"$ctl" -c "$dir/pfprofd.conf" plot --out "$dir/none.png" 2> "$dir/err"
check no_logs_fails [ $? -eq 1 ]
check no_logs_hint grep -q 'hint: pfprofd writes them' "$dir/err"

# Two rotated files and the current one, 20 samples each.
for f in pfprof.log.2 pfprof.log.1 pfprof.log; do
	awk -v base="$n" 'BEGIN {
		print "# pfprof log format 1"
		print "# load_id 00000000deadbeef hz 250 period_ns 50000000"
		for (i = base; i < base + 20; i++)
			printf "%d %.6f %.6f %d %d %d %.3f 1 %d %d %.3f\n", i,
				1763890000 + i * 0.05, 100 + i * 0.05, 1000 + i * 12,
				30, i % 7 == 0, 12.5, 30 * (i + 1), 0, 12.5 * (i + 1)
	}' > "$dir/log/$f"
	n=$((${n:-0} + 20))
done
"$ctl" -c "$dir/pfprofd.conf" plot --out "$dir/out.png" > "$dir/out" 2>&1
check plot_succeeds [ $? -eq 0 ]
check plot_says_what grep -q 'from 3 log files' "$dir/out"
check plot_is_png is_png "$dir/out.png"
check plot_not_empty [ "$(wc -c < "$dir/out.png")" -gt 10000 ]

# PNG height, from its IHDR chunk.
png_height() {
	od -An -tu1 -j20 -N4 "$1" | awk '{ print $1 * 16777216 + $2 * 65536 + $3 * 256 + $4 }'
}
check plot_two_panels_without_processes [ "$(png_height "$dir/out.png")" -eq 800 ]

# The per-process logs, one of each format (2 adds the target column): their
# processes get a third panel. Each process is in one file only, so both are read.
awk 'BEGIN {
	print "# pfprof per-process log format 1"
	for (i = 40; i < 60; i++)
		printf "%d\t%.6f\t%d\t%s\t%d\t%d\t%.3f\n", i, 1763890000 + i * 0.05, 101,
			"work3", 20, i % 7 == 0, 6.0
}' > "$dir/log/pfprof-procs.log.1"
awk 'BEGIN {
	print "# pfprof per-process log format 2"
	for (i = 40; i < 60; i++)
		printf "%d\t%.6f\t%d\t%s\t%d\t%d\t%.3f\t%d\n", i, 1763890000 + i * 0.05, 102,
			"work 4", 10, 0, 6.5, 1073741831
}' > "$dir/log/pfprof-procs.log"
"$ctl" -c "$dir/pfprofd.conf" plot --out "$dir/procs.png" > "$dir/out" 2>&1
check plot_with_processes_succeeds [ $? -eq 0 ]
check plot_says_two_processes grep -q 'from 3 log files, 2 processes' "$dir/out"
check plot_three_panels [ "$(png_height "$dir/procs.png")" -eq 1200 ]

"$ctl" -c "$dir/pfprofd.conf" plot extra 2> /dev/null
check plot_rejects_arguments [ $? -eq 2 ]

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
