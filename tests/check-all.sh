#!/usr/bin/env bash
# `make check`: static analysis and sanitizers (static.sh), the module/daemon
# suite on every supported kernel (check.sh), the packages in Debian 12 and
# Debian 13 systemd guests (check-packages.sh) and the guest suite again on
# the debug kernel (check-debug.sh), whatever the others gave. First
# tests/warm-cache.sh fetches what all of them need (build roots, kernels,
# kernel source), Debian 13's and Debian 12's side by side, each step timed.
#
# Then two lanes side by side on a two-core host:
#   lane 1: static analysis, the suites of 6.12 and 7.3, the debug suite;
#   lane 2: the debug kernel and the root file systems (warm-cache.sh), the
#           packaging guests, the suites of 6.1 and PREEMPT_RT.
# The lanes end together: the packaging guests take about as long as two
# release suites (tests/README.md, "Where the time goes").
# The debug suite waits for its kernel through the cache's lock
# (tests/lib/cache.sh). The lanes' guests run side by side: a guest keeps
# the two cores busy only part of the time, and side by side a fresh run
# took 33 minutes where one guest at a time took 44 (tests/README.md, "Where
# the time goes"); PFPROF_GUEST_LOCK=FILE runs them one at a time (boot.sh).
# No guest is judged by a fixed time, so a slower guest beside another is
# no failure. Guests run at a higher priority than the builds beside them
# (boot.sh), so that a compiler on the other core does not slow their
# timing tests. Each
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
# The two releases' downloads side by side: they share nothing.
"$here/warm-cache.sh" trixie 2> "$logs/warm-cache-trixie.log" &
"$here/warm-cache.sh" bookworm 2> "$logs/warm-cache-bookworm.log"
wait
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
	suite module env PFPROF_KERNELS="trixie trixie-backports" "$here/check.sh"
	suite debug "$here/check-debug.sh"
}

# The 6.1 and PREEMPT_RT suites last: lane 1 built the tools and ran the
# host unit tests.
lane_packages() {
	warm_cache debug-kernel
	warm_cache rootfs
	suite packages "$here/check-packages.sh"
	suite module-6.1-rt env PFPROF_KERNELS="bookworm trixie-rt" PFPROF_HOST_TESTS=no \
		"$here/check.sh"
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
for name in static module debug packages module-6.1-rt; do
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
