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

check() {	# name, then a command that must succeed
	name=$1
	shift
	if "$@"; then
		result "$name" ""
	else
		result "$name" "$*"
	fi
}

# is_png FILE: FILE starts with PNG's signature.
is_png() {
	[ "$(od -An -tx1 -N8 "$1" 2>/dev/null | tr -d ' \n')" = 89504e470d0a1a0a ]
}

result_end() {
	echo "$passed passed, $failed failed"
	[ "$failed" -eq 0 ]
}
