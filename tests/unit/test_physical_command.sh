#!/bin/bash
# Host test of pfprofctl physical (pfprofctl/physical/) on this machine's own
# page frames: its rows add up to the frames it read, at least MemTotal's;
# with --watch, a process of a memory cgroup of the test's own that writes
# 256 MiB while it watches is that cgroup's gain; a user who may not read
# /proc/kpagecgroup gets exit 1 and the hint.
# Prints "PASS name" / "FAIL name: reason" and "N passed, N failed".
here=$(cd "$(dirname "$0")" && pwd)
ctl=$here/../../pfprofctl/pfprofctl
dir=$(mktemp -d "${TMPDIR:-/tmp}/pfprof-physical-test.XXXXXX")
chmod 755 "$dir"
trap '[ -n "$KEEP" ] || rm -rf "$dir"' EXIT
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

	# --watch on a terminal (a pty from script(1), 200 columns), a process of
	# a memory cgroup of the test's own writing 256 MiB after its first scan.
	if [ -e /sys/fs/cgroup/cgroup.controllers ]; then
		cg=/sys/fs/cgroup/pfprof-physical-$$
		grep -qw memory /sys/fs/cgroup/cgroup.subtree_control || cg=
	else
		cg=/sys/fs/cgroup/memory/pfprof-physical-$$
	fi
	if [ -z "$cg" ] || ! mkdir "$cg"; then
		echo "physical: no memory cgroup of the test's own here: --watch not checked"
	else
		sh -c "echo \$\$ > $cg/cgroup.procs && exec python3 -c 'import time
time.sleep(2)
b = bytearray(b\"\\x01\") * (256 << 20)
time.sleep(10)'" &
		hog=$!
		script -qec "stty cols 200 rows 60; timeout --foreground -k 2 -s INT 8 '$ctl' \
			-c '$dir/pfprofd.conf' physical --watch -d 0.5 -n 1000" /dev/null \
			< /dev/null > "$dir/watch.raw"
		kill $hog 2> /dev/null
		wait
		rmdir "$cg"
		# The last screen, escapes and carriage returns taken out.
		sed 's/\x1b\[[0-9;?]*[a-zA-Z]//g; s/\r$//' "$dir/watch.raw" |
			tac | sed -n '/^ *MEMORY *CHANGE /q;p' | tac > "$dir/last"
		row=$(grep " pfprof-physical-$$\$" "$dir/last")
		result watch_change "$(awk -v row="$row" 'BEGIN {
			split(row, f, " ")
			if (f[2] < 200 || f[2] > 300)
				printf "the cgroup'"'"'s row: %s", row }' < /dev/null)"
	fi
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
