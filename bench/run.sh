#!/usr/bin/env bash
# Usage: bench/run.sh
#
# `make bench`: boots Debian's kernel in QEMU (2 CPUs, 2 GiB, TCG) with the
# module, pfprofd, work, pfprof-bench, perf, pidstat and strace, runs
# bench/guest.sh there (about 9 minutes here), prints the results and writes them
# to bench/results.md (bench/report.sh). Environment: KVER, PFPROF_CACHE,
# BUILD as for tests/check.sh.
set -euo pipefail

[[ $# -eq 0 ]] || { sed -n '2s/^# //p' "$0" >&2; exit 64; }
top=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILD:-$top/build}/bench
reference_run=(--quiet --no-register --pause 0 -n 5 16 L 2000000)

KVER=$(KVER=${KVER:-} "$top/tests/vm/prepare-host.sh")
missing=()
for p in linux-perf sysstat strace; do
	[ "$(dpkg-query -W -f='${db:Status-Status}' "$p" 2>/dev/null)" = installed ] || missing+=("$p")
done
if ((${#missing[@]})); then
	echo "bench: installing ${missing[*]}" >&2
	DEBIAN_FRONTEND=noninteractive apt-get -q install -y --no-install-recommends \
		-o Dpkg::Use-Pty=0 "${missing[@]}" </dev/null >&2
fi
make -s -C "$top/module" KVER="$KVER"
make -s -C "$top/tools" STATIC=1
make -s -C "$top/pfprofd"
make -s -C "$top/bench"

rm -rf "$build"
mkdir -p "$build/payload" "$build/log"
install -m 0644 "$top/module/mp3.ko" "$build/payload/"
install -m 0755 "$top/tools/work" "$top/pfprofd/pfprofd" "$top/bench/pfprof-bench" \
	"$(command -v perf)" "$(command -v pidstat)" "$(command -v strace)" "$build/payload/"
install -m 0755 "$top/bench/guest.sh" "$build/payload/run"
install -m 0644 "$top/tests/vm/guest-pfprofd.sh" "$build/payload/"

# The same CPU-bound run on the host and in the guest: how much slower the
# emulated CPU is, to read the guest's absolute times with.
for _ in 1 2 3; do
	"$top/bench/pfprof-bench" overhead bare 0 "$top/tools/work" "${reference_run[@]}"
done | sed 's/^overhead/host_reference/' > "$build/host-reference.txt"
echo "commit $(git -C "$top" describe --always --dirty 2>/dev/null || echo unknown)" \
	>> "$build/host-reference.txt"
echo "${reference_run[*]}" > "$build/payload/reference"

vmlinux=$("$top/tests/vm/vmlinux.sh" "$KVER")
"$top/tests/vm/mkinitramfs.sh" "$build/bench.cpio" "$build/payload"
# tsc=reliable: under TCG the vCPUs' TSCs all follow the host's clock, but the
# kernel's synchronisation check fails on emulation jitter and falls back to
# the HPET, whose every read is an emulated device access and which has no
# vDSO: clock_gettime() would be a system call, as on no real machine.
echo "bench: guest 2 CPUs, 2048 MiB, kernel $KVER, QEMU TCG, tsc=reliable" >&2
"$top/tests/vm/boot.sh" --mem 2048 --smp 2 --timeout 1800 --append tsc=reliable \
	"$vmlinux" "$build/bench.cpio" "$build/log"

# The raw figures are kept beside the results, which they regenerate:
# bench/report.sh bench/raw/guest-output.txt bench/raw/host.txt
mkdir -p "$top/bench/raw"
cp "$build/log/payload.txt" "$top/bench/raw/guest-output.txt"
cp "$build/host-reference.txt" "$top/bench/raw/host.txt"
"$top/bench/report.sh" "$top/bench/raw/guest-output.txt" "$top/bench/raw/host.txt" \
	> "$top/bench/results.md"
cat "$top/bench/results.md"
echo "bench: written to bench/results.md" >&2
