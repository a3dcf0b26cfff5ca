#!/bin/sh
# The DAMON benchmark guest's payload (bench/damon.sh boots it on a kernel
# with DAMON). For 1 and for 10 processes touching memory, one after the
# other over the same processes: the fault sampler (the module's ticks,
# and pfprofd's CPU while it logs them), then DAMON (the kdamonds' CPU,
# and pfprofctl heatmap --record's). Prints one line per figure, "what
# key=value ..." (pfprof-bench's), each after a "case n=N" line.
cd /t || exit 1
PATH=/t:$PATH
# Each process: 64 MiB, 64 accesses to random pages every 2 ms (a busy
# server's worker, to the sampler: woken 500 times a second).
WORK="work --quiet --no-register --pause 0.002 -n 1000000000 64 R 64"
SECONDS_MEASURED=20

fail() { echo "bench: $*"; exit 1; }

# shellcheck source=tests/vm/guest-pfprofd.sh # in the payload, next to this
. ./guest-pfprofd.sh
pfprofd_configure ""

# kdamonds: NAME,PID of each kdamond thread, for pfprof-bench cpu.
kdamonds() {
	for comm in /proc/[0-9]*/comm; do
		read -r name < "$comm" 2>/dev/null || continue
		case $name in kdamond.*)
			pid=${comm#/proc/}
			printf '%s,%s ' "$name" "${pid%/comm}" ;;
		esac
	done
}

measure() {
	n=$1 workers=""
	echo "case n=$n"
	for _ in $(seq "$n"); do
		$WORK &
		workers="$workers $!"
	done
	sleep 1
	pfprofd_start
	for pid in $workers; do
		echo "R $pid" > /proc/mp3/status || fail "registering $pid"
	done
	pfprof-bench ticks "$SECONDS_MEASURED" &
	ticks=$!
	pfprof-bench cpu "$SECONDS_MEASURED" "pfprofd,$pfprofd" || fail "pfprofd's CPU"
	wait "$ticks" || fail "the sampler's ticks"
	for pid in $workers; do
		echo "U $pid" > /proc/mp3/status || fail "unregistering $pid"
	done
	pfprofd_stop

	# shellcheck disable=SC2086 # one operand per worker
	pfprofctl -c /tmp/pfprofd.conf heatmap --record --take-damon \
		-s $((SECONDS_MEASURED + 4)) $workers > /tmp/record.out 2>&1 &
	recorder=$!
	sleep 2
	targets=$(kdamonds)
	[ -n "$targets" ] || { cat /tmp/record.out; fail "no kdamond running"; }
	# shellcheck disable=SC2086 # one operand per kdamond
	pfprof-bench cpu "$SECONDS_MEASURED" "recorder,$recorder" $targets ||
		fail "the kdamonds' CPU"
	wait "$recorder" || { cat /tmp/record.out; fail "pfprofctl heatmap --record failed"; }
	grep -c "snapshots of process" /tmp/record.out | sed 's/^/recorded processes=/'
	# What the recorder read: DAMON's regions a snapshot, four sysfs files each.
	cat /tmp/logs/heatmap-*.log | awk -F '\t' '$1 == "region" { regions++; seen[$2] = 1 }
		END { for (t in seen) snapshots++; printf "regions per_snapshot=%.0f\n", regions / snapshots }'
	rm -f /tmp/logs/heatmap-*.log
	# shellcheck disable=SC2086
	kill $workers
	wait 2>/dev/null
}

grep -q . /sys/kernel/mm/damon/admin/kdamonds/nr_kdamonds 2>/dev/null ||
	fail "this kernel has no DAMON's sysfs interface"
insmod /t/mp3.ko || fail "insmod failed"
echo "guest kernel=$(uname -r) cpus=$(nproc)"
measure 1
measure 10
rmmod mp3
echo "bench: done"
