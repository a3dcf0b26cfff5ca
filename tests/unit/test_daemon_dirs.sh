#!/bin/bash
# Host test of the directories pfprofd needs (issue 27): it creates those
# that are missing (mode 0750, issue 42) and says so, or says which one it cannot use, and why, on
# the terminal before it would detach. No module is needed: the device is
# a plain file here, which pfprofd checks after its directories (exit status
# 1, "cannot use", means it got past them). Without a device at all it
# makes no directory.
# Prints "PASS name" / "FAIL name: reason" and "N passed, N failed".
here=$(cd "$(dirname "$0")" && pwd)
pfprofd=$here/../../daemon/pfprofd
dir=$(mktemp -d "${TMPDIR:-/tmp}/pfprof-dirs-test.XXXXXX")
trap 'rm -rf "$dir"' EXIT
: > "$dir/device"
# shellcheck source=tests/unit/result.sh
. "$here/result.sh"

# start STATUS MESSAGE [KEY=VALUE...]: pfprofd, in the foreground, with the
# directories below $dir/t (emptied first) and the settings given, exits
# with STATUS saying MESSAGE on stderr; prints why not, or nothing.
start() {
	local want=$1 message=$2 got
	shift 2
	rm -rf "$dir/t" && mkdir "$dir/t"
	printf '%s\n' "log_dir = $dir/t/log" "targets_file = $dir/t/lib/pids" \
		"state_dir = $dir/t/lib" "runtime_dir = $dir/t/run" "device = $dir/device" \
		"prometheus_dir = $dir/t/prom" "$@" > "$dir/pfprofd.conf"
	timeout 10 "$pfprofd" --foreground --config "$dir/pfprofd.conf" 2> "$dir/err"
	got=$?
	if [ "$got" != "$want" ]; then
		echo "exit status $got, want $want: $(head -c 400 "$dir/err")"
	elif ! grep -qF -- "$message" "$dir/err"; then
		echo "no '$message' in: $(head -c 400 "$dir/err")"
	fi
}

why=$(start 1 "created $dir/t/log, the log directory (log_dir)")
for d in log lib run; do
	[ -n "$why" ] || [ -d "$dir/t/$d" ] || why="$dir/t/$d not created"
done
result creates_missing "$why"

# The directories it creates, and the lock file, are the group pfprof's
# (lib/privfile.h): 0750 and 0640 whatever the umask, with the group pfprof
# if it exists (and this user may give it), else this user's.
# modes_are UMASK: prints what differs, or nothing.
modes_are() {
	local group why d
	group=$(getent group pfprof | cut -d: -f3)
	if [ -z "$group" ] || { [ "$(id -u)" != 0 ] && ! id -G | grep -qw "$group"; }; then
		group=$(id -g)
	fi
	why=$(umask "$1" && start 1 "created $dir/t/log")
	for d in log lib run; do
		[ -n "$why" ] || [ "$(stat -c '%a %g' "$dir/t/$d")" = "750 $group" ] ||
			why="$dir/t/$d: $(stat -c '%a %g' "$dir/t/$d"), want 750 $group"
	done
	[ -n "$why" ] || [ "$(stat -c '%a %g' "$dir/t/run/pfprofd.pid")" = "640 $group" ] ||
		why="pfprofd.pid: $(stat -c '%a %g' "$dir/t/run/pfprofd.pid"), want 640 $group"
	echo "$why"
}
result private_modes_umask_0 "$(modes_are 000)"
result private_modes_umask_077 "$(modes_are 077)"
result says_targets_dir \
	"$(start 1 "created $dir/t/lib, the directory of the targets file (targets_file)")"
result says_runtime_dir "$(start 1 "created $dir/t/run, the runtime directory (runtime_dir)")"
result log_parent_missing "$(start 1 \
	"log directory (log_dir) $dir/t/a/log: cannot create it: No such file or directory" \
	"log_dir = $dir/t/a/log")"
result targets_parent_missing "$(start 1 \
	"directory of the targets file (targets_file) $dir/t/a/b: cannot create it: No such file" \
	"targets_file = $dir/t/a/b/pids")"
# pid_file, the key's older name, still sets it.
result targets_parent_missing_pid_file_key "$(start 1 \
	"directory of the targets file (targets_file) $dir/t/a/b: cannot create it: No such file" \
	"pid_file = $dir/t/a/b/pids")"
result log_dir_is_a_file "$(start 1 "log directory (log_dir) /dev/null: cannot use it: Not a directory" \
	"log_dir = /dev/null")"
# Without the state directory the counters start from 0: a warning, no more.
result state_dir_optional "$(start 1 "state directory (state_dir) $dir/t/a/state: cannot create" \
	"state_dir = $dir/t/a/state")"

# Without the module (no device): exit status 3, and no directory made.
why=$(start 3 "load the module first" "device = $dir/t/no-mp3")
[ -n "$why" ] || [ -z "$(ls "$dir/t")" ] || why="left behind: $(ls "$dir/t")"
result no_module_no_dirs "$why"

result_end
