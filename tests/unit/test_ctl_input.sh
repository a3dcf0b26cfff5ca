#!/bin/bash
# Host test of pfprofctl add/del's bad input (issue 26): each row of the
# table is a command line, the exit status it must end with and a part of
# what it must say; none may change the PID file. These are refused before
# the module is asked, so no module is needed (status_file names nothing:
# input that passes every check ends with exit status 3, no module).
# Prints "PASS name" / "FAIL name: reason" and "N passed, N failed".
here=$(cd "$(dirname "$0")" && pwd)
ctl=$here/../../pfprofctl/pfprofctl
dir=$(mktemp -d "${TMPDIR:-/tmp}/pfprof-ctl-test.XXXXXX")
trap 'rm -rf "$dir"' EXIT
passed=0
failed=0

printf 'pid_file = %s/pids\nstatus_file = %s/no-status\n' "$dir" "$dir" > "$dir/pfprofd.conf"
printf '# kept\n42\ncomm postgres\n' > "$dir/pids"
cp "$dir/pids" "$dir/pids.before"

# run_row NAME STATUS MESSAGE ARGS...: pfprofctl ARGS exits with STATUS,
# says MESSAGE on stderr and leaves the PID file as it was.
run_row() {
	local name=$1 want=$2 message=$3 got
	shift 3
	"$ctl" -c "$dir/pfprofd.conf" "$@" 2> "$dir/err" > /dev/null
	got=$?
	if [ "$got" != "$want" ]; then
		echo "FAIL $name: exit status $got, want $want: $(head -c 300 "$dir/err")"
	elif ! grep -qF -- "$message" "$dir/err"; then
		echo "FAIL $name: no '$message' in: $(head -c 300 "$dir/err")"
	elif ! cmp -s "$dir/pids" "$dir/pids.before"; then
		echo "FAIL $name: the PID file changed: $(cat "$dir/pids")"
	else
		echo "PASS $name"
		passed=$((passed + 1))
		return
	fi
	failed=$((failed + 1))
}

mapfile -t ten_thousand < <(seq -f 'name%g' 10000)

run_row empty_comm          2 "command name ''"                 add --comm ''
run_row long_comm           2 "--comm '123456789012345'"        add --comm 1234567890123456
run_row spaced_comm         2 "command name 'Web Content'"      add --comm 'Web Content'
run_row comment_comm        2 "command name 'a#b'"              add --comm 'a#b'
run_row one_bad_comm_of_two 2 "command name ''"                 add --comm ok ''
# 10 000 names and the one kept: more than the module's 256, refused whole.
run_row many_comms          1 "10001 command names"             add --comm "${ten_thousand[@]}"
run_row many_comms_errno    1 "No space left on device"         add --comm "${ten_thousand[@]}"
# One name 300 times is one name: past the limit check, it stops at the module.
mapfile -t one_name_300_times < <(yes dup | head -n 300)
run_row repeated_comm       3 "the mp3 module is not loaded"    add --comm "${one_name_300_times[@]}"
run_row bad_unit            2 "unit 'a/b.service'"              add --unit a/b.service
run_row empty_unit          2 "unit ''"                         add --unit ''
run_row outside_cgroup      2 "cgroup /tmp"                     add --cgroup /tmp
run_row two_kinds           2 "name different things"           add --unit --comm a
run_row not_a_pid           2 "'x' is not a PID"                add x
run_row no_operand          2 "which PIDs"                      add --comm
run_row del_bad_comm        2 "command name ''"                 del --comm ''

echo "$passed passed, $failed failed"
