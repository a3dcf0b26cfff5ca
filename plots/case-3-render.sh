#!/bin/bash
# Usage: plots/case-3-render.sh DATA_DIR PLOTS_DIR
#
# Draws case study 3 (plots/case-study-db.sh) from its raw data in DATA_DIR:
# PLOTS_DIR/case_3.png (a point per pgbench run against its MemoryMax),
# case_3_timeline.png (every second of the runs) and, where the guest
# recorded them, case_3_heatmap_backend.png and case_3_heatmap_checkpointer.png
# (pfprofctl heatmap, with the process's fault rates from the per-process
# log in DATA_DIR). Prints the tables of plots/case-3-table.sh.
set -euo pipefail
[ $# -eq 2 ] || { sed -n '2s/^# //p' "$0" >&2; exit 64; }
top=$(cd "$(dirname "$0")/.." && pwd)
data=$1 plots=$2
command -v gnuplot > /dev/null || { echo "case-3-render: gnuplot is not installed" >&2; exit 1; }
[ -f "$data/runs" ] || { echo "case-3-render: no case study 3 data in $data (plots/case-study-db.sh)" >&2; exit 1; }

"$top/plots/case-3-table.sh" "$data"
config=$(cat "$data/config")
setup=$(awk '{ v[$1] = $2 } END { printf "pgbench run: %d clients, %d s, scale %d (%.0f MB database), shared_buffers %s",
	v["clients"], v["seconds"], v["scale"], v["database_bytes"] / 1e6, v["shared_buffers"] }' "$data/guest.txt")
mkdir -p "$plots"
gnuplot -e "runs='$data/runs.dat'; out='$plots/case_3.png'; config='$config'; setup='$setup'" \
	"$top/plots/case_3.gp"
# A mark at each run's first second, with its MemoryMax.
marks=$(mktemp)
trap 'rm -f "$marks"' EXIT
awk '!/^#/ && $2 != limit { limit = $2
		printf "set arrow from %s, graph 0 to %s, graph 1 nohead lc rgb \"gray40\" dt 2\n", $1, $1
		printf "set label \"MemoryMax=%dM\" at %s, graph 0.03 left rotate by 90 offset 1, 0 front\n", $2, $1 }' \
	"$data/timeline.dat" > "$marks"
gnuplot -e "timeline='$data/timeline.dat'; marks='$marks'" \
	-e "out='$plots/case_3_timeline.png'; config='$config; $setup'" "$top/plots/case_3_timeline.gp"

# pfprofctl heatmap finds the per-process log in its configuration's log_dir.
make -s -C "$top/pfprofctl"
conf=$(mktemp)
trap 'rm -f "$marks" "$conf"' EXIT
echo "log_dir = $(cd "$data" && pwd)" > "$conf"
for who in backend checkpointer; do
	[ -f "$data/heatmap-$who.log" ] || continue
	"$top/pfprofctl/pfprofctl" -c "$conf" heatmap -o "$plots/case_3_heatmap_$who.png" \
		"$data/heatmap-$who.log" > /dev/null
done
echo "case-3-render: plots in $plots/ from the data in $data/" >&2
