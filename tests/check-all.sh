#!/usr/bin/env bash
# `make check`: static analysis and sanitizers (static.sh), the module/daemon
# suite (check.sh) and the packaging test in a systemd guest
# (check-packages.sh), one after the other, whatever the others gave. Ends
# with the sum of their "N passed, N failed" lines.
set -uo pipefail

here=$(cd "$(dirname "$0")" && pwd)
passed=0
failed=0
status=0

for suite in static.sh check.sh check-packages.sh; do
	log=$(mktemp)
	"$here/$suite" 2>&1 | tee "$log"
	rc=${PIPESTATUS[0]}
	summary=$(grep -E '^[0-9]+ passed, [0-9]+ failed$' "$log" | tail -n 1)
	rm -f "$log"
	if [ -z "$summary" ]; then
		echo "FAIL $suite gave no result (exit $rc)"
		summary="0 passed, 1 failed"
	fi
	passed=$((passed + ${summary%% passed*}))
	f=${summary#*passed, }
	failed=$((failed + ${f%% failed*}))
	[ "$rc" -eq 0 ] || status=1
done
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ] && exit "$status"
exit 1
