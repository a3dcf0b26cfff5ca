#!/usr/bin/env bash
# Usage: plots/case-study-db.sh [--render-only]
#
# `make case-study-db`, case study 3: PostgreSQL under memory pressure. Boots
# Debian 13's kernel in QEMU with systemd on a Debian 13 root file system
# that has Debian's PostgreSQL (tests/vm/rootfs.sh --postgresql) and a swap
# disk; plots/case-study-db-guest.sh installs pfprof there from this tree as
# the README says, follows the cluster's unit with pfprofd and runs pgbench
# under a MemoryMax stepped down. The raw data goes to plots/data/case_3/
# (but pfprofd's faults log, left in build/case-study-db/share/out/),
# and plots/case-3-render.sh draws plots/case_3*.png from it (--render-only:
# only that, from the data there). Progress goes to stderr; the guest's own
# lines come through its console.
# Environment (the defaults are the configuration of the committed data):
#   DB_SCALE (50): pgbench's scale (16 MB of database each)
#   DB_LIMITS ("1024 512 256 192 160 128 96 64"): the MemoryMax steps, MiB
#   DB_SECONDS (60), DB_CLIENTS (4): each pgbench run
#   DB_HEATMAP_LIMIT (128): the MemoryMax of the run watched by DAMON
#   DB_SWAP_VIEW_LIMIT (128): the MemoryMax of the run whose pages out at
#     its end the swap-device picture shows
#   DB_MEM_MB (2048), DB_SWAP_MB (4096), DB_SMP (2): the guest
#   DATA (plots/data), PLOTS (plots), PFPROF_CACHE, BUILD: as for
#     plots/case-studies.sh
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=tests/lib/kernels.sh
. "$top/tests/lib/kernels.sh"
build=${BUILD:-$top/build}/case-study-db
data=${DATA:-$top/plots/data}/case_3
plots=${PLOTS:-$top/plots}

case ${1:-} in
--render-only) exec "$top/plots/case-3-render.sh" "$data" "$plots" ;;
"") ;;
*) sed -n '2s/^# //p' "$0" >&2; exit 64 ;;
esac

echo "case-study-db: installing what is missing (QEMU, gnuplot, compilers)," \
	"fetching Debian 13's kernel into ${PFPROF_CACHE:-/var/cache/pfprof-test}" >&2
"$top/tests/vm/prepare-host.sh" --guests e2fsprogs rsync jq
kernel_prepare trixie
echo "case-study-db: a Debian 13 root file system with PostgreSQL (tests/vm/rootfs.sh --postgresql)" >&2
image=$("$top/tests/vm/rootfs.sh" --postgresql trixie "$KVER" "$KERNEL_ROOT")
vmlinux=$("$top/tests/vm/vmlinux.sh" "$KVER" "$KERNEL_IMAGE")

rm -rf "$build"
mkdir -p "$build/share" "$build/log"
"$top/tests/vm/mkinitramfs-root.sh" "$KVER" "$build/initrd.cpio" "$KERNEL_ROOT"
# The tree the guest installs from, built here with the default paths, as
# tests/check-packages.sh's: compiling under TCG would take minutes.
echo "case-study-db: building pfprof's programs for the guest's make install" >&2
rsync -a --exclude=/build --exclude=.git "$top/" "$build/share/src/"
make -s -C "$build/share/src" clean > /dev/null 2>&1
make -s -C "$build/share/src" tools daemon pfprofctl
install -m 0755 "$top/plots/case-study-db-guest.sh" "$build/share/run"
cat > "$build/share/settings" <<EOF
SCALE=${DB_SCALE:-50}
LIMITS="${DB_LIMITS:-1024 512 256 192 160 128 96 64}"
SECONDS_PER_RUN=${DB_SECONDS:-60}
CLIENTS=${DB_CLIENTS:-4}
HEATMAP_LIMIT=${DB_HEATMAP_LIMIT:-128}
SWAP_VIEW_LIMIT=${DB_SWAP_VIEW_LIMIT:-128}
EOF
truncate -s "${DB_SWAP_MB:-4096}M" "$build/swap.img"

echo "case-study-db: guest ${DB_MEM_MB:-2048} MiB RAM, ${DB_SWAP_MB:-4096} MiB swap," \
	"${DB_SMP:-2} CPUs, kernel $KVER" >&2
"$top/tests/vm/boot.sh" --mem "${DB_MEM_MB:-2048}" --smp "${DB_SMP:-2}" --timeout 3300 \
	--drive "$image" --drive "$build/swap.img" --share "$build/share" \
	"$vmlinux" "$build/initrd.cpio" "$build/log"
rm -f "$build/swap.img"

echo "guest: ${DB_SMP:-2} CPUs, ${DB_MEM_MB:-2048} MiB RAM, ${DB_SWAP_MB:-4096} MiB swap" \
	"on a virtio disk, Linux $KVER, QEMU TCG" > "$build/share/out/config"
rm -rf "$data"
mkdir -p "$(dirname "$data")"
# The faults and pages logs (megabytes) stay in the build directory: each
# run's where --json and memory --json are what the tables read of them;
# the thrash timeline and the swap-device picture are drawn from them here.
cp -r "$build/share/out" "$data"
rm -f "$data/pfprof-faults.log" "$data/pfprof-pages.log" "$data"/*.pages.log
"$top/plots/case-3-pages.sh" "$build/share/out" "$plots" > "$data/memory.md"
"$top/plots/case-3-render.sh" "$data" "$plots"
