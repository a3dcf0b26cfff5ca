#!/bin/bash
# Host test of pfprofctl physical (pfprofctl/physical/) on this machine's own
# page frames: its rows add up to the frames it read, at least MemTotal's;
# a user who may not read /proc/kpagecgroup gets exit 1 and the hint.
# Prints "PASS name" / "FAIL name: reason" and "N passed, N failed".
here=$(cd "$(dirname "$0")" && pwd)
ctl=$here/../../pfprofctl/pfprofctl
dir=$(mktemp -d "${TMPDIR:-/tmp}/pfprof-physical-test.XXXXXX")
chmod 755 "$dir"
trap 'rm -rf "$dir"' EXIT
# shellcheck source=tests/unit/result.sh
. "$here/result.sh"

printf 'targets_file = %s/targets\n' "$dir" > "$dir/pfprofd.conf"
if [ ! -r /proc/kpagecgroup ] || ! head -c 8 /proc/kpagecgroup > /dev/null 2>&1; then
	echo "physical: /proc/kpagecgroup is not readable here (not root): the rows not checked"
else
	"$ctl" -c "$dir/pfprofd.conf" physical -n 1000 > "$dir/out" 2> "$dir/err"
	status=$?
	result rows_add_up "$(awk -v status="$status" '
		NR == 1 { frames = $1; next }
		NR == 2 { next }
		{ mib += $1 }
		END {
			page = 4096 / 1048576
			getline line < "/proc/meminfo"; split(line, f, " ")
			if (status != 0 || frames * page * 1024 < f[2] ||
			    mib < frames * page - 1 || mib > frames * page + 1)
				printf "status %d, %d frames, rows %.1f MiB, MemTotal %s kB", status,
					frames, mib, f[2]
		}' "$dir/out")"
fi

if [ -e /proc/kpagecgroup ] && command -v setpriv > /dev/null && [ "$(id -u)" = 0 ]; then
	setpriv --reuid=65534 --regid=65534 --clear-groups "$ctl" -c "$dir/pfprofd.conf" physical \
		> "$dir/out" 2> "$dir/err"
	status=$?
	result user_refused "$( [ $status = 1 ] && grep -q "reading /proc/kpagecgroup: Permission denied" \
		"$dir/err" && grep -q "hint: .*only root" "$dir/err" ||
		echo "status $status: $(cat "$dir/out" "$dir/err")")"
fi
result_end
