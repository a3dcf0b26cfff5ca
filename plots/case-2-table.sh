#!/bin/sh
# Usage: plots/case-2-table.sh DATA_DIR
#
# One line per case_2_n<N>.log/.times/.vmstat set in DATA_DIR, sorted by N:
#   N wall_s cpu_s utilisation_pct mean_completion_s max_completion_s minor major failed
#   pswpin pswpout psi_some_mean
# wall_s: first start to last end of the N work processes; cpu_s: their CPU
# time summed from the log (column 7, cpu_ms); utilisation_pct: cpu_s / wall_s
# in % of one CPU; completion: each process's end - start; minor, major: the
# faults summed from the log; failed: processes whose exit status was not 0;
# pswpin, pswpout: the system's pages swapped in and out over the experiment
# (.vmstat); psi_some_mean: the mean of the log's psi_some_avg10 (column 15,
# log format 2), "-" without it.
set -eu
[ $# -eq 1 ] || { sed -n '2s/^# //p' "$0" >&2; exit 64; }
echo "# N wall_s cpu_s utilisation_pct mean_completion_s max_completion_s minor major failed" \
	"pswpin pswpout psi_some_mean"
for times in "$1"/case_2_n*.times; do
	[ -e "$times" ] || continue
	log=${times%.times}.log
	n=${times##*_n}
	n=${n%.times}
	awk -v n="$n" '
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
		!/^#/ {
			cpu += $7; minor += $5; major += $6
			if (NF >= 15 && $15 != "-") { psi += $15; psi_n++ }
		}
		END {
			wall = last - first
			printf "%d %.2f %.2f %.1f %.2f %.2f %d %d %d %d %d %s\n", n, wall, cpu / 1000,
				100 * cpu / 1000 / wall, sum / procs, max, minor, major, failed,
				swap["pswpin"], swap["pswpout"],
				psi_n ? sprintf("%.2f", psi / psi_n) : "-"
		}' "$times" "$log" "${times%.times}.vmstat"
done | sort -n
