#!/bin/sh
# The benchmark guest's payload (bench/run.sh boots it). Prints one line per
# figure ("what key=value ...", from pfprof-bench) and the pfprofd system
# call table between "strace begin" and "strace end"; bench/report.sh
# turns them into bench/results.md.
cd /t || exit 1
PATH=/t:$PATH
WORKLOAD="work --quiet 256 R 100000"
ROUNDS=11

fail() { echo "bench: $*"; exit 1; }

# shellcheck source=tests/vm/guest-pfprofd.sh # in the payload, next to this
. ./guest-pfprofd.sh
pfprofd_configure ""

# overhead_round N: the workload bare, under pfprof, perf stat and pidstat,
# in an order that rotates with N so that none always runs first.
overhead_round() {
	rotations=$1
	set -- bare pfprof perf pidstat
	while [ "$rotations" -gt 0 ]; do
		set -- "$2" "$3" "$4" "$1"
		rotations=$((rotations - 1))
	done
	for mode in "$@"; do
		# shellcheck disable=SC2086 # the workload's words
		case $mode in
		bare | pfprof) pfprof-bench overhead "$mode" 1500 $WORKLOAD ;;
		perf) pfprof-bench overhead observe 1500 $WORKLOAD -- \
			perf stat -e minor-faults,major-faults -I 50 -p %p ;;
		pidstat) pfprof-bench overhead observe 1500 $WORKLOAD -- pidstat -r -p %p 1 ;;
		esac || fail "overhead run $mode failed"
	done
}

insmod mp3.ko || fail "cannot load mp3.ko"
echo "guest cpus=$(nproc) mem_kb=$(awk '/MemTotal/ { print $2 }' /proc/meminfo)" \
	"kernel=$(uname -r) accel=tcg clocksource=$(cat /sys/devices/system/clocksource/clocksource0/current_clocksource)"

read -r reference_run < reference
echo "reference $reference_run"
for _ in 1 2 3; do
	# shellcheck disable=SC2086 # the run's words
	pfprof-bench overhead bare 0 work $reference_run | sed 's/^overhead/guest_reference/'
done

echo "bench: 1/4 sampler and poller cost, N = 1 to 10000" >&2
for n in 1 10 100 1000 10000; do
	pfprof-bench cost "$n" 5 || fail "cost $n failed"
done

echo "bench: 2/4 timing over 60 s, pfprofd consuming" >&2
pfprofd_start
pfprof-bench timing 60 "$pfprofd" || fail "timing failed"

echo "bench: 3/4 workload overhead, $ROUNDS rounds" >&2
echo "workload $WORKLOAD"
for round in $(seq "$ROUNDS"); do
	overhead_round "$round"
done
pfprofd_stop

echo "bench: 4/4 pfprofd per sample, at 1000 samples/s" >&2
rmmod mp3 || fail "cannot unload mp3"
insmod mp3.ko period_ms=1 || fail "cannot load mp3 with period_ms=1"
pfprofd_start
pfprof-bench consumer "$pfprofd" 10 || fail "consumer failed"
strace -c -f -p "$pfprofd" -o /tmp/strace.txt &
tracer=$!
sleep 1
pfprof-bench consumer "$pfprofd" 10 | sed 's/^consumer/traced/' || fail "traced consumer failed"
kill -INT "$tracer"
wait "$tracer"
echo "strace begin"
cat /tmp/strace.txt
echo "strace end"
pfprofd_stop
echo "missed $(grep -c '^# missed' /tmp/logs/pfprof.log)"
rmmod mp3
