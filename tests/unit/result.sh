# shellcheck shell=bash
# Sourced by the host shell tests: each check is one "PASS name" or
# "FAIL name: reason" line, counted; tally ends the test with
# "N passed, N failed" and fails when any check did.
passed=0
failed=0

# result NAME [REASON]: a pass when REASON is empty.
result() {
	if [ -z "$2" ]; then
		echo "PASS $1"
		passed=$((passed + 1))
	else
		echo "FAIL $1: $2"
		failed=$((failed + 1))
	fi
}

tally() {
	echo "$passed passed, $failed failed"
	[ "$failed" -eq 0 ]
}
