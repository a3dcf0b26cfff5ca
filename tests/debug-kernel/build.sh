#!/usr/bin/env bash
# Usage: tests/debug-kernel/build.sh
#
# Prints the (host) path of a kernel tree built from Debian 13's (trixie)
# linux-source-6.12 with trixie's gcc-14, inside the trixie build root of
# tests/vm/buildroot.sh, with tinyconfig plus tests/debug-kernel/debug.config:
# a small guest kernel with KASAN, lockdep, DEBUG_ATOMIC_SLEEP, DEBUG_OBJECTS,
# kmemleak and UBSAN: its arch/x86/boot/bzImage for QEMU, and the tree to
# build mp3.ko against (M=). The host's apt sources are never touched: the
# source package is fetched by the build root's apt.
#
# The tree is built bound at /build in the build root; build modules against
# it there too, with the same compiler (tests/lib/kernels.sh):
#   KERNEL_BUILDROOT=$(tests/vm/buildroot.sh)
#   in_buildroot --bind TREE make -C /build M=DIR modules
# where DIR is a path inside the build root ($KERNEL_BUILDROOT/DIR on the
# host). Bind the tree at /build, where it was built (bound elsewhere it has
# not been tried), and never build against it with the host's gcc-12.
#
# Cached under ${PFPROF_CACHE:-/var/cache/pfprof-test}/debug-kernel/, keyed
# by the source package's version and debug.config; built when missing.
# Progress goes to stderr.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=tests/lib/kernels.sh
. "$here/../lib/kernels.sh"
cache=${PFPROF_CACHE:-/var/cache/pfprof-test}/debug-kernel
source_package=linux-source-6.12
exec 3>&1 1>&2
log() { printf 'debug-kernel: %s\n' "$*"; }

KERNEL_BUILDROOT=$("$here/../vm/buildroot.sh")
export KERNEL_BUILDROOT

# The version apt would fetch; the package lists are refreshed only when they
# do not know the package (or, below, when its .deb is gone from the mirror).
candidate() {
	in_buildroot apt-cache policy "$source_package" | awk '$1 == "Candidate:" && $2 != "(none)" { print $2 }'
}
version=$(candidate)
if [ -z "$version" ]; then
	in_buildroot apt-get -q update
	version=$(candidate)
fi
if [ -z "$version" ]; then
	log "no $source_package in the build root's apt sources"
	exit 1
fi
key=$(sha256sum < "$here/debug.config" | cut -c1-12)
tree=$cache/$version-$key/$source_package
if [ -f "$tree/arch/x86/boot/bzImage" ] && [ -f "$tree/Module.symvers" ]; then
	log "cached: $tree"
	echo "$tree" >&3
	exit 0
fi

work=$cache/.build.$$
rm -rf "$work"
mkdir -p "$work/src" "$work/deb"
trap 'rm -rf "$work"' EXIT
# Writable by the build root's _apt, which apt downloads as.
chmod 1777 "$work/deb"
log "downloading $source_package $version"
download() {
	# shellcheck disable=SC2016 # expanded by the build root's shell
	in_buildroot --bind "$work" sh -c 'cd /build/deb && apt-get -q download "$1"' sh "$source_package=$version"
}
if ! download; then
	in_buildroot apt-get -q update
	version=$(candidate)
	tree=$cache/$version-$key/$source_package
	download
fi

log "unpacking $source_package $version"
cp "$here/debug.config" "$work/debug.config"
# shellcheck disable=SC2016 # expanded by the build root's shell
in_buildroot --bind "$work" sh -c '
	set -e
	cd /build
	dpkg-deb --fsys-tarfile deb/"$1"_*.deb | tar -xO "./usr/src/$1.tar.xz" | tar -C src -xJ
	rm -rf deb' sh "$source_package"
src=$work/src/$source_package

# Configured and built in the build root with the tree bound at /build: the
# compiler is trixie's gcc-14, and the paths recorded in the tree are /build.
# KBUILD_BUILD_*: the same sources give the same image.
kmake() {
	in_buildroot --bind "$src" make -C /build KBUILD_BUILD_USER=pfprof KBUILD_BUILD_HOST=buildroot \
		KBUILD_BUILD_TIMESTAMP="$version" "$@"
}
kmake -s tinyconfig
cp "$work/debug.config" "$src/debug.config"
in_buildroot --bind "$src" sh -c 'cd /build && scripts/kconfig/merge_config.sh -m .config debug.config' >/dev/null
rm "$src/debug.config"
kmake -s olddefconfig
# Every option asked for must have made it: a checker silently left out
# would make the whole run meaningless.
missing_options=$(grep -E '^CONFIG_[A-Z0-9_]+=' "$here/debug.config" | while read -r line; do
	grep -qx "$line" "$src/.config" || { [ "${line#*=}" = n ] && ! grep -q "^${line%%=*}=" "$src/.config"; } ||
		echo "$line"
done)
if [ -n "$missing_options" ]; then
	log "options the configuration did not take: $(echo "$missing_options" | tr '\n' ' ')"
	exit 1
fi
jobs=$(nproc)
log "building with $(in_buildroot gcc --version | sed -n 1p) (make -j$jobs bzImage modules)"
kmake -s -j"$jobs" bzImage modules
rm -rf "$cache/$version-"*
mkdir -p "$cache/$version-$key"
mv "$src" "$tree"
log "built $tree"
echo "$tree" >&3
