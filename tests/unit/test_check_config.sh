#!/bin/bash
# Host test of pfprofd --check-config (issue 27), which the unit runs before
# every start and reload: each row is a configuration file, the exit status
# it must end with and what standard error must be, exactly (nothing for a
# good file; one FILE:LINE: MESSAGE line per bad line). The shipped
# pfprofd.conf must pass as it is and with every key uncommented.
# Prints "PASS name" / "FAIL name: reason" and "N passed, N failed".
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=tests/unit/result.sh
. "$here/result.sh"
pfprofd=$here/../../daemon/pfprofd
shipped=$here/../../daemon/pfprofd.conf
dir=$(mktemp -d "${TMPDIR:-/tmp}/pfprof-check-config-test.XXXXXX")
trap 'rm -rf "$dir"' EXIT
# Messages to standard error, not to a journal the test cannot read.
unset JOURNAL_STREAM

# run_row NAME STATUS FILE WANT [ARGS...]: pfprofd --check-config -c FILE
# ARGS exits with STATUS and prints WANT's lines on stderr, each after
# "pfprofd: ", with "@" for FILE.
run_row() {
	local name=$1 status=$2 file=$3 want=${4//@/$3} got
	shift 4
	[ -z "$want" ] || want="pfprofd: ${want//$'\n'/$'\n'pfprofd: }"
	"$pfprofd" --check-config -c "$file" "$@" 2> "$dir/err" > "$dir/out"
	got=$?
	if [ "$got" != "$status" ]; then
		result "$name" "exit status $got, want $status: $(head -c 300 "$dir/err")"
	elif [ "$(cat "$dir/err")" != "$want" ]; then
		result "$name" "stderr '$(head -c 300 "$dir/err")', want '$want'"
	else
		result "$name" "$([ -s "$dir/out" ] && echo "stdout '$(head -c 300 "$dir/out")'")"
	fi
}

sed -E 's/^#([a-z_]+ =)/\1/' "$shipped" > "$dir/uncommented.conf"
printf 'keep = 5  # five\n\n# a comment\nlog_dir = /srv/a#b\n' > "$dir/good.conf"
printf 'keep = 5\nlog_dir = var/log\n' > "$dir/bad_value.conf"
printf 'log_dri = /srv/pfprof\n' > "$dir/unknown_key.conf"
printf 'rotate_size 16M\n= 5\n' > "$dir/no_equals.conf"
printf 'keep = 1001\nkeep = 7\nprometheus_interval = 0\n' > "$dir/three.conf"
printf 'keep = 5\0\n' > "$dir/nul.conf"
{ printf 'log_dir = /'; head -c 5000 /dev/zero | tr '\0' a; echo; } > "$dir/long.conf"

bad_log_dir="@:2: bad value 'var/log' for log_dir: expected an absolute path"
run_row shipped        0 "$shipped"                ""
run_row uncommented    0 "$dir/uncommented.conf"   ""
run_row good           0 "$dir/good.conf"          ""
run_row bad_value      1 "$dir/bad_value.conf"     "$bad_log_dir"
run_row unknown_key    1 "$dir/unknown_key.conf"   "@:1: unknown key 'log_dri'"
run_row no_equals      1 "$dir/no_equals.conf"     "@:1: expected key = value
@:2: expected key = value"
# A later good line does not hide a bad one.
run_row every_line     1 "$dir/three.conf"         "@:1: bad value '1001' for keep: expected a number from 0 to 1000
@:3: bad value '0' for prometheus_interval: expected an interval of at least 1s (s, m, h or d)"
run_row nul_byte       1 "$dir/nul.conf"           "@:1: NUL byte in line"
run_row long_line      1 "$dir/long.conf"          "@:1: line longer than 4096 bytes"
run_row missing        1 "$dir/missing.conf"       "reading @: No such file or directory"
run_row extra_argument 2 "$dir/good.conf"          "unexpected argument 'x'" x

result_end
