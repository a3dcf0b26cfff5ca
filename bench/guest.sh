#!/bin/sh
# The benchmark guest's payload (bench/run.sh boots it). Prints one line per
# figure ("what key=value ...", from pfprof-bench) and the pfprofd system
# call table between "strace begin" and "strace end"; bench/report.sh
# turns them into bench/results.md.
cd /t || exit 1
PATH=/t:$PATH
WORKLOAD="work --quiet --no-register --pause 0 256 R 100000"
ROUNDS=11
# Section 6: the registered processes both exporters report on. L: each takes
# a page it has not touched before every 64 accesses, so its fault counter
# moves faster than any exporter is read (about 200 faults/s each).
EXPORTER_WORKERS=4
EXPORTER_WORK="work --quiet --register --pause 0.02 -n 1000000 256 L 320"
EXPORTER_IDLE_S=5
EXPORTER_SCRAPE_S=10
EXPORTER_INTERVAL_MS=250
EXPORTER_FILES=100
# Section 7: forks timed per run, runs per kind of fork.
FORKS=2000
FORK_ROUNDS=7
# Section 7's context switches, perf bench sched, each run about 1 to 2 s
# under TCG (on the host 4.4 us per pipe round trip and 2.4 us per message;
# forks are 2 to 5 times slower in the guest): PIPE_LOOPS round trips between
# two processes; MESSAGING_GROUPS groups of perf's 20 senders and 20
# receivers, each sender MESSAGING_LOOPS messages to each receiver of its group.
PIPE_LOOPS=60000
MESSAGING_GROUPS=2
MESSAGING_LOOPS=150
# Section 7's idle processes registered beside perf bench sched: every wakeup
# of the system is looked up among them.
IDLE_REGISTERED=10000
# The instruction-counted run's rounds of context switches: counted, the runs
# differ by a fraction of a per cent, so fewer rounds than timed ones.
INSTRUCTION_ROUNDS=4
# The target of the trees the counted run's context switches run in.
TREE_TARGET=2
# The counted run's page faults: FAULT_ROUNDS times FAULT_PAGES fresh
# pages mapped, touched and unmapped, per mode, FAULT_REPEATS times each.
FAULT_PAGES=1024
FAULT_ROUNDS=50
FAULT_REPEATS=3
# Section 9: what waits behind one registration: "R maps" of a process of
# each of LOCKWAIT_THREADS threads, "T" of a chain of each of LOCKWAIT_CHAIN
# (a chain of 4000 ran the 2 GiB guest out of memory: a kernel stack and
# page tables each).
LOCKWAIT_THREADS="1000 4000"
LOCKWAIT_CHAIN="1000 2000"
# Section 10: what delay accounting costs the waits it times: WAITS_ROUNDS
# times WAITS_PAGES pages pushed out to zram and touched again, and
# WAITS_PIPE_LOOPS pipe round trips, with kernel.task_delayacct off and on
# in turn, WAITS_REPEATS times each.
WAITS_PAGES=1024
WAITS_ROUNDS=20
WAITS_PIPE_LOOPS=20000
WAITS_REPEATS=3
WAITS_SWAP_BYTES=$((64 << 20))
# Section 12: what the page trace costs a page sent to swap and a swap-in:
# SWAP_ROUNDS times SWAP_PAGES pages pushed out to zram and touched again,
# the hooks not armed, armed for another process, tracing this one, in
# turn, SWAP_REPEATS times each.
SWAP_PAGES=1024
SWAP_ROUNDS=20
SWAP_REPEATS=3
# And a page of a file read again: REFAULT_ROUNDS times REFAULT_PAGES pages
# of a file on ext2 on zram1 pushed out and touched again, in the same
# modes, REFAULT_REPEATS times each.
REFAULT_PAGES=1024
REFAULT_ROUNDS=20
REFAULT_REPEATS=3
REFAULT_DIR=/tmp/refault
# And with a cgroup followed with "S <target> charged" (the probe on
# __filemap_remove_folio enabled): CHARGED_CGROUP, target CHARGED_TARGET,
# the process measured outside it ("cgroup") and in it ("charged").
CHARGED_CGROUP=/tmp/cgroup2/pfprof-charged
CHARGED_TARGET=2000
# Section 11: what timing faults costs a minor fault: LATENCY_ROUNDS times
# LATENCY_PAGES fresh pages touched, with no registration asking for
# latency, another process's asking, and the process's own, in turn,
# LATENCY_REPEATS times each.
LATENCY_PAGES=1024
LATENCY_ROUNDS=50
# Section 13: what placing a forked child's faults costs its fork:
# COUNTED_FORKS forks of a child that exits at once, by a tree and by a tree
# with maps, in turn, FORK_REPEATS times each.
COUNTED_FORKS=2000
FORK_REPEATS=3
LATENCY_REPEATS=5
# Section 7's list walks at their longest: FOLLOWED_NAMES command names no
# process has (MP3_COMMS_MAX: the module refuses one more), then a cgroup
# of their own with no process in it, targets from FOLLOWED_TARGET on.
FOLLOWED_NAMES=256
FOLLOWED_TARGET=1000
FOLLOWED_CGROUP=/tmp/cgroup2/pfprof-bench

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

# sched_bench [MODULE [RUNNER]]: perf bench sched pipe and messaging beside
# the module as it is, a line each: "sched bench=pipe|messaging
# module=MODULE [groups=G] loops=L ops=N seconds=S" (ops: round trips,
# messages; MODULE: loaded or unloaded unless given). RUNNER: a command
# that runs perf, in_tree for instance.
sched_bench() {
	module=unloaded
	[ -e /proc/mp3/status ] && module=loaded
	[ -n "${1:-}" ] && module=$1
	runner=${2:-}
	# Its µs per round trip: perf rounds its total time to 1 ms, its
	# time per round trip to 1 µs over the loops.
	usecs=$($runner perf bench sched pipe -l "$PIPE_LOOPS" | awk '$2 == "usecs/op" { print $1 }')
	[ -n "$usecs" ] || fail "perf bench sched pipe failed"
	seconds=$(awk -v u="$usecs" -v n="$PIPE_LOOPS" 'BEGIN { printf "%.6f", u * n / 1e6 }')
	echo "sched bench=pipe module=$module loops=$PIPE_LOOPS ops=$PIPE_LOOPS seconds=$seconds"
	seconds=$($runner perf bench -f simple sched messaging -g "$MESSAGING_GROUPS" -l "$MESSAGING_LOOPS") ||
		fail "perf bench sched messaging failed"
	echo "sched bench=messaging module=$module groups=$MESSAGING_GROUPS loops=$MESSAGING_LOOPS" \
		"ops=$((MESSAGING_GROUPS * 20 * 20 * MESSAGING_LOOPS)) seconds=$seconds"
}

# follow_groups: the module follows the FOLLOWED_NAMES names and the empty
# cgroup, last in its list: a fork or exec that none holds walks them all.
# Prints "groups names=N cgroups=N", what the lines after it ran beside.
follow_groups() {
	for i in $(seq "$FOLLOWED_NAMES"); do
		echo "N $((FOLLOWED_TARGET + i)) name$i" > /proc/mp3/status ||
			fail "cannot follow the name name$i"
	done
	if echo "N $((FOLLOWED_TARGET + FOLLOWED_NAMES + 1)) name0" 2>/dev/null > /proc/mp3/status; then
		fail "the module follows more than $FOLLOWED_NAMES names"
	fi
	echo "C $(stat -c %i "$FOLLOWED_CGROUP") $FOLLOWED_TARGET" > /proc/mp3/status ||
		fail "cannot follow the cgroup $FOLLOWED_CGROUP"
	echo "groups names=$FOLLOWED_NAMES cgroups=1"
}

# in_tree COMMAND...: COMMAND registered as a tree (target TREE_TARGET), with
# every process it forks: its own wakeups go through the probes' queuing.
in_tree() {
	sh -c 'echo "T $$ $0" > /proc/mp3/status && exec "$@"' "$TREE_TARGET" "$@"
}

# sched_beside_registered: sched_bench while IDLE_REGISTERED sleepers are
# registered (pfprof-bench sampler holds them, killed once it is done),
# then beside the same sleepers unregistered: the module follows nothing
# and has detached its probes, so what remains is what the processes'
# presence costs the guest.
sched_beside_registered() {
	pfprof-bench sampler "$IDLE_REGISTERED" 600 >/dev/null &
	holder=$!
	while [ "$(grep -c . /proc/mp3/status)" -lt "$IDLE_REGISTERED" ]; do
		kill -0 "$holder" 2>/dev/null || fail "pfprof-bench did not register its sleepers"
		sleep 1
	done
	sched_bench "registered$IDLE_REGISTERED"
	registered=$(cat /proc/mp3/status)
	for pid in $registered; do
		echo "U $pid" > /proc/mp3/status || fail "cannot unregister $pid"
	done
	# The sampler's next tick finds nothing and detaches the probes.
	sleep 1
	sched_bench "present$IDLE_REGISTERED"
	kill "$holder"
	wait "$holder" 2>/dev/null
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

# The payload's modules (load-modules: zram, ext4, what they need) not loaded yet.
load_modules() {
	[ -f load-modules ] || return 0
	while read -r _ path; do
		name=$(basename "$path" .ko | tr - _)
		grep -q "^$name " /proc/modules || insmod "./$path" || fail "cannot load $name"
	done < load-modules
}

# zram0 as swap: the guest has no disk (the zram module is in load-modules).
zram_swap() {
	load_modules
	echo "$WAITS_SWAP_BYTES" > /sys/block/zram0/disksize || fail "cannot size zram0"
	mkswap /dev/zram0 >/dev/null || fail "cannot mkswap zram0"
	swapon /dev/zram0 || fail "cannot swapon zram0"
}

# Swap-ins and pipe round trips with delay accounting off and on in turn
# (section 10), the module not loaded: what the kernel's timing costs.
delay_accounting_cost() {
	delayacct_was=$(cat /proc/sys/kernel/task_delayacct) || fail "no kernel.task_delayacct"
	zram_swap
	for _ in $(seq "$WAITS_REPEATS"); do
		for on in 0 1; do
			echo "$on" > /proc/sys/kernel/task_delayacct || fail "cannot set task_delayacct"
			pfprof-bench waits "$WAITS_PAGES" "$WAITS_ROUNDS" "$WAITS_PIPE_LOOPS" ||
				fail "waits with task_delayacct=$on failed"
		done
	done
	echo "$delayacct_was" > /proc/sys/kernel/task_delayacct
	swapoff /dev/zram0 || fail "cannot swapoff zram0"
}

# Section 11, the module loaded: a minor fault with no registration asking
# for latency (the probe on handle_mm_fault not armed), with another
# process's asking (armed, this one not timed) and with its own, in turn.
# debugfs: pfprof-bench checks in the kprobes' list that the probe is armed
# or not as each mode needs.
fault_latency_cost() {
	[ -d /sys/kernel/debug/kprobes ] || mount -t debugfs none /sys/kernel/debug ||
		echo "bench: no debugfs: whether the probe is armed is not checked" >&2
	insmod mp3.ko || fail "cannot load mp3.ko"
	for _ in $(seq "$LATENCY_REPEATS"); do
		for mode in none other self; do
			pfprof-bench latency "$LATENCY_PAGES" "$LATENCY_ROUNDS" "$mode" ||
				fail "latency $mode failed"
		done
	done
	# Nothing asks for latency now: the sampler's next tick disarms the probe.
	sleep 1
	if grep -q handle_mm_fault /sys/kernel/debug/kprobes/list 2>/dev/null; then
		fail "the probe on handle_mm_fault stays armed with nothing registered"
	fi
	rmmod mp3 || fail "cannot unload mp3"
}

# Section 12, the module loaded: pages pushed out and touched again with no
# registration asking for pages (the hooks not armed), another process's
# asking (armed, this one not traced), its own, and bpftrace tracing it
# with the same hooks instead, in turn. debugfs: whether
# the return probe on do_swap_page is armed is checked as for section 11.
swap_trace_cost() {
	[ -d /sys/kernel/debug/kprobes ] || mount -t debugfs none /sys/kernel/debug ||
		echo "bench: no debugfs: whether the hooks are armed is not checked" >&2
	# bpftrace's tracepoint and its maps.
	[ -d /sys/kernel/tracing/events ] || mount -t tracefs none /sys/kernel/tracing ||
		fail "cannot mount tracefs"
	# shellcheck disable=SC3045 # busybox's sh has it: bpftrace's maps are locked memory
	ulimit -l unlimited
	zram_swap
	insmod mp3.ko || fail "cannot load mp3.ko"
	for _ in $(seq "$SWAP_REPEATS"); do
		for mode in none other self bpftrace; do
			pfprof-bench swap "$SWAP_PAGES" "$SWAP_ROUNDS" "$mode" ||
				fail "swap $mode failed"
		done
	done
	rmmod mp3 || fail "cannot unload mp3"
	swapoff /dev/zram0 || fail "cannot swapoff zram0"
}

# refault_in_mode MODE: pfprof-bench refault in MODE, CHARGED_CGROUP
# followed with "charged" for modes cgroup and charged, the process in it
# for charged.
refault_in_mode() {
	case $1 in
	cgroup | charged)
		{ echo "C $(stat -c %i "$CHARGED_CGROUP") $CHARGED_TARGET" > /proc/mp3/status &&
			echo "S $CHARGED_TARGET charged" > /proc/mp3/status; } ||
			fail "cannot follow $CHARGED_CGROUP with charged"
		;;
	esac
	if [ "$1" = charged ]; then
		sh -c 'echo $$ > "$0/cgroup.procs" && exec "$@"' "$CHARGED_CGROUP" \
			pfprof-bench refault "$REFAULT_DIR/data" "$REFAULT_PAGES" "$REFAULT_ROUNDS" "$1"
	else
		pfprof-bench refault "$REFAULT_DIR/data" "$REFAULT_PAGES" "$REFAULT_ROUNDS" "$1"
	fi || fail "refault $1 failed"
	case $1 in
	cgroup | charged)
		echo "X $CHARGED_TARGET" > /proc/mp3/status || fail "cannot unfollow $CHARGED_CGROUP" ;;
	esac
}

# Section 12's file pages read again, the module loaded: a file on ext2 on
# a zram device of its own (the guest's root is in memory, which reclaim
# never drops), whose pages are pushed out and read again with no
# registration asking for pages, another process's asking, its own, another
# cgroup's with "charged" and its own cgroup's with "charged", in turn.
# Whether the probes on filemap_add_folio and __filemap_remove_folio are
# armed is checked as for section 11.
refault_trace_cost() {
	[ -d /sys/kernel/debug/kprobes ] || mount -t debugfs none /sys/kernel/debug ||
		echo "bench: no debugfs: whether the probe is armed is not checked" >&2
	load_modules
	id=$(cat /sys/class/zram-control/hot_add) || fail "cannot add a zram device"
	echo $((64 << 20)) > "/sys/block/zram$id/disksize" || fail "cannot size zram$id"
	mke2fs -q -F -b 4096 "/dev/zram$id" || fail "cannot make ext2 on zram$id"
	mkdir -p "$REFAULT_DIR"
	mount -t ext4 "/dev/zram$id" "$REFAULT_DIR" || fail "cannot mount zram$id"
	dd if=/dev/urandom of="$REFAULT_DIR/data" bs=4096 count="$REFAULT_PAGES" 2>/dev/null ||
		fail "cannot write $REFAULT_DIR/data"
	sync
	grep -qs ' /tmp/cgroup2 cgroup2 ' /proc/mounts ||
		{ mkdir -p /tmp/cgroup2 && mount -t cgroup2 none /tmp/cgroup2; } ||
		fail "cannot mount cgroup2"
	echo +memory > /tmp/cgroup2/cgroup.subtree_control || fail "cannot enable memory cgroups"
	mkdir -p "$CHARGED_CGROUP" || fail "cannot make $CHARGED_CGROUP"
	insmod mp3.ko || fail "cannot load mp3.ko"
	for _ in $(seq "$REFAULT_REPEATS"); do
		for mode in none other self cgroup charged; do
			refault_in_mode "$mode"
		done
	done
	rmmod mp3 || fail "cannot unload mp3"
	umount "$REFAULT_DIR" || fail "cannot unmount $REFAULT_DIR"
}

# The kernel argument pfprof_bench_only=STEP[,STEP...] (bench/run.sh's
# BENCH_ONLY): the instruction-counted run runs only those of its steps
# (busy, pfprofd, faults, waits, latency, sched, swap, forks).
only=$(sed -n 's/.*pfprof_bench_only=\([^ ]*\).*/\1/p' /proc/cmdline)
wanted() {
	case ",${only:-$1}," in
	*",$1,"*) true ;;
	*) false ;;
	esac
}

# The instruction-counted run (bench/run.sh boots this payload a second time,
# one CPU, QEMU -icount, kernel argument pfprof_bench=instructions): a guest
# nanosecond is one instruction, and with one CPU a tick's time is the work
# handler's own. What a busy process costs each sampler, what one
# /proc/PID/stat read costs, pfprofd's instructions per second, and what the
# wakeup probes add to context switches, counted rather than timed by the
# emulator.
instructions_run() {
	if wanted busy; then
		echo "bench: instructions 1/8 a busy process, N = 1000, each sampler" >&2
		insmod mp3.ko || fail "cannot load mp3.ko"
		pfprof-bench cost 1000 5 || fail "cost 1000 failed"
		pfprof-bench sampler 1000 5 10 || fail "sampler=events, 10 busy of 1000, failed"
		reload_module sampler=visit
		pfprof-bench sampler 1000 5 || fail "sampler=visit, 1000 failed"
		pfprof-bench sampler 1000 5 10 || fail "sampler=visit, 10 busy of 1000, failed"
		rmmod mp3 || fail "cannot unload mp3"
	fi
	if wanted pfprofd; then
		echo "bench: instructions 2/8 pfprofd at 20 Hz, 30 s" >&2
		insmod mp3.ko || fail "cannot load mp3.ko"
		pfprofd_start
		pfprof-bench timing 30 "$pfprofd" || fail "timing failed"
		pfprofd_stop
		rmmod mp3 || fail "cannot unload mp3"
	fi
	if wanted faults; then
		echo "bench: instructions 3/8 page faults, registered with maps or not" >&2
		insmod mp3.ko || fail "cannot load mp3.ko"
		for _ in $(seq "$FAULT_REPEATS"); do
			for mode in unregistered registered maps; do
				pfprof-bench faults "$FAULT_PAGES" "$FAULT_ROUNDS" "$mode" ||
					fail "faults $mode failed"
			done
		done
		rmmod mp3 || fail "cannot unload mp3"
	fi
	if wanted waits; then
		echo "bench: instructions 4/8 delay accounting off and on, swap-ins and pipe round trips" >&2
		delay_accounting_cost
	fi
	if wanted latency; then
		echo "bench: instructions 5/8 minor faults, their latency timed or not" >&2
		fault_latency_cost
	fi
	if wanted swap; then
		echo "bench: instructions 6/8 pages sent to swap and back, traced or not" >&2
		swap_trace_cost
		refault_trace_cost
	fi
	if wanted sched; then
		echo "bench: instructions 7/8 context switches, $INSTRUCTION_ROUNDS rounds" >&2
		for _ in $(seq "$INSTRUCTION_ROUNDS"); do
			sched_bench
			insmod mp3.ko || fail "cannot load mp3.ko"
			sched_bench
			sched_beside_registered
			sched_bench tree in_tree
			rmmod mp3 || fail "cannot unload mp3"
		done
	fi
	if wanted forks; then
		echo "bench: instructions 8/8 forks of a tree, with maps or not" >&2
		insmod mp3.ko || fail "cannot load mp3.ko"
		for _ in $(seq "$FORK_REPEATS"); do
			for mode in tree maps; do
				pfprof-bench forks "$COUNTED_FORKS" "$mode" || fail "forks $mode failed"
			done
		done
		rmmod mp3 || fail "cannot unload mp3"
	fi
}
if grep -qw pfprof_bench=instructions /proc/cmdline; then
	echo "guest cpus=$(nproc) kernel=$(uname -r) accel=tcg-icount"
	instructions_run
	exit 0
fi

# Section 7, run first because it loads and unloads the module itself: what
# following process trees costs. While the module follows anything, every
# fork, exit and exec of the system passes its probes: forks of a process the
# module does not follow, with the module unloaded and loaded following
# nothing (no probe attached), alternating; then forks of a
# registered tree, each child followed from its fork to its exit; then forks
# of a process the module does not follow beside full lists of followed
# names and cgroups. Context switches (perf bench sched) without the module,
# with it following those lists, and with IDLE_REGISTERED idle processes
# registered, in the same rounds.
mkdir -p /tmp/cgroup2
mount -t cgroup2 none /tmp/cgroup2 || fail "cannot mount cgroup2"
mkdir -p "$FOLLOWED_CGROUP" || fail "cannot make $FOLLOWED_CGROUP"
for _ in $(seq "$FORK_ROUNDS"); do
	pfprof-bench forks "$FORKS" alone || fail "forks without the module failed"
	sched_bench
	insmod mp3.ko || fail "cannot load mp3.ko"
	pfprof-bench forks "$FORKS" alone || fail "forks beside the module failed"
	pfprof-bench forks "$FORKS" tree || fail "forks of a tree failed"
	follow_groups
	pfprof-bench forks "$FORKS" alone || fail "forks beside followed groups failed"
	sched_bench
	reload_module
	# Unloading dropped them.
	echo "groups names=0 cgroups=0"
	sched_beside_registered
	rmmod mp3 || fail "cannot unload mp3"
done

insmod mp3.ko || fail "cannot load mp3.ko"
echo "guest cpus=$(nproc) mem_kb=$(awk '/MemTotal/ { print $2 }' /proc/meminfo)" \
	"kernel=$(uname -r) accel=tcg clocksource=$(cat /sys/devices/system/clocksource/clocksource0/current_clocksource)"

read -r reference_run < reference
echo "reference $reference_run"
for _ in 1 2 3; do
	# shellcheck disable=SC2086 # the run's words
	pfprof-bench overhead bare 0 work $reference_run | sed 's/^overhead/guest_reference/'
done

# The event sampler (the default) on N idle processes, then the one that
# visits every process with records on and off, reloaded in turn for each N,
# so that all see the guest in the same state; then both on 1000 processes
# of which 10 are busy.
echo "bench: 1/6 sampler and poller cost, N = 1 to 10000, each sampler" >&2
for n in 1 10 100 1000 10000; do
	pfprof-bench cost "$n" 5 || fail "cost $n failed"
	reload_module sampler=visit
	pfprof-bench sampler "$n" 5 || fail "sampler $n with sampler=visit failed"
	reload_module "sampler=visit records=off"
	pfprof-bench sampler "$n" 5 || fail "sampler $n with records=off failed"
	reload_module
done
for sampler in events visit; do
	reload_module "sampler=$sampler"
	pfprof-bench sampler 1000 5 10 || fail "sampler=$sampler, 10 busy of 1000, failed"
done

echo "bench: 2/6 where the visiting sampler's time goes, N = 10000" >&2
reload_module sampler=visit
perf record -q -e cpu-clock -F 2000 -a -g -o /tmp/perf.data -- \
	pfprof-bench sampler 10000 5 >/dev/null || fail "perf record failed"
perf script -i /tmp/perf.data -F ip,sym 2>/dev/null | sampler_profile
# A fresh ring: pfprofd, started next, must not begin with 10000 records a sample.
reload_module

echo "bench: 3/6 timing over 60 s, pfprofd consuming" >&2
pfprofd_start
pfprof-bench timing 60 "$pfprofd" || fail "timing failed"

echo "bench: 4/6 workload overhead, $ROUNDS rounds" >&2
echo "workload $WORKLOAD"
for round in $(seq "$ROUNDS"); do
	overhead_round "$round"
done
pfprofd_stop

echo "bench: 5/6 pfprofd per sample, at 1000 samples/s" >&2
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

echo "bench: 6/6 side by side with prometheus-process-exporter" >&2
ip link set lo up || fail "cannot bring up lo"
insmod mp3.ko || fail "cannot load mp3.ko"
echo "exporter_work $EXPORTER_WORKERS x $EXPORTER_WORK"
workers=""
for _ in $(seq "$EXPORTER_WORKERS"); do
	# shellcheck disable=SC2086 # the workload's words
	$EXPORTER_WORK &
	workers="$workers $!"
done
sleep 1
[ "$(grep -c . /proc/mp3/status)" -eq "$EXPORTER_WORKERS" ] || fail "work did not register"
echo "exporter_procs $(find /proc -maxdepth 1 -name '[0-9]*' | wc -l)"

# pfprof's path: pfprofd writes the file every second, node_exporter's
# textfile collector alone serves it. Beside it process-exporter as Debian
# runs it (smaps and threads on) and with only what the comparison needs.
mkdir -p /tmp/prom
pfprofd_configure "prometheus_dir = /tmp/prom
prometheus_interval = 1s"
pfprofd_start
prometheus-process-exporter -procnames work -web.listen-address=127.0.0.1:9256 \
	>/tmp/process-exporter.log 2>&1 &
process_exporter=$!
prometheus-process-exporter -procnames work -gather-smaps=false -threads=false \
	-web.listen-address=127.0.0.1:9257 >/tmp/process-exporter-minimal.log 2>&1 &
process_exporter_minimal=$!
prometheus-node-exporter --collector.disable-defaults --collector.textfile \
	--collector.textfile.directory=/tmp/prom --web.listen-address=127.0.0.1:9100 \
	>/tmp/node-exporter.log 2>&1 &
node_exporter=$!
for port in 9256 9257 9100; do
	for _ in $(seq 60); do
		wget -q -O /dev/null "http://127.0.0.1:$port/metrics" 2>/dev/null && break
		sleep 0.5
	done
	wget -q -O /dev/null "http://127.0.0.1:$port/metrics" ||
		{ cat /tmp/*exporter*.log; fail "no exporter on port $port"; }
done
# Its first file is due one interval after its start, which the exporters may
# have taken less to answer in; what went wrong is in its stderr (dlog).
for _ in $(seq 30); do
	[ -s /tmp/prom/pfprof.prom ] && break
	sleep 0.2
done
[ -s /tmp/prom/pfprof.prom ] ||
	{ cat /tmp/pfprofd.err; fail "pfprofd wrote no /tmp/prom/pfprof.prom"; }

# What each spends unasked, then each alone scraped every 250 ms.
pfprof-bench cpu "$EXPORTER_IDLE_S" "idle_process-exporter,$process_exporter" \
	"idle_process-exporter-minimal,$process_exporter_minimal" \
	"idle_node-exporter,$node_exporter" || fail "the exporters' CPU time"
faults_pe='namedprocess_namegroup_minor_page_faults_total{groupname="work"}'
for target in "process-exporter,$process_exporter,9256,$faults_pe" \
	"process-exporter-minimal,$process_exporter_minimal,9257,$faults_pe" \
	"node-exporter,$node_exporter,9100,pfprof_minor_faults_total,/tmp/prom/pfprof.prom"; do
	pfprof-bench scrape "$EXPORTER_SCRAPE_S" "$EXPORTER_INTERVAL_MS" "$target" \
		"pfprofd,$pfprofd" || fail "scraping $target failed"
done > /tmp/scrape.txt
cat /tmp/scrape.txt
echo "exporter_file_lines $(grep -c -v '^#' /tmp/prom/pfprof.prom) bytes $(wc -c < /tmp/prom/pfprof.prom)"

# What writing the file costs pfprofd, with its code (libpfprofd.a) on its
# counters: pfprofd's own CPU time varies more from one second to the next
# than the file can cost.
mkdir -p /tmp/prom-bench
pfprof-bench promfile /tmp/prom-bench /tmp/state "$EXPORTER_FILES" || fail "promfile failed"
kill -TERM "$process_exporter" "$process_exporter_minimal" "$node_exporter"
wait "$process_exporter" "$process_exporter_minimal" "$node_exporter"
pfprofd_stop
grep -h -i -E 'error|warn' /tmp/*exporter*.log | head -n 5 | sed 's/^/exporter_log /'
# The same counter in pfprofd's log (every sample) over node_exporter's window.
awk -v window="$(grep '^window name=node-exporter ' /tmp/scrape.txt)" '
BEGIN {
	n = split(window, f, /[ =]/)
	for (i = 1; i < n; i++) {
		if (f[i] == "start_s") start = f[i + 1] + 0
		if (f[i] == "end_s") end = f[i + 1] + 0
	}
}
!/^#/ && $3 + 0 >= start && $3 + 0 < end {
	samples++
	if ($5 > 0) {
		if (changes) {
			gap[changes] = $3 - last
			if (min == "" || $3 - last < min) { min = $3 - last; at = $1 }
		}
		last = $3; changes++
	}
}
END {
	for (i = 2; i < changes; i++)
		for (j = i; j > 1 && gap[j - 1] > gap[j]; j--) { t = gap[j]; gap[j] = gap[j - 1]; gap[j - 1] = t }
	printf "pfprof_log samples=%d changes=%d change_hz=%.3f min_change_ms=%.1f p50_change_ms=%.1f min_at_seq=%s\n",
		samples, changes, changes / (end - start), 1000 * min, 1000 * gap[int(changes / 2)], at
}' /tmp/logs/pfprof.log
# shellcheck disable=SC2086 # the PIDs
kill -TERM $workers
wait

# Section 9: the module's lock behind one long registration.
for n in $LOCKWAIT_THREADS; do
	pfprof-bench lockwait threads "$n" || fail "lockwait threads $n failed"
done
for n in $LOCKWAIT_CHAIN; do
	pfprof-bench lockwait chain "$n" || fail "lockwait chain $n failed"
done
rmmod mp3

