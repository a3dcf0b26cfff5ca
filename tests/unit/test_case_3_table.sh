#!/bin/bash
# Host test of plots/case-3-table.sh, which turns case study 3's raw data
# (plots/case-study-db.sh) into the figures docs/analysis.md quotes and the
# tables its plots are drawn from: a made-up study of two runs and the
# heatmap run, whose every figure is known, and the rows it must give.
# Prints "PASS name" / "FAIL name: reason" and "N passed, N failed".
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=tests/unit/result.sh
. "$here/result.sh"
table=$here/../../plots/case-3-table.sh
dir=$(mktemp -d "${TMPDIR:-/tmp}/pfprof-case-3-test.XXXXXX")
trap 'rm -rf "$dir"' EXIT

# Two runs of 10 s and the heatmap run, which no table counts.
cat > "$dir/runs" <<'EOF'
limit-256 256 1000.0 1010.0
limit-128 128 1020.0 1030.0
heatmap 128 1040.0 1050.0
EOF
echo "guest: 2 CPUs, test" > "$dir/config"
printf 'postgresql 17.0\ndatabase_bytes 1000000\nshared_buffers 128MB\nscale 1\nclients 2\nseconds 10\n' \
	> "$dir/guest.txt"

# pgbench RUN TRANSACTIONS TPS LATENCY: its output, two progress lines first
# (4 s and 6 s after its start, each for the second before it).
pgbench() {
	local start
	start=$(awk -v n="$1" '$1 == n { print $3 }' "$dir/runs")
	{
		echo "pgbench (17.0)"
		awk -v s="$start" -v t="$3" -v l="$4" 'BEGIN {
			printf "progress: %.3f s, %s tps, lat %s ms stddev 1.0, 0 failed\n", s + 4, t, l
			printf "progress: %.3f s, %s tps, lat %s ms stddev 1.0, 0 failed\n", s + 6, t, l }'
		echo "number of transactions actually processed: $2"
		echo "latency average = $4 ms"
		echo "latency stddev = 1.500 ms"
		echo "tps = $3 (without initial connection time)"
	} > "$dir/$1.pgbench"
}
pgbench limit-256 2000 200.000000 10.000
pgbench limit-128 1000 100.000000 20.000
pgbench heatmap 500 50.000000 40.000

# counters RUN PRESSURE_SOME_USEC PSWPIN: before at 0, after at these.
counters() {
	local k
	for k in cg_pgfault cg_pgmajfault cg_workingset_refault_anon cg_workingset_refault_file \
		cg_cpu_usec cg_pressure_full_usec sys_pswpout sys_pgmajfault; do
		echo "before $k 0"
		echo "after $k 100"
	done
	printf 'before cg_pressure_some_usec 0\nafter cg_pressure_some_usec %s\n' "$2"
	printf 'before sys_pswpin 50\nafter sys_pswpin %s\n' "$3"
} > "$dir/$1.counters"
counters limit-256 500000 50
counters limit-128 2000000 1050
counters heatmap 0 0

for run in limit-256 limit-128 heatmap; do
	printf '100 postmaster\n101 pgbench\n102 checkpointer\n103 psql\n' > "$dir/$run.backends"
	echo '{"mappings":[{"name":"/dev/zero (deleted)","kind":"shmem","major_faults":7,"minor_faults":3},
		{"name":"[heap]","kind":"heap","major_faults":0,"minor_faults":9}]}' > "$dir/$run.where.json"
done

# The samples log: 21 columns (PSI unknown, waits in 17 to 21, which the
# table takes from the per-process log); one sample before the runs, two in
# each, one in the heatmap run.
{
	echo "# pfprof log format 3"
	echo "# columns: seq wall_time_s ..."
	for row in "1 999.5 10 1" "2 1003.2 100 4" "3 1008.7 50 6" "4 1025.1 300 500" "5 1029.9 100 300" \
		"6 1045.0 999 999"; do
		read -r seq wall minor major <<< "$row"
		echo "$seq $wall 0 0 $minor $major 10 3 0 0 0 0 0 0 - - 1 2 3 4 5"
	done
} > "$dir/pfprof.log"
# The per-process log (tab-separated): pgbench's backend 101 waits 4 + 2 + 1
# + 1 ms on memory (swap-in, thrashing, reclaim, compaction), 7 ms on
# block I/O and takes 3 + 1 ms in faults in each of its samples; the
# checkpointer's waits count for it only; 999 is no process
# pg_stat_activity showed.
{
	echo "# pfprof per-process log format 4"
	for row in "1003.2 101 60 3" "1003.2 102 40 1" "1008.7 101 50 6" "1025.1 101 200 400" \
		"1025.1 102 100 100" "1029.9 999 100 300" "1045.0 101 999 999"; do
		read -r wall pid minor major <<< "$row"
		printf '%s\t%s\t%s\tpostgres\t%s\t%s\t5\t1\t4\t2\t1\t1\t7\t3\t1\n' 0 "$wall" "$pid" "$minor" "$major"
	done
} > "$dir/pfprof-procs.log"

out=$("$table" "$dir" 2>&1)
status=$?
check table_exits_0 test "$status" -eq 0
# row RUN COLUMN: a column of runs.dat's row of RUN.
row() { awk -v r="$1" -v c="$2" '$1 == r { print $c }' "$dir/runs.dat"; }
# want NAME GOT WANT: the figure is what it must be.
want() { if [ "$2" = "$3" ]; then result "$1" ""; else result "$1" "got '$2', want '$3'"; fi; }

want runs_no_heatmap "$(grep -vc '^#' "$dir/runs.dat")" 2
want tps_from_summary "$(row limit-256 5)" 200.0
want transactions "$(row limit-128 4)" 1000
want latency "$(row limit-128 6)" 20.000
want seconds "$(row limit-256 3)" 10.0
# (4 + 6) major faults in limit-256's 10 s, (500 + 300) in limit-128's.
want major_per_second_in_window "$(row limit-256 9)" 1.0
want major_per_second_second_run "$(row limit-128 9)" 80.0
want minor_per_second "$(row limit-128 8)" 40.0
# 1000 pages swapped in over 10 s; 2 s of 10 stalled.
want swapin_per_second "$(row limit-128 11)" 100.0
want pressure_some_percent "$(row limit-128 13)" 20.00
want pressure_some_percent_first "$(row limit-256 13)" 5.00
# pgbench's backend: 8 ms of memory waits per sample, two samples,
# 2000 transactions; 7 ms of block I/O and 4 ms in faults per sample.
want memwait_per_tx "$(row limit-256 15)" 0.008
want blkio_per_tx "$(row limit-256 16)" 0.007
want fault_time_per_tx "$(row limit-256 17)" 0.004
want memwait_per_tx_second_run "$(row limit-128 15)" 0.008

kinds() { awk -v r="$1" '$1 == r { printf "%s:%s:%s ", $3, $4, $6 }' "$dir/backends.dat"; }
want backends_by_kind_and_major "$(kinds limit-128)" "pgbench:1:400 other:1:300 checkpointer:1:100 "
want backends_first_run "$(kinds limit-256)" "pgbench:1:9 checkpointer:1:1 "

# The timeline: a row per progress line, seconds since the first run's start,
# and the faults of the samples in the second before it.
want timeline_rows "$(grep -vc '^#' "$dir/timeline.dat")" 4
want timeline_first "$(awk '!/^#/ { print; exit }' "$dir/timeline.dat")" "4.000 256 200.000000 10.000 100 4"
want timeline_no_sample "$(awk '!/^#/ && $1 == "6.000"' "$dir/timeline.dat")" "6.000 256 200.000000 10.000 0 0"
want timeline_second_run "$(awk '!/^#/ && $1 == "26.000"' "$dir/timeline.dat")" \
	"26.000 128 100.000000 20.000 300 500"

case $out in
*"limit-128 /dev/zero (deleted) (shmem): 7 major, 3 minor"*) result where_rows "" ;;
*) result where_rows "no where row in: $out" ;;
esac
case $out in
*"[heap] (heap): 0 major"*) result where_rows_without_majors "a row without major faults: $out" ;;
*) result where_rows_without_majors "" ;;
esac
check usage_without_dir bash -c "! '$table' 2>/dev/null"
# A counter missing at one end is an error, not the other end's value.
sed -i '/^before sys_pswpin /d' "$dir/limit-128.counters"
out=$("$table" "$dir" 2>&1)
status=$?
check missing_counter_fails test "$status" -ne 0
case $out in
*"no sys_pswpin before and after limit-128"*) result missing_counter_said "" ;;
*) result missing_counter_said "no message in: $out" ;;
esac
result_end
