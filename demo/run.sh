#!/usr/bin/env bash
# Usage: demo/run.sh   (make demo)
#
# pfprof at work in one command, on a machine that cannot load modules itself:
# installs what it needs (Debian packages: QEMU, gnuplot, a kernel and its
# headers), builds mp3.ko, work and pfprofd, boots that kernel in a QEMU guest
# with swap, loads the module, starts pfprofd and runs the course's case study
# 1b there (work 1024 R 50000 and work 1024 L 10000 at once, niced, the
# handout's 20 iterations with a 1 s pause after each), copies pfprofd's logs
# out, draws demo/pfprof-demo.png and prints a summary. Where the guest's
# kernel has DAMON (Debian 13's 6.12: the default on Debian 13, or
# PFPROF_KERNEL=trixie), pfprofctl heatmap --record watches both processes
# too, and demo/pfprof-demo-heatmap-work3.png and -work4.png show which
# memory each kept using, their fault rates above. Progress goes to the
# terminal stage by stage; the last line says how long it took.
# Environment: CASE_SWAP_MB (2048), the guest's swap; PFPROF_KERNEL,
# PFPROF_CACHE as for plots/case-studies.sh.
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
build=$top/build/demo
started=$SECONDS

echo "demo: case study 1b in a QEMU guest, by plots/case-studies.sh (it installs and builds first)" >&2
rm -rf "$build"
mkdir -p "$build/data" "$build/plots"
CASES=1b DATA=$build/data PLOTS=$build/plots BUILD=$build CASE_SWAP_MB=${CASE_SWAP_MB:-2048} \
	HEATMAPS=1 "$top/plots/case-studies.sh"

echo "demo: drawing demo/pfprof-demo.png" >&2
log=$build/data/case_1_work_3_4
gnuplot -e "log='$log.log'; times='$log.times'; procs='$log.procs'; brief=1" \
	-e "out='$top/demo/pfprof-demo.png'; config='$(cat "$build/data/case_1.config")'" \
	-e "title='pfprof demo, the course case study 1b: work 1024 R 50000 (work3) and work 1024 L 10000 (work4) together'" \
	"$top/plots/case_1.gp"
# The heatmaps, with each process's fault rates from the per-process log.
heatmaps=()
mkdir -p "$build/heatmap-logs"
ln -sf "$log.procs" "$build/heatmap-logs/pfprof-procs.log"
echo "log_dir = $build/heatmap-logs" > "$build/heatmap.conf"
for label in work3 work4; do
	[ -f "$log.heatmap-$label.log" ] || continue
	echo "demo: drawing demo/pfprof-demo-heatmap-$label.png" >&2
	"$top/pfprofctl/pfprofctl" -c "$build/heatmap.conf" heatmap \
		-o "$top/demo/pfprof-demo-heatmap-$label.png" "$log.heatmap-$label.log" >/dev/null
	heatmaps+=("$top/demo/pfprof-demo-heatmap-$label.png")
done
echo
echo "pfprof demo: case study 1b, as pfprofd logged it (raw data: $build/data/)"
# The table's heading and the system-wide swap line add nothing here.
"$top/plots/case-1-table.sh" "$build/data" | grep -v -e '^== ' -e '^pswpin '
echo
echo "plot: $top/demo/pfprof-demo.png"
if ((${#heatmaps[@]})); then
	echo "heatmaps (DAMON): ${heatmaps[*]}"
else
	echo "no heatmaps: the guest's kernel has no DAMON (PFPROF_KERNEL=trixie boots one that has)"
fi
echo "demo: done in $((SECONDS - started)) s" >&2
