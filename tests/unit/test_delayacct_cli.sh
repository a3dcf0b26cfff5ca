#!/bin/bash
# Host test of pfprofd --delay-accounting=start|stop, in what it decides
# without writing the sysctl (test_delayacct covers the writes, on plain
# files; this host's kernel.task_delayacct is never written): usage errors,
# delay_accounting = leave, a stop with no marker, and a stop while a
# pfprofd holds the lock, which leaves its marker for that pfprofd.
# Prints "PASS name" / "FAIL name: reason" and "N passed, N failed".
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=tests/unit/result.sh
. "$here/result.sh"
pfprofd=$here/../../daemon/pfprofd
dir=$(mktemp -d "${TMPDIR:-/tmp}/pfprof-delayacct-test.XXXXXX")
trap 'rm -rf "$dir"' EXIT
# Messages to standard error, not to a journal the test cannot read.
unset JOURNAL_STREAM
sysctl=/proc/sys/kernel/task_delayacct

# run STATUS MESSAGE [KEY=VALUE...] -- ARGS...: pfprofd ARGS with a
# configuration of the settings given (runtime_dir in $dir/run) exits with
# STATUS and MESSAGE in its stderr; prints why not, or nothing.
run() {
	local want=$1 message=$2 got
	shift 2
	: > "$dir/pfprofd.conf"
	while [ "$1" != -- ]; do
		echo "$1" >> "$dir/pfprofd.conf"
		shift
	done
	shift
	echo "runtime_dir = $dir/run" >> "$dir/pfprofd.conf"
	"$pfprofd" -c "$dir/pfprofd.conf" "$@" 2> "$dir/err" > "$dir/out"
	got=$?
	if [ "$got" != "$want" ]; then
		echo "exit status $got, want $want: $(head -c 300 "$dir/err")"
	elif ! grep -qF -- "$message" "$dir/err"; then
		echo "no '$message' in: $(head -c 300 "$dir/err")"
	fi
}

before=$(cat "$sysctl" 2> /dev/null)
mkdir "$dir/run"
result bad_mode "$(run 2 "--delay-accounting takes start or stop, not 'on'" -- \
	--delay-accounting=on)"
result no_mode "$(run 2 "requires an argument" -- --delay-accounting)"
result with_check_config "$(run 2 "--check-config and --delay-accounting exclude each other" -- \
	--check-config --delay-accounting=start)"
result leave "$(run 0 "delay_accounting = leave: $sysctl left as it is" \
	"delay_accounting = leave" -- --delay-accounting=start)"
result stop_without_marker "$(run 0 "delay accounting left as it is ($sysctl): pfprofd did not turn it on" \
	-- --delay-accounting=stop)"
result missing_config "$(run 1 "reading $dir/none.conf: No such file or directory" \
	-- --delay-accounting=stop -c "$dir/none.conf")"

# A pfprofd runs (it holds the lock): its marker stays, and the sysctl is not written.
: > "$dir/run/delayacct"
echo 4242 > "$dir/run/pfprofd.pid"
flock -x "$dir/run/pfprofd.pid" sleep 30 &
locker=$!
for _ in $(seq 50); do
	flock -n -s "$dir/run/pfprofd.pid" true || break
	sleep 0.1
done
# Without the lock held the stop would write this host's sysctl: not run then.
if flock -n -s "$dir/run/pfprofd.pid" true; then
	why="flock(1) did not take the lock within 5 s"
else
	why=$(run 0 "pfprofd (PID 4242) still runs: delay accounting left as it is ($sysctl)" \
		-- --delay-accounting=stop)
	[ -n "$why" ] || [ -e "$dir/run/delayacct" ] || why="the marker went"
fi
result stop_while_running "$why"
kill "$locker"
wait "$locker" 2> /dev/null

result sysctl_untouched "$([ "$(cat "$sysctl" 2> /dev/null)" = "$before" ] ||
	echo "$sysctl was $before, is $(cat "$sysctl")")"
result_end
