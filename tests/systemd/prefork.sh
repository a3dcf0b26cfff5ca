#!/bin/bash
# The systemd guest test's forking service (pfprof-prefork.service): for
# every line written to the FIFO $1, the parent forks $3 workers, each the
# course's work program ($2) touching a known number of pages of its own,
# waits for them and writes "<round> done" to $1.state. Between rounds it
# waits in read: no fault and no CPU of its own, so that the test can compare
# the unit's counters over whole rounds.
set -u
fifo=$1 work=$2 workers=$3 round=0

[ -p "$fifo" ] || mkfifo "$fifo"
# Read-write: the open does not wait for a writer, and read waits for lines.
exec 3<>"$fifo"
while read -r _ <&3; do
	round=$((round + 1))
	for ((i = 0; i < workers; i++)); do
		# 20 000 random accesses to 16 MiB: nearly all of its 4096 pages.
		"$work" -q --no-register --sleep-ms 50 -n 20 -s "$i" 16 R 1000 &
	done
	echo "$round forked" > "$fifo.state"
	wait
	echo "$round done" > "$fifo.state"
done
