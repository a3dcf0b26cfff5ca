#!/bin/sh
# Usage: plots/case-2-table.sh [--runs] DATA_DIR SERIES
#
# Case 2's results for one series (paced or cpu) from the
# case_2_<SERIES>_n<N>_r<RUN>.log/.times/.vmstat sets in DATA_DIR.
# With --runs, one line per run, sorted by N and run:
#   N run wall_s cpu_s utilisation_pct mean_completion_s max_completion_s
#   minor major failed pswpin pswpout psi_some_mean stall_s
# wall_s: first start to last end of the N work processes; cpu_s: their CPU
# time summed from the log (column 7, cpu_ms); utilisation_pct: cpu_s / wall_s
# in % of one CPU; completion: each process's end - start; minor, major: the
# faults summed from the log; failed: processes whose exit status was not 0;
# pswpin, pswpout: the system's pages swapped in and out over the run
# (.vmstat); psi_some_mean: the mean of the log's psi_some_avg10 (column 15,
# log format 2), "-" without it; stall_s: the time the N processes lost to
# memory stalls, in s, their threads' waits added: the log's swapin_ms,
# thrashing_ms, reclaim_ms and compact_ms (columns 17-20, log format 3; not
# blkio_ms, which holds the I/O of the swap-ins again) summed over the run,
# "-" when the log is of an older format or a sample's waits are "-"
# (delay accounting off).
# Without --runs, one line per N over its runs, the median and range of each:
#   N runs utilisation_pct (median min max) wall_s (median min max)
#   max_completion_s (median min max) cpu_s major pswpin psi_some_mean
#   (medians) failed (summed) stall_s (median) stall_per_process_s
#   (median min max) mean_completion_s (median) stall_share_pct (median)
# stall_per_process_s: stall_s / N; stall_share_pct: stall_s over the N
# processes' completion times added, in %; the stall columns are "-" when
# no run of that N has stall_s.
set -eu
runs_only=0
[ "${1:-}" = --runs ] && { runs_only=1; shift; }
[ $# -eq 2 ] || { sed -n '2s/^# //p' "$0" >&2; exit 64; }
dir=$1 series=$2

each_run() {
	for times in "$dir/case_2_${series}"_n*_r*.times; do
		[ -e "$times" ] || continue
		base=${times%.times}
		n_run=${base##*_n}
		awk -v n="${n_run%_r*}" -v run="${n_run#*_r}" '
			FILENAME ~ /\.vmstat$/ { swap[$1] = $2; next }
			FNR == NR {
				if ($2 < first || first == "") first = $2
				if ($3 > last) last = $3
				sum += $3 - $2
				if ($3 - $2 > max) max = $3 - $2
				failed += ($4 != 0)
				procs++
				next
			}
			FNR == 1 && /^# pfprof log format / { format = $5 }
			!/^#/ {
				cpu += $7; minor += $5; major += $6
				if (NF >= 15 && $15 != "-") { psi += $15; psi_n++ }
				if (NF < 20 || $17 == "-" || $18 == "-" || $19 == "-" || $20 == "-")
					stall_unknown = 1
				else
					stall += $17 + $18 + $19 + $20
			}
			END {
				wall = last - first
				printf "%d %d %.2f %.2f %.1f %.2f %.2f %d %d %d %d %d %s %s\n", n, run,
					wall, cpu / 1000, 100 * cpu / 1000 / wall, sum / procs, max,
					minor, major, failed, swap["pswpin"], swap["pswpout"],
					psi_n ? sprintf("%.2f", psi / psi_n) : "-",
					(format >= 3 && !stall_unknown) ? sprintf("%.2f", stall / 1000) : "-"
			}' "$times" "$base.log" "$base.vmstat"
	done | sort -n -k1,1 -k2,2
}

if [ "$runs_only" = 1 ]; then
	echo "# N run wall_s cpu_s utilisation_pct mean_completion_s max_completion_s minor major" \
		"failed pswpin pswpout psi_some_mean stall_s"
	each_run
	exit 0
fi

echo "# N runs utilisation_pct_median utilisation_pct_min utilisation_pct_max wall_s_median" \
	"wall_s_min wall_s_max max_completion_s_median max_completion_s_min max_completion_s_max" \
	"cpu_s_median major_median pswpin_median psi_some_mean_median failed stall_s_median" \
	"stall_per_process_s_median stall_per_process_s_min stall_per_process_s_max" \
	"mean_completion_s_median stall_share_pct_median"
each_run | awk '
	function median(column,    i, j, t, v, k) {
		k = 0
		for (i = 1; i <= count; i++) v[++k] = value[i, column]
		for (i = 2; i <= k; i++)
			for (j = i; j > 1 && v[j - 1] > v[j]; j--) { t = v[j]; v[j] = v[j - 1]; v[j - 1] = t }
		return k % 2 ? v[(k + 1) / 2] : (v[k / 2] + v[k / 2 + 1]) / 2
	}
	function low(column,    i, m) {
		m = value[1, column]
		for (i = 2; i <= count; i++) if (value[i, column] < m) m = value[i, column]
		return m
	}
	function high(column,    i, m) {
		m = value[1, column]
		for (i = 2; i <= count; i++) if (value[i, column] > m) m = value[i, column]
		return m
	}
	function flush(    psi, stall) {
		if (!count) return
		psi = value[1, 13] == "-" ? "-" : sprintf("%.2f", median(13))
		# The stall columns over the runs that have stall_s (all or none, as a
		# series is run at once).
		stall = "- - - - - -"
		if (stalled == count)
			stall = sprintf("%.2f %.2f %.2f %.2f %.2f %.1f", median(14), median(15),
				low(15), high(15), median(6), median(16))
		printf "%d %d %.1f %.1f %.1f %.2f %.2f %.2f %.2f %.2f %.2f %.2f %.0f %.0f %s %d %s\n",
			n, count, median(5), low(5), high(5), median(3), low(3), high(3),
			median(7), low(7), high(7), median(4), median(9), median(11), psi, failed,
			stall
		count = failed = stalled = 0
	}
	$1 != n { flush(); n = $1 }
	{
		count++
		for (c = 1; c <= NF; c++) value[count, c] = $c
		failed += $10
		# 15: stall_s per process; 16: stall_s over the completion times added.
		if ($14 != "-") {
			stalled++
			value[count, 15] = $14 / $1
			value[count, 16] = $6 > 0 ? 100 * $14 / ($6 * $1) : 0
		}
	}
	END { flush() }'
