#!/usr/bin/env bash
# Usage: bench/damon.sh
#
# `make bench-damon`: what DAMON's access maps cost beside the fault sampler.
# Boots Debian 13's kernel (the first with DAMON; PFPROF_KERNEL another) in
# QEMU (2 CPUs, 2 GiB, TCG) with the module, pfprofd, pfprofctl, work and
# pfprof-bench, runs bench/damon-guest.sh there (about 3 minutes here), and
# writes the figures to bench/damon-results.md, the raw output to
# bench/raw/damon-output.txt. Environment: PFPROF_CACHE, BUILD as for
# tests/check.sh.
set -euo pipefail

[[ $# -eq 0 ]] || { sed -n '2s/^# //p' "$0" >&2; exit 64; }
top=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=tests/lib/kernels.sh
. "$top/tests/lib/kernels.sh"
build=${BUILD:-$top/build}/bench-damon

"$top/tests/vm/prepare-host.sh"
kernel_prepare "${PFPROF_KERNEL:-trixie}"
rm -rf "$build"
module_build "$build/module"
make -s -C "$top/tools" STATIC=1
make -s -C "$top/daemon"
make -s -C "$top/pfprofctl"
make -s -C "$top/bench"
mkdir -p "$build/payload" "$build/log"
install -m 0644 "$build/module/module/mp3.ko" "$build/payload/"
install -m 0755 "$top/tools/work" "$top/daemon/pfprofd" "$top/pfprofctl/pfprofctl" \
	"$top/bench/pfprof-bench" "$build/payload/"
install -m 0755 "$top/bench/damon-guest.sh" "$build/payload/run"
install -m 0644 "$top/tests/vm/guest-pfprofd.sh" "$build/payload/"

vmlinux=$("$top/tests/vm/vmlinux.sh" "$KVER" "$KERNEL_IMAGE")
"$top/tests/vm/mkinitramfs.sh" "$build/bench.cpio" "$build/payload"
echo "bench: guest 2 CPUs, 2048 MiB, kernel $KVER, QEMU TCG, tsc=reliable" >&2
"$top/tests/vm/boot.sh" --mem 2048 --smp 2 --timeout 900 --append tsc=reliable \
	"$vmlinux" "$build/bench.cpio" "$build/log"

mkdir -p "$top/bench/raw"
{
	echo "commit $(git -C "$top" describe --always --dirty 2>/dev/null || echo unknown)"
	echo "date $(date -u '+%Y-%m-%dT%H:%MZ')"
	cat "$build/log/payload.txt"
} > "$top/bench/raw/damon-output.txt"
"$top/bench/damon-report.sh" "$top/bench/raw/damon-output.txt" > "$top/bench/damon-results.md"
cat "$top/bench/damon-results.md"
"$top/bench/figures.sh" --update
echo "bench: written to bench/damon-results.md, its figures to README.md and docs/" >&2
