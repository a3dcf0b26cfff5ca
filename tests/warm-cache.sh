#!/usr/bin/env bash
# Usage: tests/warm-cache.sh [STEP...]
#
# Builds what make check's suites will ask the test cache for, by STEP
# (default: all, in this order): trixie (Debian 13's build root, its kernel,
# trixie-backports' and its PREEMPT_RT one, linux-source-6.12), bookworm
# (Debian 12's build root, its kernel, promtool), which need nothing of each
# other and may run side by side, debug-kernel, rootfs (the root file
# systems of the packaging guests). tests/check-all.sh runs it before the
# suites, so that what a cold cache costs shows as a stage of its own. Entries are
# built under a lock (tests/lib/cache.sh), so concurrent runs share them. A
# step that fails here is only reported: the suite that needs it builds it
# again and fails in its own name. One line per step on stdout, with the
# seconds it took; the builders' progress on stderr.
set -uo pipefail

here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=tests/lib/kernels.sh
. "$here/lib/kernels.sh"

# step NAME COMMAND...: COMMAND, its output dropped, reported with its time.
step() {
	local name=$1 start=$SECONDS
	shift
	if "$@" >/dev/null; then
		echo "warm-cache: $name in $((SECONDS - start)) s"
	else
		echo "warm-cache: $name failed after $((SECONDS - start)) s (exit $?)"
	fi
}

guest_rootfs() {
	kernel_prepare "$1" && "$here/vm/rootfs.sh" "$1" "$KVER" "$KERNEL_ROOT"
}

steps=("$@")
((${#steps[@]})) || steps=(trixie bookworm debug-kernel rootfs)
for name in "${steps[@]}"; do
	case $name in
	trixie)
		step "Debian 13 build root" "$here/vm/buildroot.sh" trixie
		step "kernel trixie" kernel_prepare trixie
		step "kernel trixie-backports" kernel_prepare trixie-backports
		step "kernel trixie-rt" kernel_prepare trixie-rt
		step "linux-source-6.12" "$here/debug-kernel/source.sh" ;;
	bookworm)
		step "Debian 12 build root" "$here/vm/buildroot.sh" bookworm
		step "kernel bookworm" kernel_prepare bookworm
		step "promtool" "$here/lib/promtool.sh" ;;
	debug-kernel) step "debug kernel" "$here/debug-kernel/build.sh" ;;
	rootfs)
		step "Debian 13 root file system" guest_rootfs trixie
		step "Debian 12 root file system" guest_rootfs bookworm ;;
	*) echo "warm-cache: unknown step '$name'" >&2; exit 64 ;;
	esac
done
