# shellcheck shell=sh
# Sourced by the shell unit tests (sh and bash): one line a check, "PASS name" or
# "FAIL name: reason", and at the end "N passed, N failed" (result_end's
# status is the verdict).
passed=0
failed=0

result() {	# name, then empty for a pass or the reason
	if [ -z "$2" ]; then
		echo "PASS $1"
		passed=$((passed + 1))
	else
		echo "FAIL $1: $2"
		failed=$((failed + 1))
	fi
}

result_end() {
	echo "$passed passed, $failed failed"
	[ "$failed" -eq 0 ]
}
