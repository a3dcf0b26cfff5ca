#!/bin/sh
# The benchmark guest's payload (bench/run.sh boots it). Prints one line per
# figure ("what key=value ...", from pfprof-bench) and the pfprofd system
# call table between "strace begin" and "strace end"; bench/report.sh
# turns them into bench/results.md.
cd /t || exit 1
PATH=/t:$PATH
WORKLOAD="work --quiet --no-register --pause 0 256 R 100000"
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

# reload_module [PARAMS]: mp3 again, with those parameters.
reload_module() {
	rmmod mp3 || fail "cannot unload mp3"
	# shellcheck disable=SC2086 # the parameters' words
	insmod mp3.ko $1 || fail "cannot load mp3 $1"
}

# Reads perf script's call chains (frames "ADDRESS SYMBOL+OFFSET", a blank line
# after each sample) and prints, for the samples inside the sampler's work
# function, the share of each leaf function ("self") and of each function on
# the chain ("total").
sampler_profile() {
	awk '
	function flush(   i, k, seen) {
		if (n && inside) {
			samples++
			self[leaf]++
			for (i = 1; i <= n; i++)
				if (!(frame[i] in seen)) { seen[frame[i]] = 1; total[frame[i]]++ }
		}
		n = 0; inside = 0
	}
	/^[[:space:]]*$/ { flush(); next }
	{
		sym = $2; sub(/\+0x[0-9a-f]+$/, "", sym)
		frame[++n] = sym
		if (n == 1) leaf = sym
		if (sym == "mp3_sampler_fn") inside = 1
	}
	END {
		flush()
		print "profile samples=" samples
		for (f in self) print "profile kind=self sym=" f " pct=" 100 * self[f] / samples
		for (f in total) print "profile kind=total sym=" f " pct=" 100 * total[f] / samples
	}'
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

# Records on (the default) and off, reloaded in turn for each N, so that both
# see the guest in the same state.
echo "bench: 1/5 sampler and poller cost, N = 1 to 10000, records on and off" >&2
for n in 1 10 100 1000 10000; do
	pfprof-bench cost "$n" 5 || fail "cost $n failed"
	reload_module records=N
	pfprof-bench sampler "$n" 5 || fail "sampler $n with records=N failed"
	reload_module
done

echo "bench: 2/5 where the sampler's time goes, N = 10000" >&2
perf record -q -e cpu-clock -F 2000 -a -g -o /tmp/perf.data -- \
	pfprof-bench sampler 10000 5 >/dev/null || fail "perf record failed"
perf script -i /tmp/perf.data -F ip,sym 2>/dev/null | sampler_profile
# A fresh ring: pfprofd, started next, must not begin with 10000 records a sample.
reload_module

echo "bench: 3/5 timing over 60 s, pfprofd consuming" >&2
pfprofd_start
pfprof-bench timing 60 "$pfprofd" || fail "timing failed"

echo "bench: 4/5 workload overhead, $ROUNDS rounds" >&2
echo "workload $WORKLOAD"
for round in $(seq "$ROUNDS"); do
	overhead_round "$round"
done
pfprofd_stop

echo "bench: 5/5 pfprofd per sample, at 1000 samples/s" >&2
reload_module period_ms=1
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
