#!/bin/bash
# Usage: plots/case-3-table.sh DATA_DIR
#
# The figures of case study 3 (plots/case-study-db.sh) that docs/analysis.md
# quotes, from the raw data in DATA_DIR, as tables on stdout; and the tables
# the plots are drawn from, written to DATA_DIR:
#   runs.dat      a row per pgbench run under a MemoryMax (the heatmap run
#                 left out: DAMON's own work is in it)
#   backends.dat  a row per run and kind of PostgreSQL process
#   timeline.dat  a row per second of the runs: pgbench's transactions and
#                 latency, the unit's faults from pfprofd's samples log
# Every figure of a run comes from the samples whose wall time falls between
# its pgbench's start and end: pfprofd's logs for faults, CPU and the time
# lost (delay accounting's waits, the latency probe's fault times); the
# cgroup's memory.pressure and the system's swap counters before and after;
# pgbench's own summary for throughput and latency.
set -euo pipefail
[ $# -eq 1 ] || { sed -n '2s/^# //p' "$0" >&2; exit 64; }
dir=$1

# window NAME: the run's start and end, Unix seconds.
window() { awk -v n="$1" '$1 == n { print $3, $4 }' "$dir/runs"; }
# summary NAME KEY: a figure of pgbench's summary ("tps = 123.4 (...)",
# "number of transactions actually processed: 15053").
summary() {
	awk -v k="$2" 'index($0, k " = ") == 1 || index($0, k ": ") == 1 {
		sub(/^[^=:]*[=:] /, ""); print $1 + 0 }' "$dir/$1.pgbench"
}
# deltas NAME: the changes over the run of the counters the tables use, in
# this order: sys_pswpin sys_pswpout cg_pressure_some_usec
# cg_pressure_full_usec cg_workingset_refault_anon cg_workingset_refault_file.
# Fails, naming it, if one is missing at either end.
deltas() {
	awk -v run="$1" '{ v[$1, $2] = $3 }
		END {
			n = split("sys_pswpin sys_pswpout cg_pressure_some_usec cg_pressure_full_usec " \
				"cg_workingset_refault_anon cg_workingset_refault_file", keys, " ")
			for (i = 1; i <= n; i++) {
				if (!(("before", keys[i]) in v) || !(("after", keys[i]) in v)) {
					printf "case-3-table: no %s before and after %s\n", keys[i], run > "/dev/stderr"
					exit 1
				}
				line = line (i > 1 ? " " : "") (v["after", keys[i]] - v["before", keys[i]])
			}
			print line
		}' "$dir/$1.counters"
}

# samples START END: the unit's minor faults, major faults and cpu_ms, summed.
samples() {
	awk -v s="$1" -v e="$2" '!/^#/ && $2 > s && $2 <= e { minor += $5; major += $6; cpu += $7 }
		END { print minor + 0, major + 0, cpu + 0 }' "$dir/pfprof.log"
}

# backends NAME START END: per kind of process, from the per-process log:
# kind processes minor major cpu_ms memwait_ms blkio_ms fault_time_ms
# (memwait: swap-in, thrashing, reclaim and compaction)
backends() {
	awk -v s="$2" -v e="$3" 'FILENAME == ARGV[2] { kind[$1] = $2; next }
		!/^#/ && $2 > s && $2 <= e {
			k = ($3 in kind) ? kind[$3] : "other"
			if (!(($3, k) in seen)) { seen[$3, k] = 1; procs[k]++ }
			minor[k] += $5; major[k] += $6; cpu[k] += $7
			if ($9 != "-") { wait[k] += $9 + $10 + $11 + $12; blkio[k] += $13 }
			if ($14 != "-") ftime[k] += $14 + $15
		}
		END { for (k in procs) printf "%s %d %d %d %d %.1f %.1f %.1f\n", k, procs[k],
			minor[k], major[k], cpu[k], wait[k], blkio[k], ftime[k] }' \
		FS=' ' "$dir/$1.backends" FS='\t' "$dir/pfprof-procs.log" | sort -k4,4nr -k3,3nr
}

runs=$(awk '$1 != "heatmap" { print $1 }' "$dir/runs")
pgbench_outputs=()
for run in $runs; do pgbench_outputs+=("$dir/$run.pgbench"); done
{
	echo "# name limit_mb seconds transactions tps latency_ms latency_stddev_ms minor_per_s" \
		"major_per_s cpu_percent swapin_pages_per_s swapout_pages_per_s pressure_some_percent" \
		"pressure_full_percent client_memwait_ms_per_tx client_blkio_ms_per_tx client_fault_ms_per_tx" \
		"refault_anon_per_s refault_file_per_s"
	for run in $runs; do
		read -r start end < <(window "$run")
		read -r minor major cpu < <(samples "$start" "$end")
		read -r _ _ _ _ _ memwait blkio ftime < <(backends "$run" "$start" "$end" |
			awk '$1 == "pgbench" { print; n++ } END { if (!n) print "pgbench", 0, 0, 0, 0, 0, 0, 0 }')
		counters=$(deltas "$run") || exit 1
		read -r pswpin pswpout some full ranon rfile <<< "$counters"
		awk -v name="$run" -v limit="$(awk -v n="$run" '$1 == n { print $2 }' "$dir/runs")" \
			-v s="$start" -v e="$end" -v tx="$(summary "$run" "number of transactions actually processed")" \
			-v tps="$(summary "$run" tps)" -v lat="$(summary "$run" "latency average")" \
			-v sd="$(summary "$run" "latency stddev")" -v minor="$minor" -v major="$major" -v cpu="$cpu" \
			-v pswpin="$pswpin" -v pswpout="$pswpout" -v some="$some" -v full="$full" \
			-v memwait="${memwait:-0}" -v blkio="${blkio:-0}" -v ftime="${ftime:-0}" \
			-v ranon="$ranon" -v rfile="$rfile" \
			'BEGIN { d = e - s
				printf "%s %d %.1f %d %.1f %.3f %.3f %.1f %.1f %.1f %.1f %.1f %.2f %.2f %.3f %.3f %.3f %.1f %.1f\n",
					name, limit, d, tx, tps, lat, sd, minor / d, major / d, cpu / d / 10,
					pswpin / d, pswpout / d, some / d / 1e4, full / d / 1e4,
					memwait / tx, blkio / tx, ftime / tx, ranon / d, rfile / d }'
	done
} > "$dir/runs.dat"

{
	echo "# name limit_mb kind processes minor_faults major_faults cpu_ms memwait_ms blkio_ms fault_time_ms"
	for run in $runs; do
		read -r start end < <(window "$run")
		backends "$run" "$start" "$end" |
			sed "s/^/$run $(awk -v n="$run" '$1 == n { print $2 }' "$dir/runs") /"
	done
} > "$dir/backends.dat"

# A second of each run a row: seconds since the first run began, the
# second's tps and latency (pgbench -P 1 prints them at its end), the unit's
# faults in the samples pfprofd logged in that second. Both come in time order.
{
	echo "# seconds limit_mb tps latency_ms minor_faults major_faults"
	awk 'FILENAME ~ /runs$/ { if ($1 != "heatmap") { limit[$1] = $2; if (t0 == "" || $3 < t0) t0 = $3 }; next }
		FILENAME ~ /pfprof.log$/ { if (!/^#/) { n++; at[n] = $2; minor[n] = $5; major[n] = $6 }; next }
		/^progress: / {
			run = FILENAME; sub(/.*\//, "", run); sub(/\.pgbench$/, "", run)
			if (!(run in limit)) next
			while (i < n && at[i + 1] <= $2 - 1) i++
			mi = 0; ma = 0
			for (j = i + 1; j <= n && at[j] <= $2; j++) { mi += minor[j]; ma += major[j] }
			printf "%.3f %d %s %s %d %d\n", $2 - t0, limit[run], $4, $7, mi, ma
		}' "$dir/runs" "$dir/pfprof.log" "${pgbench_outputs[@]}"
} > "$dir/timeline.dat"

echo "== case study 3: $(cat "$dir/config")"
awk '{ printf "%s %s\n", $1, $2 }' "$dir/guest.txt" | grep -E '^(postgresql|database_bytes|shared_buffers|scale|clients|seconds) ' |
	paste -sd ';' | sed 's/;/; /g'
echo
echo "== per run (MemoryMax stepped down; the times per transaction are pgbench's backends' own, ms)"
awk 'NR == 1 { next }
	BEGIN { printf "%-9s %7s %7s %8s %8s %9s %9s %9s %8s %8s %8s %8s %8s\n", "MemoryMax", "tps",
		"lat_ms", "minor/s", "major/s", "swapin/s", "swpout/s", "psi_some", "psi_full",
		"rfile/s", "mwait/tx", "blkio/tx", "fault/tx" }
	{ printf "%-9s %7.1f %7.2f %8.1f %8.1f %9.1f %9.1f %8.2f%% %7.2f%% %8.1f %8.3f %8.3f %8.3f\n", $2 "M",
		$5, $6, $8, $9, $11, $12, $13, $14, $19, $15, $16, $17 }' "$dir/runs.dat"
echo
echo "== per kind of process (faults, CPU ms, waits and fault time ms over each run)"
awk 'NR == 1 { printf "%-9s %-22s %5s %9s %8s %8s %9s %9s %9s\n", "MemoryMax", "kind", "procs",
		"minor", "major", "cpu_ms", "memwait", "blkio", "faulttime"; next }
	{ printf "%-9s %-22s %5d %9d %8d %8d %9.1f %9.1f %9.1f\n", $2 "M", $3, $4, $5, $6, $7, $8, $9, $10 }' \
	"$dir/backends.dat"
echo
echo "== where the unit's major faults were, per run (pfprofctl where --unit --last, first four)"
for run in $runs; do
	jq -r --arg run "$run" '.mappings | sort_by(-.major_faults) | .[:4][] | select(.major_faults > 0) |
		"\($run) \(.name) (\(.kind)): \(.major_faults) major, \(.minor_faults) minor"' "$dir/$run.where.json"
done
