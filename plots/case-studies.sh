#!/usr/bin/env bash
# Usage: plots/case-studies.sh [--render-only]
#
# `make case-studies`: boots Debian's kernel in QEMU with a swap disk, runs the
# case studies there (plots/case-studies-guest.sh) under pfprofd, copies the
# raw data to plots/data/ and renders plots/case_1_work_1_2.png,
# plots/case_1_work_3_4.png and plots/case_2.png from it. Case 1 and case 2
# each get their own boot, with their own memory size. --render-only renders
# the data in plots/data/ again without running anything.
# Environment (the defaults are the configuration of the committed data):
#   CASE1_MEM_MB (1024), CASE2_MEM_MB (2048), CASE_SWAP_MB (8192),
#   CASE_SMP (2): the guests
#   CASES ("1 2"; "1b" alone for case 1b), N_LIST ("1 5 11 16 20 22"): what
#     to run
#   DATA (plots/data), PLOTS (plots): where the raw data and the plots go
#   SERIES ("paced"): case 2's series, paced (the handout's work, a 1 s pause
#     after each iteration) and/or cpu (no pause, CPU-bound); a series run
#     replaces that series' data only
#   RUNS (3): runs of each N of case 2
#   HEATMAPS (empty): if set, and the kernel has DAMON, each work process's
#     heatmap log too, as <experiment>.heatmap-<label>.log (make demo)
#   CASE_PAGES (empty): if set, pfprofd follows the work processes' pages
#     too (the targets line "pages comm work"), and each experiment's pages
#     log is kept as <experiment>.pages.log
#   PFPROF_KERNEL: the guests' kernel, one of tests/check.sh's (default: the
#     host's release's, bookworm or trixie)
#   PFPROF_CACHE, BUILD: as for tests/check.sh
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=tests/lib/kernels.sh
. "$top/tests/lib/kernels.sh"
build=${BUILD:-$top/build}/case-studies
data=${DATA:-$top/plots/data}
plots=${PLOTS:-$top/plots}
swap=${CASE_SWAP_MB:-8192}
smp=${CASE_SMP:-2}
cases=${CASES:-1 2}
n_list=${N_LIST:-1 5 11 16 20 22}
series=${SERIES:-paced}
runs=${RUNS:-3}

case_1_title() {
	case $1 in
	1_2) echo "case 1a: work 1024 R 50000 (work1) and work 1024 R 10000 (work2), together, nice 10, 1 s pauses (the handout)" ;;
	3_4) echo "case 1b: work 1024 R 50000 (work3) and work 1024 L 10000 (work4), together, nice 10, 1 s pauses (the handout)" ;;
	esac
}

render() {
	command -v gnuplot >/dev/null || { echo "case-studies: gnuplot is not installed" >&2; exit 1; }
	local pair
	for pair in 1_2 3_4; do
		[ -f "$data/case_1_work_$pair.log" ] || continue
		gnuplot -e "log='$data/case_1_work_$pair.log'; times='$data/case_1_work_$pair.times'" \
			-e "procs='$data/case_1_work_$pair.procs'" \
			-e "out='$plots/case_1_work_$pair.png'; config='$(cat "$data/case_1.config")'" \
			-e "title='$(case_1_title "$pair")'" "$top/plots/case_1.gp"
	done
	if [ -f "$data/case_2.config" ]; then
		for s in paced cpu; do
			"$top/plots/case-2-table.sh" "$data" "$s" > "$data/case_2_$s.dat"
		done
		gnuplot -e "paced='$data/case_2_paced.dat'; cpu='$data/case_2_cpu.dat'" \
			-e "out='$plots/case_2.png'; config='$(cat "$data/case_2.config")'" \
			"$top/plots/case_2.gp"
	fi
	echo "case-studies: plots in $plots/ from the data in $data/" >&2
}

# replace_data CASE: deletes the data in plots/data/ that a run of CASE replaces.
replace_data() {
	local s
	case $1 in
	1) rm -f -- "$data"/case_1[._]* ;;
	1b) rm -f -- "$data"/case_1_work_3_4.* ;;
	2) for s in $series; do rm -f -- "$data/case_2_${s}_"*; done ;;
	esac
}

# run_case CASE MEM_MB GUEST_CASES: one boot; its data replaces CASE's in
# plots/data/ once all of it is there.
run_case() {
	local name=${1%b} mem=$2 guest_cases=$3 dir=$build/case_${1%b} cpus
	rm -rf "$dir"
	mkdir -p "$dir/payload" "$dir/share" "$dir/log" "$dir/out"
	install -m 0644 "$build/module/module/mp3.ko" "$dir/payload/"
	install -m 0755 "$top/tools/work" "$top/daemon/pfprofd" "$top/pfprofctl/pfprofctl" \
		"$dir/payload/"
	install -m 0755 "$top/plots/case-studies-guest.sh" "$dir/payload/run"
	install -m 0644 "$top/tests/vm/guest-pfprofd.sh" "$dir/payload/"
	echo "$guest_cases" > "$dir/payload/cases"
	echo "$n_list" > "$dir/payload/n-list"
	echo "$series" > "$dir/payload/series"
	echo "$runs" > "$dir/payload/runs"
	echo "${HEATMAPS:-}" > "$dir/payload/heatmaps"
	echo "${CASE_PAGES:-}" > "$dir/payload/pages"
	"$top/tests/vm/kmods.sh" -d "$KERNEL_ROOT" "$KVER" "$dir/payload" virtio_pci virtio_blk 9pnet_virtio 9p
	truncate -s "${swap}M" "$dir/swap.img"
	"$top/tests/vm/mkinitramfs.sh" "$dir/guest.cpio" "$dir/payload"

	echo "case-studies: case $1: guest ${mem} MiB RAM, ${swap} MiB swap, $smp CPUs," \
		"kernel $KVER" >&2
	"$top/tests/vm/boot.sh" --mem "$mem" --smp "$smp" --timeout 7200 --drive "$dir/swap.img" \
		--share "$dir/share" "$vmlinux" "$dir/guest.cpio" "$dir/log"
	rm -f "$dir/swap.img"

	# The heatmap logs (case_*.heatmap-*.log) with the logs, where there are any.
	cp "$dir"/share/case_*.log "$dir"/share/case_*.procs "$dir"/share/case_*.times \
		"$dir"/share/case_*.vmstat "$dir/out/"
	cp "$dir/share/guest.txt" "$dir/out/case_$name.guest"
	cpus=$(awk '$1 == "cpus" { print $2 }' "$dir/share/guest.txt")
	echo "guest: $cpus CPUs, ${mem} MiB RAM, ${swap} MiB swap on a virtio disk," \
		"Linux $KVER, QEMU TCG" > "$dir/out/case_$name.config"
	mkdir -p "$data"
	replace_data "$1"
	cp "$dir"/out/* "$data/"
}

case ${1:-} in
--render-only) render; exit 0 ;;
"") ;;
*) sed -n '2s/^# //p' "$0" >&2; exit 64 ;;
esac

echo "case-studies: installing what is missing (QEMU, gnuplot, compilers)," \
	"fetching a kernel into ${PFPROF_CACHE:-/var/cache/pfprof-test}" >&2
"$top/tests/vm/prepare-host.sh" --guests
kernel_prepare "${PFPROF_KERNEL:-$(host_kernel)}"
echo "case-studies: building mp3.ko for Linux $KVER, work, pfprofd and pfprofctl" >&2
module_build "$build/module"
make -s -C "$top/tools" STATIC=1
make -s -C "$top/daemon"
make -s -C "$top/pfprofctl"
vmlinux=$("$top/tests/vm/vmlinux.sh" "$KVER" "$KERNEL_IMAGE")

for c in $cases; do
	case $c in
	1) run_case 1 "${CASE1_MEM_MB:-1024}" "1a 1b" ;;
	1b) run_case 1b "${CASE1_MEM_MB:-1024}" "1b" ;;
	2) run_case 2 "${CASE2_MEM_MB:-2048}" "2" ;;
	*) echo "case-studies: unknown case $c (1, 1b or 2)" >&2; exit 64 ;;
	esac
done
render
