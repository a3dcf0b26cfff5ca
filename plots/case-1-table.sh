#!/bin/sh
# Usage: plots/case-1-table.sh DATA_DIR
#
# The figures of case 1 that docs/analysis.md quotes, one block per
# case_1_*.log/.times/.vmstat set in DATA_DIR: each process's completion time,
# the faults and CPU time summed from the log, the mean and peak fault rates
# (peak: the largest sum over 20 consecutive samples, i.e. 1 s), when the
# first major fault came and how many minor faults (4 KiB pages) preceded it, the CPU
# utilisation (% of one CPU) over the whole run, and the system's swap
# traffic (pages) from /proc/vmstat. With the per-process log (.procs) and the
# PIDs in .times: each process's own faults and CPU time; with log format 2:
# the memory pressure (PSI some avg10) over the run, mean and peak; with
# format 3 and delay accounting on: the time lost waiting, in all and per
# process.
set -eu
[ $# -eq 1 ] || { sed -n '2s/^# //p' "$0" >&2; exit 64; }
for log in "$1"/case_1_*.log; do
	[ -e "$log" ] || continue
	# A process's heatmap log (make demo) goes with its experiment's set.
	case $log in *.heatmap-*.log) continue ;; esac
	base=${log%.log}
	echo "== ${base##*/}"
	awk '{ printf "%s: %.2f s (exit status %s)\n", $1, $3 - $2, $4 }' "$base.times"
	awk 'FNR == NR {
			if (first == "" || $2 < first) first = $2
			if ($3 > last) last = $3
			next
		}
		!/^#/ {
			n++; minor += $5; major += $6; cpu += $7
			if (major && first_major == "") { first_major = $3 - first; minor_before = minor - $5 }
			m[n % 20] = $5; j[n % 20] = $6
			wm = 0; wj = 0
			for (i = 0; i < 20; i++) { wm += m[i]; wj += j[i] }
			if (wm > peak_minor) peak_minor = wm
			if (wj > peak_major) peak_major = wj
			if (NF >= 15 && $15 != "-") { psi += $15; psi_n++; if ($15 > psi_peak) psi_peak = $15 }
			if (NF >= 21 && $17 != "-") {
				waits_n++; swapin += $17; thrash += $18; reclaim += $19; compact += $20; blkio += $21
			}
		}
		END {
			wall = last - first
			printf "wall: %.1f s, %d samples\n", wall, n
			printf "minor: %d (%.0f/s mean, %d/s peak)\n", minor, minor / wall, peak_minor
			printf "major: %d (%.0f/s mean, %d/s peak)\n", major, major / wall, peak_major
			if (first_major != "")
				printf "first major fault: %.1f s after the start, after %d minor faults (%.0f MiB)\n",
					first_major, minor_before, minor_before * 4 / 1024
			printf "cpu: %.1f s, %.0f %% of one CPU\n", cpu / 1000, 100 * cpu / 1000 / wall
			if (psi_n)
				printf "memory pressure, PSI some avg10: %.1f %% mean, %.1f %% peak\n",
					psi / psi_n, psi_peak
			if (waits_n)
				printf "time lost waiting (%d of %d samples known): memory stall %.1f s (swap-in %.1f, thrashing %.1f, reclaim %.1f, compaction %.1f), block I/O %.1f s\n",
					waits_n, n, (swapin + thrash + reclaim + compact) / 1000, swapin / 1000,
					thrash / 1000, reclaim / 1000, compact / 1000, blkio / 1000
		}' "$base.times" "$log"
	awk '{ printf "%s %s%s", $1, $2, NR % 4 ? ", " : "\n" }' "$base.vmstat"
	[ -e "$base.procs" ] || continue
	awk -F'\t' '
		FNR == NR { split($0, f, " "); if (f[5] != "") label[f[5]] = f[1]; next }
		!/^#/ && ($3 in label) {
			minor[$3] += $5; major[$3] += $6; cpu[$3] += $7
			if (NF >= 13 && $9 != "-") { known[$3] = 1; stall[$3] += $9 + $10 + $11 + $12; io[$3] += $13 }
		}
		END {
			for (p in label) {
				printf "%s (PID %s): minor %d, major %d, cpu %.1f s", label[p], p,
					minor[p], major[p], cpu[p] / 1000
				if (known[p])
					printf ", memory stall %.1f s, block I/O %.1f s", stall[p] / 1000, io[p] / 1000
				printf "\n"
			}
		}' "$base.times" "$base.procs"
done
