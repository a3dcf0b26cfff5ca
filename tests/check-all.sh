#!/usr/bin/env bash
# `make check`: static analysis and sanitizers (static.sh), the module/daemon
# suite on every supported kernel (check.sh), the packages in Debian 12 and
# Debian 13 systemd guests (check-packages.sh) and the guest suite again on
# the debug kernel (check-debug.sh), one after the other, whatever the others
# gave. First tests/warm-cache.sh builds what they need into the cache
# (build root, kernels, kernel source, debug kernel, root file systems), each
# step timed. Not in the background: run beside a guest suite it slowed the
# guest enough to fail its timing tests (20 Hz sampling seen at 9 Hz). Ends
# with the time each stage took and the sum of their "N passed, N failed"
# lines.
set -uo pipefail

here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=tests/lib/tally.sh
. "$here/lib/tally.sh"
build=${BUILD:-$here/../build}
total_passed=0
total_failed=0
status=0
PFPROF_STAGES=$(mktemp)
export PFPROF_STAGES

# The host's packages, all in one apt run.
"$here/vm/prepare-host.sh" >/dev/null || { echo "FAIL cannot prepare the host"; exit 1; }
stage_time "host packages"
trap 'rm -f "$PFPROF_STAGES"' EXIT
mkdir -p "$build"
"$here/warm-cache.sh" 2> "$build/warm-cache.log"
stage_time "cache: build root, kernels, images"

for suite in static.sh check.sh check-packages.sh check-debug.sh; do
	log=$(mktemp)
	"$here/$suite" 2>&1 | tee "$log"
	rc=${PIPESTATUS[0]}
	tally_of "$log" || echo "FAIL $suite gave no result (exit $rc)"
	rm -f "$log"
	total_passed=$((total_passed + passed))
	total_failed=$((total_failed + failed))
	[ "$rc" -eq 0 ] || status=1
done

echo "Time taken by each stage:"
awk -F'\t' '{ printf "  %-44s %3dm%02ds\n", $1, $2 / 60, $2 % 60; total += $2 }
	END { printf "  %-44s %3dm%02ds\n", "total", total / 60, total % 60 }' "$PFPROF_STAGES"
echo "$total_passed passed, $total_failed failed"
[ "$total_failed" -eq 0 ] && exit "$status"
exit 1
