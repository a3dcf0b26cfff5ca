#!/bin/bash
# Case study 3, inside the Debian 13 systemd guest (plots/case-study-db.sh
# boots it; it runs as the image's pfprof-test.service, tests/vm/rootfs.sh
# --postgresql): PostgreSQL under a memory limit stepped down, as an
# administrator would watch it with pfprof.
#
# pfprof is installed from the source tree in /mnt/host/src as the README
# says (make install dkms-install), pfprofd started by systemd; swap is
# /dev/vdb. `pfprofctl add --unit --maps --latency --pages` the cluster's unit, start
# it, let pgbench -i build a database of scale SCALE, then, for each limit of
# LIMITS in turn (systemctl set-property --runtime MemoryMax=, on the running
# cluster), one pgbench run of SECONDS s with CLIENTS clients. Then one more
# run at HEATMAP_LIMIT while pfprofctl heatmap --record watches a client's
# backend and the checkpointer. The settings come from the file "settings"
# in the share (shell assignments).
#
# Out, to /mnt/host/out: pfprofd's logs (pfprof*.log); per run NAME
# (limit-<MB> or heatmap): NAME.pgbench (pgbench's output: per-second
# progress with Unix times, then its summary), NAME.counters (the unit's
# cgroup and the system's counters before and after: "before|after KEY
# VALUE"), NAME.where.json (pfprofctl where --unit --last SECONDS --json),
# NAME.memory.json (pfprofctl memory --unit --last SECONDS --json: the memory
# the run's pages read back say the unit was short of), NAME.files.json
# (pfprofctl memory --files: the files the unit read again), NAME.pages.log (the
# pages log when the run at SWAP_VIEW_LIMIT ended),
# NAME.backends ("pid kind" of every process pg_stat_activity showed during
# the run, and the postmaster: its backend_type, or a client backend's
# application, pgbench or psql); runs ("NAME limit_mb start end" in Unix
# time); heatmap-backend.log and heatmap-checkpointer.log; pfprofd's pages
# and memory logs, and the targets file (their targets' names); guest.txt
# (what ran, and where); relations ("inode name" of the database's files).
# Reports to /dev/ttyS1 in boot.sh's format.
set -uo pipefail

share=/mnt/host
out=$share/out
# shellcheck source=/dev/null # written by plots/case-study-db.sh
. "$share/settings"
: "${SCALE:?}" "${LIMITS:?}" "${SECONDS_PER_RUN:?}" "${CLIENTS:?}" "${HEATMAP_LIMIT:?}"
: "${SWAP_VIEW_LIMIT:?}"

report() {
	{
		echo "=== PAYLOAD OUTPUT ==="
		cat /tmp/case-study-db.out 2>/dev/null
		echo "=== DMESG ==="
		dmesg
		echo "=== END ==="
		echo "RESULT rc=$1"
	} > /dev/ttyS1
}
say() { echo "case-study-db: $*" | tee -a /tmp/case-study-db.out; }
fail() { say "FAILED: $*"; report 1; exit 1; }
as_postgres() { runuser -u postgres -- "$@"; }
sql() { as_postgres psql -X -Atq -F ' ' -d postgres -c "$1"; }

version=$(ls /etc/postgresql)
unit=postgresql@$version-main.service
cg=/sys/fs/cgroup/system.slice/system-postgresql.slice/$unit
db=pgbench

# counters LABEL: the unit's memory and CPU, its memory stalls (µs) and the
# system's swap traffic (pages), as "LABEL KEY VALUE" lines.
counters() {
	awk -v l="$1" '$1 ~ /^(pgfault|pgmajfault|workingset_refault_anon|workingset_refault_file|pswpin|pswpout)$/ {
		print l, "cg_" $1, $2 }' "$cg/memory.stat" &&
		awk -v l="$1" '$1 == "usage_usec" { print l, "cg_cpu_usec", $2 }' "$cg/cpu.stat" &&
		awk -v l="$1" '{ sub("total=", "", $5); print l, "cg_pressure_" $1 "_usec", $5 }' \
			"$cg/memory.pressure" &&
		awk -v l="$1" '$1 ~ /^(pswpin|pswpout|pgmajfault)$/ { print l, "sys_" $1, $2 }' /proc/vmstat
}

# watch_backends FILE: every 10 s, the cluster's processes and their kind
# (pg_stat_activity's backend_type; a client's backend by its application:
# pgbench, or psql for these queries themselves), until killed. Each query
# is a connection, so a backend forked: seldom, so that they weigh little.
watch_backends() {
	echo "$(systemctl show -p MainPID --value "$unit") postmaster" > "$1"
	while :; do
		sql "SELECT pid, replace(CASE backend_type WHEN 'client backend'
			THEN coalesce(nullif(application_name, ''), 'client') ELSE backend_type END, ' ', '_')
			FROM pg_stat_activity" >> "$1" 2>/dev/null
		sleep 10
	done
}

# bench NAME LIMIT_MB: one pgbench run under MemoryMax=LIMIT_MB.
bench() {
	local name=$1 limit=$2 watcher start
	systemctl set-property --runtime "$unit" "MemoryMax=${limit}M" ||
		fail "cannot set MemoryMax=${limit}M on $unit"
	say "$name: MemoryMax=${limit}M, pgbench -c $CLIENTS for $SECONDS_PER_RUN s"
	counters before > "$out/$name.counters" || fail "$name: cannot read the counters"
	watch_backends "$out/$name.backends.raw" &
	watcher=$!
	start=$(date +%s.%N)
	as_postgres pgbench -c "$CLIENTS" -j 2 -T "$SECONDS_PER_RUN" -P 1 --progress-timestamp "$db" \
		> "$out/$name.pgbench" 2>&1 || fail "$name: pgbench failed: $(tail -n 3 "$out/$name.pgbench")"
	echo "$name $limit $start $(date +%s.%N)" >> "$out/runs"
	kill "$watcher"
	wait "$watcher" 2>/dev/null
	counters after >> "$out/$name.counters" || fail "$name: cannot read the counters"
	sort -u "$out/$name.backends.raw" > "$out/$name.backends" && rm -f "$out/$name.backends.raw"
	# pfprofd writes a batch every second: the run's last samples first.
	sleep 2
	pfprofctl where --unit "$unit" --last "$SECONDS_PER_RUN" --json > "$out/$name.where.json" ||
		fail "$name: pfprofctl where failed"
	# What pfprof estimates the unit short of, from this run's pages read back alone.
	pfprofctl memory --unit "$unit" --last "$SECONDS_PER_RUN" --json > "$out/$name.memory.json" ||
		echo '{"owners":[]}' > "$out/$name.memory.json"
	# Which files the unit read again after reclaim dropped their pages, this run.
	pfprofctl memory --files --unit "$unit" --last "$SECONDS_PER_RUN" --json \
		> "$out/$name.files.json" || echo '{"files":[]}' > "$out/$name.files.json"
	# The pages out when the run ended, for the swap-device view of that moment.
	[ "$limit" != "$SWAP_VIEW_LIMIT" ] || cp /var/log/pfprof/pfprof-pages.log "$out/$name.pages.log" ||
		fail "$name: cannot copy the pages log"
	say "$name: $(grep -E '^(tps|latency average)' "$out/$name.pgbench" | paste -sd ' ')"
}

# relation_files: "inode name" of every file of the database's relations
# (their forks and segments: pgbench_accounts, pgbench_accounts_fsm,
# pgbench_accounts.1), which the files the unit read again name by inode.
relation_files() {
	local data path relname f
	data=$(sql 'SHOW data_directory') || return 1
	as_postgres psql -X -Atq -F ' ' -d "$db" -c "SELECT pg_relation_filepath(oid), relname
		FROM pg_class WHERE pg_relation_filepath(oid) IS NOT NULL" |
		while read -r path relname; do
			for f in "$data/$path" "$data/$path".* "$data/$path"_*; do
				[ -f "$f" ] || continue
				echo "$(stat -c %i "$f") $relname${f#"$data/$path"}"
			done
		done
}

# pid_of KIND: a process of the cluster of that pg_stat_activity kind.
pid_of() { sql "SELECT pid FROM pg_stat_activity WHERE backend_type = '$1' ORDER BY pid LIMIT 1"; }
# pgbench_client: the backend of one of pgbench's clients, once all are
# connected (the connection pgbench opens first to check the tables closes).
pgbench_client() {
	sql "SELECT min(pid) FROM pg_stat_activity WHERE application_name = 'pgbench'
		HAVING count(*) >= $CLIENTS"
}

# record_heatmaps: once pgbench's clients are connected, DAMON on one of
# their backends and on the checkpointer until the run ends; their PIDs to
# /tmp/heatmap.pids. In the background, beside the run: says what failed in
# /tmp/heatmap.out and returns non-zero, never ends the study itself.
record_heatmaps() {
	local client='' checkpointer
	for _ in $(seq 50); do
		client=$(pgbench_client)
		[ -n "$client" ] && break
		sleep 0.2
	done
	checkpointer=$(pid_of checkpointer)
	if [ -z "$client" ] || [ -z "$checkpointer" ]; then
		echo "no client backend ($client) or checkpointer ($checkpointer)" > /tmp/heatmap.out
		return 1
	fi
	echo "$client $checkpointer" > /tmp/heatmap.pids
	pfprofctl heatmap --record --seconds $((SECONDS_PER_RUN - 5)) --take-damon "$client" "$checkpointer" \
		> /tmp/heatmap.out 2>&1
}

# heatmap_run: one more run, while DAMON watches a client's backend and the checkpointer.
heatmap_run() {
	local recorder client checkpointer
	[ -d /sys/kernel/mm/damon/admin ] || { say "no DAMON in this kernel: no heatmaps"; return; }
	record_heatmaps &
	recorder=$!
	bench heatmap "$HEATMAP_LIMIT"
	wait "$recorder" || fail "heatmap: $(tail -n 3 /tmp/heatmap.out)"
	read -r client checkpointer < /tmp/heatmap.pids
	say "heatmap: DAMON watched backend $client and checkpointer $checkpointer"
	cp "/var/log/pfprof/heatmap-$client.log" "$out/heatmap-backend.log" ||
		fail "heatmap: no log of backend $client"
	cp "/var/log/pfprof/heatmap-$checkpointer.log" "$out/heatmap-checkpointer.log" ||
		fail "heatmap: no log of checkpointer $checkpointer"
}

rm -rf "$out"
mkdir -p "$out" || fail "cannot write to the share"
: > /tmp/case-study-db.out

mkswap /dev/vdb > /dev/null || fail "mkswap /dev/vdb failed"
swapon /dev/vdb || fail "swapon /dev/vdb failed"
say "installing pfprof from source as the README says (make install dkms-install)"
make -C "$share/src" install dkms-install > /tmp/install.log 2>&1 ||
	fail "make install dkms-install: $(tail -n 5 /tmp/install.log)"
modprobe mp3 || fail "modprobe mp3 failed"
# One file per log for the whole study: nothing rotated away.
printf 'rotate_size = 0\nrotate_age = 0\n' >> /etc/pfprof/pfprofd.conf
systemctl start pfprofd || fail "pfprofd did not start"

pfprofctl add --unit --maps --latency --pages "$unit" || fail "pfprofctl add --unit $unit failed"
systemctl start "$unit" || fail "$unit did not start"
# A checkpoint in every run, not one in five minutes.
sql "ALTER SYSTEM SET checkpoint_timeout = '1min'" || fail "cannot set checkpoint_timeout"
sql "SELECT pg_reload_conf()" > /dev/null || fail "cannot reload the configuration"
say "pgbench -i -s $SCALE (PostgreSQL $version)"
as_postgres createdb "$db" || fail "createdb failed"
as_postgres pgbench -i -q -s "$SCALE" "$db" > "$out/init.pgbench" 2>&1 ||
	fail "pgbench -i failed: $(tail -n 3 "$out/init.pgbench")"
say "database: $(sql "SELECT pg_size_pretty(pg_database_size('$db'))")"
{
	echo "postgresql $(sql 'SHOW server_version')"
	echo "database_bytes $(sql "SELECT pg_database_size('$db')")"
	echo "shared_buffers $(sql 'SHOW shared_buffers')"
	echo "scale $SCALE"
	echo "clients $CLIENTS"
	echo "seconds $SECONDS_PER_RUN"
	echo "cpus $(nproc)"
	echo "mem_total_kb $(awk '$1 == "MemTotal:" { print $2 }' /proc/meminfo)"
	echo "swap_kb $(awk '$1 == "SwapTotal:" { print $2 }' /proc/meminfo)"
	echo "kernel $(uname -r)"
	echo "unit $unit"
} > "$out/guest.txt"

for limit in $LIMITS; do
	bench "limit-$limit" "$limit"
done
heatmap_run
relation_files > "$out/relations" || fail "cannot name the database's files"

systemctl stop "$unit"
systemctl stop pfprofd
cp /var/log/pfprof/pfprof.log /var/log/pfprof/pfprof-procs.log /var/log/pfprof/pfprof-faults.log \
	/var/log/pfprof/pfprof-pages.log /var/log/pfprof/pfprof-memory.log "$out/" ||
	fail "cannot copy pfprofd's logs"
# The targets file (pfprofd.conf's targets_file, the default here): the logs' target numbers' names.
cp /var/lib/pfprof/pids "$out/targets" || fail "cannot copy the targets file"
say "done"
report 0
