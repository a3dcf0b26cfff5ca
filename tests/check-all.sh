#!/usr/bin/env bash
# `make check`: static analysis and sanitizers (static.sh), the module/daemon
# suite (check.sh), the packaging test in a systemd guest (check-packages.sh)
# and the guest suite again on the debug kernel (check-debug.sh), one after
# the other, whatever the others gave. Ends with the sum of their
# "N passed, N failed" lines.
set -uo pipefail

here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=tests/lib/tally.sh
. "$here/lib/tally.sh"
total_passed=0
total_failed=0
status=0

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
echo "$total_passed passed, $total_failed failed"
[ "$total_failed" -eq 0 ] && exit "$status"
exit 1
