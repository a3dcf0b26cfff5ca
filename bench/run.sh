#!/usr/bin/env bash
# Usage: bench/run.sh
#
# `make bench`: boots Debian's kernel in QEMU (2 CPUs, 2 GiB, TCG) with the
# module, pfprofd, work, pfprof-bench, perf, pidstat, strace and Debian 12's
# prometheus-process-exporter and prometheus-node-exporter (their packages
# fetched with apt-get download and unpacked, not installed, cached under
# PFPROF_CACHE), runs bench/guest.sh there, prints the results and writes them to
# bench/results.md (bench/report.sh), with how long the run took.
# Environment: PFPROF_KERNEL as for plots/case-studies.sh; PFPROF_CACHE, BUILD
# as for tests/check.sh. BENCH_ONLY=STEP[,STEP...]: boots only the
# instruction-counted guest and runs only those of its steps (busy, pfprofd,
# faults, waits, latency, swap, sched, forks: bench/guest.sh, instructions_run), a few
# minutes instead of half an hour; their output goes to
# bench/raw/guest-only.txt, whose figures bench/report.sh puts in place of
# the last full run's (the next full run removes the file).
set -euo pipefail

[[ $# -eq 0 ]] || { sed -n '2s/^# //p' "$0" >&2; exit 64; }
only=${BENCH_ONLY:-}
[[ -z "$only" || "$only" =~ ^[a-z]+(,[a-z]+)*$ ]] ||
	{ echo "bench: BENCH_ONLY=$only: steps separated by commas" >&2; exit 64; }
top=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=tests/lib/kernels.sh
. "$top/tests/lib/kernels.sh"
build=${BUILD:-$top/build}/bench
reference_run=(--quiet --no-register --pause 0 -n 5 16 L 2000000)

# bpftrace: section 12 traces the same swap events with it, beside the module.
"$top/tests/vm/prepare-host.sh" --guests linux-perf sysstat strace bpftrace
kernel_prepare "${PFPROF_KERNEL:-$(host_kernel)}"
# The exporters section 6 runs beside pfprof: Debian's builds (Go programs
# that need only libc, which mkinitramfs.sh copies), downloaded once.
exporters=${PFPROF_CACHE:-/var/cache/pfprof-test}/bench-exporters
exporter_packages=(prometheus-process-exporter prometheus-node-exporter)
mkdir -p "$exporters"
[[ -n "$only" ]] && exporter_packages=()
for p in "${exporter_packages[@]}"; do
	compgen -G "$exporters/${p}_*.deb" >/dev/null && continue
	echo "bench: downloading $p" >&2
	# Into a scratch directory first: a partial download is never taken for a package.
	scratch=$(mktemp -d "$exporters/.download.XXXXXX")
	host_apt_update
	(cd "$scratch" && apt-get -q -o APT::Sandbox::User=root download "$p" </dev/null >&2)
	mv "$scratch"/"${p}"_*.deb "$exporters/"
	rmdir "$scratch"
done

rm -rf "$build"
module_build "$build/module"
make -s -C "$top/tools" STATIC=1
make -s -C "$top/daemon"
make -s -C "$top/bench"

mkdir -p "$build/payload" "$build/log"
install -m 0644 "$build/module/module/mp3.ko" "$build/payload/"
install -m 0755 "$top/tools/work" "$top/daemon/pfprofd" "$top/bench/pfprof-bench" \
	"$(command -v perf)" "$(command -v pidstat)" "$(command -v strace)" \
	"$(command -v bpftrace)" "$build/payload/"
exporter_versions=()
for p in "${exporter_packages[@]}"; do
	deb=$(compgen -G "$exporters/${p}_*.deb" | sort -V | tail -n 1)
	dpkg-deb -x "$deb" "$build/exporters"
	exporter_versions+=("$(basename "$deb" .deb)")
	install -m 0755 "$build/exporters/usr/bin/$p" "$build/payload/"
done
install -m 0755 "$top/bench/guest.sh" "$build/payload/run"
# zram, the swap device of section 10's swap-ins, and ext4, for section 12's
# file (load-modules: in the payload's directory).
if [ -n "$KERNEL_ROOT" ]; then
	"$top/tests/vm/kmods.sh" -d "$KERNEL_ROOT" "$KVER" "$build/payload" zram ext4
fi
install -m 0644 "$top/tests/vm/guest-pfprofd.sh" "$build/payload/"
vmlinux=$("$top/tests/vm/vmlinux.sh" "$KVER" "$KERNEL_IMAGE")
"$top/tests/vm/mkinitramfs.sh" "$build/bench.cpio" "$build/payload"

# The instruction-counted guest: bench/guest.sh, instructions_run.
boot_counted() {
	echo "bench: guest 1 CPU, 2048 MiB, kernel $KVER, QEMU TCG counting instructions${only:+, only $only}" >&2
	"$top/tests/vm/boot.sh" --mem 2048 --smp 1 --icount --timeout 1800 \
		--append "tsc=reliable pfprof_bench=instructions${only:+ pfprof_bench_only=$only}" \
		"$vmlinux" "$build/bench.cpio" "$build/log-instructions"
}
report() {
	"$top/bench/report.sh" "$top/bench/raw/guest-output.txt" "$top/bench/raw/guest-instructions.txt" \
		"$top/bench/raw/host.txt" "$@" > "$top/bench/results.md"
	cat "$top/bench/results.md"
	"$top/bench/figures.sh" --update
}
if [[ -n "$only" ]]; then
	boot_counted
	{
		echo "commit $(git -C "$top" describe --always --dirty 2>/dev/null || echo unknown)"
		echo "date $(date -u '+%Y-%m-%dT%H:%MZ')"
		echo "only $only"
		cat "$build/log-instructions/payload.txt"
	} > "$top/bench/raw/guest-only.txt"
	# bench/report.sh bench/raw/guest-output.txt bench/raw/guest-instructions.txt bench/raw/host.txt bench/raw/guest-only.txt
	report "$top/bench/raw/guest-only.txt"
	echo "bench: steps $only written to bench/raw/guest-only.txt, bench/results.md, its figures to README.md and docs/" >&2
	exit 0
fi

# The same CPU-bound run on the host and in the guest: how much slower the
# emulated CPU is, to read the guest's absolute times with.
for _ in 1 2 3; do
	"$top/bench/pfprof-bench" overhead bare 0 "$top/tools/work" "${reference_run[@]}"
done | sed 's/^overhead/host_reference/' > "$build/host-reference.txt"
{
	echo "commit $(git -C "$top" describe --always --dirty 2>/dev/null || echo unknown)"
	echo "date $(date -u '+%Y-%m-%dT%H:%MZ')"
	echo "exporters ${exporter_versions[*]}"
} >> "$build/host-reference.txt"
echo "${reference_run[*]}" > "$build/payload/reference"

# The exporters scraped on the host too, as in the guest (10 s each, every
# 250 ms, four work processes; node_exporter serving a file of the size of
# pfprofd's): how much slower emulation makes them than C code.
host_exporters() {
	local bin=$build/exporters/usr/bin dir=$build/host-prom workers=() exporters=() t
	local faults='namedprocess_namegroup_minor_page_faults_total{groupname="work"}'
	local targets=("process-exporter,%,19256,$faults" "process-exporter-minimal,%,19257,$faults"
		"node-exporter,%,19100,pfprof_minor_faults_total,$dir/pfprof.prom")
	mkdir -p "$dir"
	{
		for i in $(seq 25); do
			echo "# HELP pfprof_bench_$i A line of the size of pfprofd's."
			echo "pfprof_bench_$i{pid=\"$i\",comm=\"work\"} $((i * 1000))"
		done
		echo "pfprof_minor_faults_total 1"
	} > "$dir/pfprof.prom"
	for _ in 1 2 3 4; do
		"$top/tools/work" --quiet --no-register --pause 0.02 -n 1000000 256 L 320 &
		workers+=($!)
	done
	"$bin/prometheus-process-exporter" -procnames work -web.listen-address=127.0.0.1:19256 \
		>/dev/null 2>&1 &
	exporters+=($!)
	"$bin/prometheus-process-exporter" -procnames work -gather-smaps=false -threads=false \
		-web.listen-address=127.0.0.1:19257 >/dev/null 2>&1 &
	exporters+=($!)
	"$bin/prometheus-node-exporter" --collector.disable-defaults --collector.textfile \
		--collector.textfile.directory="$dir" --web.listen-address=127.0.0.1:19100 \
		>/dev/null 2>&1 &
	exporters+=($!)
	sleep 2
	echo "host_procs $(find /proc -maxdepth 1 -name '[0-9]*' | wc -l)"
	for i in 0 1 2; do
		t=${targets[i]/\%/${exporters[i]}}
		"$top/bench/pfprof-bench" scrape 1 250 "$t" >/dev/null 2>&1 ||
			{ sleep 2; "$top/bench/pfprof-bench" scrape 1 250 "$t" >/dev/null; } &&
			"$top/bench/pfprof-bench" scrape 10 250 "$t" | sed 's/^/host_/' ||
			echo "bench: scraping ${t%%,*} on the host failed" >&2
	done
	kill "${exporters[@]}" "${workers[@]}" 2>/dev/null
	wait "${exporters[@]}" "${workers[@]}" 2>/dev/null || true
}
echo "bench: the exporters on the host, 30 s" >&2
host_exporters >> "$build/host-reference.txt"

echo "host_load_before $(cut -d' ' -f1-3 /proc/loadavg)" >> "$build/host-reference.txt"
# tsc=reliable: under TCG the vCPUs' TSCs all follow the host's clock, but the
# kernel's synchronisation check fails on emulation jitter and falls back to
# the HPET, whose every read is an emulated device access and which has no
# vDSO: clock_gettime() would be a system call, as on no real machine.
echo "bench: guest 2 CPUs, 2048 MiB, kernel $KVER, QEMU TCG, tsc=reliable" >&2
"$top/tests/vm/boot.sh" --mem 2048 --smp 2 --timeout 1800 --append tsc=reliable \
	"$vmlinux" "$build/bench.cpio" "$build/log"
# The same payload counting instructions.
boot_counted

{
	echo "host_load_after $(cut -d' ' -f1-3 /proc/loadavg)"
	echo "run_seconds $SECONDS"
} >> "$build/host-reference.txt"

# The raw figures are kept beside the results, which they regenerate:
# bench/report.sh bench/raw/guest-output.txt bench/raw/guest-instructions.txt bench/raw/host.txt
mkdir -p "$top/bench/raw"
cp "$build/log/payload.txt" "$top/bench/raw/guest-output.txt"
cp "$build/log-instructions/payload.txt" "$top/bench/raw/guest-instructions.txt"
cp "$build/host-reference.txt" "$top/bench/raw/host.txt"
# A full run has every step: an earlier run of some alone is superseded.
rm -f "$top/bench/raw/guest-only.txt"
report
echo "bench: written to bench/results.md, its table of targets to README.md, its figures to README.md and docs/" >&2
