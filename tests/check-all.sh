#!/usr/bin/env bash
# `make check`: static analysis and sanitizers (static.sh), the module/daemon
# suite on every supported kernel (check.sh), the packages in Debian 12 and
# Debian 13 systemd guests (check-packages.sh) and the guest suite again on
# the debug kernel (check-debug.sh), whatever the others gave. First
# tests/warm-cache.sh fetches what all of them need (build root, kernels,
# kernel source), each step timed.
#
# Then two lanes side by side, as QEMU runs each guest on one host thread
# (tests/vm/boot.sh) and the host has two cores:
#   lane 1: static analysis, the release kernels' suites, the debug suite;
#   lane 2: the debug kernel and the root file systems (warm-cache.sh), the
#           packaging guests.
# The debug suite waits for its kernel through the cache's lock
# (tests/lib/cache.sh). The guests keep a core busy each: what runs beside
# them takes from them, and the order of the lanes changes little of the
# whole. Fresh runs (tests/fresh-machine.sh), .ci/run's time:
#   a02ef1a  58 min  this order; lane 2 the longer (debug kernel 16 minutes,
#                    packaging guests 36)
#   99b66bb  66 min  the debug kernel first in lane 1, static analysis last
#                    in lane 2 (the debug kernel took 23 minutes beside a
#                    packaging guest; lane 1 ended 11 minutes after lane 2)
#   d508316  53 min  this order, after the Debian 12 guest built the module
#                    once and the debug suite fuzzed 15 000 writes, not
#                    100 000 (lane 2 50 minutes, lane 1 37)
#   fcc14de  -       the debug kernel built beside both lanes at the lowest
#                    priority: still building 26 minutes in, 6 after lane 1
#                    wanted it (stopped there)
#   f76b95e  56 min  the root file systems and static analysis first in lane
#                    1, the debug kernel first in lane 2: it took 19 minutes,
#                    the debug suite 19 (16 in d508316)
# Guests run at a higher priority than the builds beside them (boot.sh), so
# that a compiler on the other core does not slow their timing tests. Each
# suite's output is printed whole when it ends; until then it is in
# build/check-all/SUITE.log. Ends with the time each stage took, the wall
# time, and the sum of the suites' "N passed, N failed" lines.
set -uo pipefail

here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=tests/lib/tally.sh
. "$here/lib/tally.sh"
build=${BUILD:-$here/../build}
logs=$build/check-all
PFPROF_STAGES=$(mktemp)
export PFPROF_STAGES
trap 'rm -f "$PFPROF_STAGES"' EXIT

# The host's packages, all in one apt run before the lanes (two apt runs at
# once would fight over dpkg's lock); perf is check.sh's.
"$here/vm/prepare-host.sh" linux-perf >/dev/null || { echo "FAIL cannot prepare the host"; exit 1; }
stage_time "host packages"
rm -rf "$logs"
mkdir -p "$logs"
"$here/warm-cache.sh" buildroot promtool kernels source 2> "$logs/warm-cache.log"
stage_time "cache: build root, kernels, kernel source"

# suite NAME COMMAND...: COMMAND's output in NAME.log, printed whole when it
# ends (one suite at a time, under a lock), then its tally in NAME.tally.
suite() {
	local name=$1 log=$logs/$1.log rc=0
	shift
	echo "check-all: $name started" >&2
	"$@" > "$log" 2>&1 || rc=$?
	{
		flock 9
		echo "=== $name ==="
		cat "$log"
		tally_of "$log" || echo "FAIL $name gave no result (exit $rc)"
		echo "$passed $failed $rc" > "$logs/$name.tally"
	} 9> "$logs/.print-lock"
}

# warm_cache STEP: warm-cache.sh's STEP as a stage of the lane. A failed
# step is only reported; the suite that needs it builds it again and fails
# in its own name.
warm_cache() {
	"$here/warm-cache.sh" "$1" 2>> "$logs/warm-cache-$1.log" | sed 's/^/check-all: /' >&2
	stage_time "cache: $1"
}

lane_kernels() {
	suite static "$here/static.sh"
	suite module "$here/check.sh"
	suite debug "$here/check-debug.sh"
}

lane_packages() {
	warm_cache debug-kernel
	warm_cache rootfs
	suite packages "$here/check-packages.sh"
}

start=$SECONDS
lane_kernels &
kernels_lane=$!
lane_packages &
packages_lane=$!
wait "$kernels_lane" "$packages_lane"
wall=$((SECONDS - start))

total_passed=0
total_failed=0
status=0
for name in static module debug packages; do
	read -r passed failed rc < "$logs/$name.tally" 2>/dev/null || { passed=0 failed=1 rc=1; }
	total_passed=$((total_passed + passed))
	total_failed=$((total_failed + failed))
	[ "$rc" -eq 0 ] || status=1
done

echo "Time taken by each stage (the lanes' stages overlap):"
awk -F'\t' '{ printf "  %-44s %3dm%02ds\n", $1, $2 / 60, $2 % 60 }' "$PFPROF_STAGES"
printf '  %-44s %3dm%02ds\n' "both lanes, wall time" $((wall / 60)) $((wall % 60))
echo "$total_passed passed, $total_failed failed"
[ "$total_failed" -eq 0 ] && exit "$status"
exit 1
