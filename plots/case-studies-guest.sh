#!/bin/sh
# The case studies, inside the guest (plots/case-studies.sh boots it): swap on
# /dev/vda, results to the 9p share "host". Each experiment starts with empty
# swap and page cache and a freshly loaded module, and runs under its own
# pfprofd, whose logs are copied out as <name>.log and <name>.procs (the
# per-process log); every work process's start and end (seconds since boot,
# /proc/uptime) go to <name>.times as "label start end exit_status pid"; the
# system's swap and fault counters over the
# experiment to <name>.vmstat; where the kernel has DAMON, each process's
# heatmap log (pfprofctl heatmap --record, all of them at once) to
# <name>.heatmap-<label>.log if HEATMAPS (file "heatmaps") is not empty
# (DAMON's kdamonds take CPU beside the work processes they watch: not in
# the committed data). CASES (file "cases"): which experiments;
# N_LIST (file "n-list"): the N of case 2; SERIES (file "series"): case 2's
# series, "paced" (the handout's work: 20 iterations, 1 s pause after each)
# and/or "cpu" (no pause); RUNS (file "runs"): runs of each N of a series.
cd /t || exit 1
PATH=/t:$PATH
out=/mnt

fail() { echo "case-studies: $*"; exit 1; }
now() { read -r up _ < /proc/uptime; echo "$up"; }

while read -r _ ko; do insmod "/t$ko" 2>/dev/null; done < load-modules
mkswap /dev/vda >/dev/null || fail "mkswap /dev/vda failed"
swapon /dev/vda || fail "swapon /dev/vda failed"
mount -t 9p -o trans=virtio,version=9p2000.L host "$out" || fail "cannot mount the 9p share"

# shellcheck source=tests/vm/guest-pfprofd.sh # in the payload, next to this
. ./guest-pfprofd.sh
# Delay accounting on, as pfprofd installed turns it on: the logs get the time lost waiting.
pfprofd_configure "rotate_size = 0
rotate_age = 0
delay_accounting = on"

# A clean start for each experiment: nothing left in swap or the page cache.
settle() {
	swapoff /dev/vda || fail "swapoff /dev/vda failed"
	swapon /dev/vda || fail "swapon /dev/vda failed"
	sync
	echo 3 > /proc/sys/vm/drop_caches
}

# A fresh module for each experiment: its ring, and so the log, starts empty.
# System-wide counters: pages swapped in and out, faults (all processes).
vmstat_now() { grep -E '^(pswpin|pswpout|pgfault|pgmajfault) ' /proc/vmstat; }
vmstat_delta() { vmstat_now | awk 'FNR == NR { before[$1] = $2; next }
	{ print $1, $2 - before[$1] }' "$1" -; }

start_collector() {
	insmod mp3.ko || fail "cannot load mp3.ko"
	if [ -s pages ]; then
		# As an administrator would ask for it: every process named work.
		pfprofd_start "pages comm work"
	else
		pfprofd_start
	fi
}

# stop_collector NAME: pfprofd writes everything on SIGTERM; its logs go out.
stop_collector() {
	pfprofd_stop
	cp /tmp/logs/pfprof.log "$out/$1.log" || fail "cannot copy the log of $1"
	cp /tmp/logs/pfprof-procs.log "$out/$1.procs" || fail "cannot copy the per-process log of $1"
	if [ -s pages ]; then
		cp /tmp/logs/pfprof-pages.log "$out/$1.pages.log" ||
			fail "cannot copy the pages log of $1"
	fi
	rmmod mp3 || fail "cannot unload mp3"
}

# timed TIMES LABEL ARGS...: a niced work process, timed. Like the handout's
# `nice ./work ARGS &`, it registers itself; --register makes that a must.
timed() {
	times=$1 label=$2
	shift 2
	(
		start=$(now)
		# busybox has no nice(1): the shell renices itself, then becomes work,
		# keeping its PID, which names the process in the per-process log.
		# shellcheck disable=SC2016 # $$ and $@ belong to that shell
		sh -c 'echo $$ > "$0" && renice -n 10 -p $$ >/dev/null &&
			exec work --register --quiet "$@"' "/tmp/$label.pid" "$@"
		rc=$?
		echo "$label $start $(now) $rc $(cat "/tmp/$label.pid")" >> "$times"
	) &
}

# report_progress NAME COUNT TIMES: a line every 15 s until COUNT processes
# have written their line to TIMES (kill -0 cannot tell: zombies answer it).
report_progress() {
	name=$1 count=$2 started=$(now) ticks=0
	while :; do
		done_count=0
		[ -f "$3" ] && done_count=$(wc -l < "$3")
		[ "$done_count" -ge "$count" ] && return
		sleep 1
		ticks=$((ticks + 1))
		[ $((ticks % 15)) -eq 0 ] || continue
		echo "case-studies: $name: $(awk -v a="$started" -v b="$(now)" 'BEGIN { printf "%.0f", b - a }') s," \
			"$done_count of $count done," \
			"$(vmstat_delta /tmp/vmstat.before | awk '$1 == "pgmajfault" { print $2 }') major faults"
	done
}

# wait_work_pid LABEL: the PID of LABEL's work process, once it is work
# (its shell wrote the PID, then execs): a heatmap's log names its process.
wait_work_pid() {
	for _ in $(seq 100); do
		if [ -s "/tmp/$1.pid" ]; then
			pid=$(cat "/tmp/$1.pid")
			read -r comm < "/proc/$pid/comm" 2>/dev/null
			[ "$comm" = work ] && { echo "$pid"; return; }
		fi
		sleep 0.1
	done
	fail "$1: no work process after 10 s"
}

# start_heatmaps "LABEL ARGS" ...: if asked (file "heatmaps") and the
# kernel has DAMON, every work process recorded into its heatmap log, all
# by one pfprofctl in the background ($recorder); $recorded: LABEL:PID ...
start_heatmaps() {
	recorder='' recorded='' work_pids=''
	[ -s heatmaps ] && [ -d /sys/kernel/mm/damon/admin ] || return 0
	for spec in "$@"; do
		pid=$(wait_work_pid "${spec%% *}")
		recorded="$recorded ${spec%% *}:$pid"
		work_pids="$work_pids $pid"
	done
	# shellcheck disable=SC2086 # a list of PIDs
	pfprofctl -c /tmp/pfprofd.conf heatmap --record --take-damon $work_pids \
		> /tmp/heatmap.out 2>&1 &
	recorder=$!
}

# stop_heatmaps NAME: the recording ends with the processes; the logs go out.
stop_heatmaps() {
	[ -n "$recorder" ] || return 0
	wait "$recorder" || { cat /tmp/heatmap.out; fail "$1: pfprofctl heatmap --record failed"; }
	for pair in $recorded; do
		cp "/tmp/logs/heatmap-${pair#*:}.log" "$out/$1.heatmap-${pair%%:*}.log" ||
			fail "cannot copy the heatmap log of ${pair%%:*}"
	done
}

# experiment NAME "LABEL ARGS" ...: runs the work processes together.
experiment() {
	name=$1
	shift
	settle
	start_collector
	vmstat_now > /tmp/vmstat.before
	rm -f "/tmp/$name.times"
	pids=
	for spec in "$@"; do
		# shellcheck disable=SC2086 # a spec is a label and work's arguments
		timed "/tmp/$name.times" $spec
		pids="$pids $!"
	done
	echo "case-studies: $name: $# work processes started at $(now) s"
	start_heatmaps "$@"
	report_progress "$name" "$#" "/tmp/$name.times"
	# shellcheck disable=SC2086 # a list of PIDs
	wait $pids
	stop_heatmaps "$name"
	stop_collector "$name"
	cp "/tmp/$name.times" "$out/$name.times"
	awk '$4 != 0 { print "case-studies: " $1 " exited with status " $4; bad = 1 }
		END { exit bad }' "/tmp/$name.times" || fail "$name: a work process failed"
	grep -qv '^#' "$out/$name.log" || fail "$name: no sample logged"
	vmstat_delta /tmp/vmstat.before > "$out/$name.vmstat"
	echo "case-studies: $name: done at $(now) s; $(grep -vc '^#' "$out/$name.log") samples;" \
		"$(tr '\n' ' ' < "$out/$name.vmstat")"
}

# case_2 SERIES [WORK_OPTION]: for each N, RUNS runs of N copies of
# `work 200 R 10000` at once.
case_2() {
	series=$1 option=${2:-}
	read -r n_list < n-list
	read -r run_count < runs
	for run in $(seq "$run_count"); do
		for n in $n_list; do
			specs=
			for i in $(seq "$n"); do specs="$specs|work$i $option 200 R 10000"; done
			IFS='|'
			# shellcheck disable=SC2086 # the specs, split at '|'
			set -- ${specs#|}
			unset IFS
			experiment "case_2_${series}_n${n}_r$run" "$@"
		done
	done
}

{
	echo "cpus $(nproc)"
	echo "kernel $(uname -r)"
	awk '/MemTotal|SwapTotal/ { print $1, $2, $3 }' /proc/meminfo
} > "$out/guest.txt"
echo "case-studies: guest: $(tr '\n' ' ' < "$out/guest.txt")"

read -r case_list < cases
for c in $case_list; do
	case $c in
	1a) experiment case_1_work_1_2 "work1 1024 R 50000" "work2 1024 R 10000" ;;
	1b) experiment case_1_work_3_4 "work3 1024 R 50000" "work4 1024 L 10000" ;;
	2)
		read -r series_list < series
		for series in $series_list; do
			case $series in
			paced) case_2 paced ;;
			cpu) case_2 cpu "--pause 0" ;;
			*) fail "unknown case 2 series $series" ;;
			esac
		done
		;;
	*) fail "unknown case $c" ;;
	esac
done
umount "$out"
