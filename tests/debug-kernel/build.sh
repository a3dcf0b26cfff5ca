#!/usr/bin/env bash
# Usage: tests/debug-kernel/build.sh
#
# Prints the (host) path of a kernel built out of tree from Debian 13's
# (trixie) linux-source-6.12 (tests/debug-kernel/source.sh) with trixie's
# gcc-14, inside the trixie build root of tests/vm/buildroot.sh, with
# tinyconfig plus tests/debug-kernel/debug.config: a small guest kernel with
# KASAN, lockdep, DEBUG_ATOMIC_SLEEP, DEBUG_OBJECTS, kmemleak and UBSAN: its
# arch/x86/boot/bzImage for QEMU, and the objects to build mp3.ko against.
#
# It is built with the source bound at /usr/src/linux-source-6.12 and the
# objects at /build in the build root; build modules there too, with the same
# binds and compiler (module_build in tests/lib/kernels.sh does):
#   in_buildroot --bind SOURCE:/usr/src/linux-source-6.12 --bind TREE \
#       --bind DIR:/module-build make -C /build M=/module-build modules
# and never against it with the host's gcc-12.
#
# Cached under ${PFPROF_CACHE:-/var/cache/pfprof-test}/debug-kernel/, keyed
# by the source's version and debug.config; built when missing.
# Progress goes to stderr.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=tests/lib/cache.sh
. "$here/../lib/cache.sh"
# shellcheck source=tests/lib/kernels.sh
. "$here/../lib/kernels.sh"
cache=${PFPROF_CACHE:-/var/cache/pfprof-test}/debug-kernel
source_path=/usr/src/linux-source-6.12
exec 3>&1 1>&2
log() { printf 'debug-kernel: %s\n' "$*"; }

KERNEL_BUILDROOT=$("$here/../vm/buildroot.sh" trixie)
export KERNEL_BUILDROOT
KERNEL_SOURCE=$("$here/source.sh")
version=$(basename "$(dirname "$KERNEL_SOURCE")")
key=$(sha256sum < "$here/debug.config" | cut -c1-12)
tree=$cache/$version-$key
cache_lock debug-kernel
if [ -f "$tree/arch/x86/boot/bzImage" ] && [ -f "$tree/Module.symvers" ]; then
	log "cached: $tree"
	echo "$tree" >&3
	exit 0
fi

work=$cache/.build.$$
rm -rf "$work"
mkdir -p "$work"
trap 'rm -rf "$work"' EXIT

# Configured and built in the build root, out of tree: the source at
# /usr/src/linux-source-6.12 and the objects at /build, the paths recorded in
# the tree. The compiler is trixie's gcc-14. KBUILD_BUILD_*: the same sources
# give the same image; the timestamp must be something date -d reads
# (Documentation/kbuild/kbuild.rst), here the date of the source's Makefile.
timestamp=$(date -u -r "$KERNEL_SOURCE/Makefile" '+%Y-%m-%d %H:%M:%S UTC')
kmake() {
	in_buildroot --bind "$KERNEL_SOURCE:$source_path" --bind "$work" \
		make -C "$source_path" O=/build KBUILD_BUILD_USER=pfprof KBUILD_BUILD_HOST=buildroot \
		KBUILD_BUILD_TIMESTAMP="$timestamp" "$@"
}
kmake -s tinyconfig
cp "$here/debug.config" "$work/debug.config"
# shellcheck disable=SC2016 # expanded by the build root's shell
in_buildroot --bind "$KERNEL_SOURCE:$source_path" --bind "$work" sh -c \
	'cd /build && "$1"/scripts/kconfig/merge_config.sh -m .config debug.config' sh "$source_path" >/dev/null
rm "$work/debug.config"
kmake -s olddefconfig
# Every option asked for must have made it: a checker silently left out
# would make the whole run meaningless.
missing_options=$(grep -E '^CONFIG_[A-Z0-9_]+=' "$here/debug.config" | while read -r line; do
	grep -qx "$line" "$work/.config" || { [ "${line#*=}" = n ] && ! grep -q "^${line%%=*}=" "$work/.config"; } ||
		echo "$line"
done)
if [ -n "$missing_options" ]; then
	log "options the configuration did not take: $(echo "$missing_options" | tr '\n' ' ')"
	exit 1
fi
jobs=$(nproc)
log "building with $(in_buildroot gcc --version | sed -n 1p) (make -j$jobs bzImage modules)"
kmake -s -j"$jobs" bzImage modules
rm -rf "${cache:?}"/[0-9]*	# other versions and configurations
mv "$work" "$tree"
trap - EXIT
log "built $tree"
echo "$tree" >&3
