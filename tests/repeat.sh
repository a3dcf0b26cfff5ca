#!/usr/bin/env bash
# tests/repeat.sh [-n RUNS] [TEST...]: the guest suite (tests/check.sh) RUNS
# times in a row (default 10) on each kernel of PFPROF_KERNELS, then one table:
# for every test and kernel, how many runs it failed, its slowest and median
# time, and its first failure's reason; a guest that did not finish counts
# as a failure of the test it was in. A flaky test shows here as a failure
# in some runs, a test near its timeout as a slowest time close to it.
# Logs: $BUILD/repeat/run-N/ (BUILD defaults to ./build). Exits non-zero if
# any run failed anything.
#   tests/repeat.sh --table BUILD...: the table alone, of runs made before
#   (each BUILD a build directory of tests/check.sh or make check, with
#   guest-KERNEL/log/console.log, or the results.tsv of an earlier
#   repeat.sh, kept to join runs of one commit made on several machines),
#   the runs of whole `make check`s among them. The number of runs is each
#   test's own count.
#   tests/repeat.sh --results BUILD...: their results as results.tsv holds
#   them (kernel, test, PASS/FAIL/HUNG, seconds, reason), to keep.
set -uo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
runs=10

# results BUILD...: one line per guest test result of each build directory:
# kernel, test, PASS/FAIL/HUNG, seconds, reason.
results() {
	local dir console kernel
	for dir in "$@"; do
		if [[ -f $dir ]]; then
			cat "$dir"
			continue
		fi
		for console in "$dir"/guest-*/log/console.log; do
			[[ -f $console ]] || continue
			kernel=${console#"$dir/guest-"}
			kernel=${kernel%%/*}
			tr -d '\r' < "$console" | awk -v kernel="$kernel" '
				/^START / { current = $2; next }
				/^(PASS|FAIL) [^ ]+ \([0-9.]+ s\)/ {
					took = $3; sub(/^\(/, "", took)
					reason = $0; sub(/^[^:]*(: |$)/, "", reason)
					printf "%s\t%s\t%s\t%s\t%s\n", kernel, $2, $1, took, reason
					if ($2 == current) current = ""
				}
				END { if (current != "") printf "%s\t%s\tHUNG\t-\tthe guest stopped in it\n", kernel, current }'
		done
	done
}

# table WHAT < results: a row per kernel and test, over WHAT.
table() {
	echo "Guest tests over $1 (kernel, test, failed runs of its runs, slowest and median s, first failure):"
	sort -t$'\t' -k1,1 -k2,2 -k4,4g | awk -F'\t' '
		function flush() {
			if (key == "") return
			printf "  %-18s %-32s %2d/%-2d %7.1f %7.1f  %s\n", kernel, test, failed, n,
				slowest, times[int((n + 1) / 2)], first
		}
		$1 "\t" $2 != key {
			flush(); key = $1 "\t" $2; kernel = $1; test = $2
			n = 0; failed = 0; slowest = 0; first = ""
		}
		{
			n++; times[n] = $4 + 0
			if ($4 != "-" && $4 + 0 > slowest) slowest = $4 + 0
			if ($3 != "PASS") { failed++; if (first == "") first = $5 }
		}
		END { flush() }'
}

if [[ ${1:-} == --results ]]; then
	shift
	(($#)) || { echo "usage: $0 --results BUILD..." >&2; exit 64; }
	results "$@"
	exit 0
fi
if [[ ${1:-} == --table ]]; then
	shift
	(($#)) || { echo "usage: $0 --table BUILD..." >&2; exit 64; }
	results "$@" | table "the runs given"
	exit 0
fi
if [[ ${1:-} == -n ]]; then
	[[ ${2:-} =~ ^[1-9][0-9]*$ ]] || { echo "usage: $0 [-n RUNS] [TEST...]" >&2; exit 64; }
	runs=$2
	shift 2
fi
out=${BUILD:-$top/build}/repeat
rm -rf "$out"
mkdir -p "$out"

status=0
for ((i = 1; i <= runs; i++)); do
	start=$SECONDS
	BUILD=$out/run-$i "$top/tests/check.sh" "$@" > "$out/run-$i.log" 2>&1 || status=1
	echo "repeat: run $i of $runs: $(tail -n 1 "$out/run-$i.log") ($((SECONDS - start)) s)" >&2
done

dirs=()
for ((i = 1; i <= runs; i++)); do
	dirs+=("$out/run-$i")
done
results "${dirs[@]}" > "$out/results.tsv"
table "$runs runs" < "$out/results.tsv"
echo "Failures other than a guest test's (builds, host unit tests, kernel logs):"
grep -h '^FAIL ' "$out"/run-*.log | grep -Ev '^FAIL \[[^]]*\] [a-z0-9_]+ \([0-9.]+ s\)' |
	sort | uniq -c || echo "  none"
exit "$status"
