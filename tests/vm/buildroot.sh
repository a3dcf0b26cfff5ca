#!/bin/bash
# Usage: tests/vm/buildroot.sh
#
# Prints the path of a Debian 13 (trixie) build root: a chroot made with
# mmdebstrap holding trixie's compiler (gcc-14) and what building a module,
# running sparse on it and building a kernel need, with trixie-updates,
# trixie-security and trixie-backports (the newest kernels) in its own apt
# sources. The host's apt sources are never touched: everything of trixie
# is fetched by the chroot's apt. Kernel headers are added by kernels.sh.
# Cached under ${PFPROF_CACHE:-/var/cache/pfprof-test}/buildroot/, keyed by
# what it is made of (suites and packages); built when missing. Progress
# goes to stderr.
set -euo pipefail

# shellcheck source=tests/lib/cache.sh
. "$(dirname "$0")/../lib/cache.sh"
# shellcheck source=tests/lib/debian-tree.sh
. "$(dirname "$0")/../lib/debian-tree.sh"
log() { printf 'buildroot: %s\n' "$*" >&2; }
exec 3>&1 1>&2

# perl: W=1's kernel-doc; pahole: 6.12+ headers run the BTF step; flex,
# bison, libssl-dev, cpio: the debug kernel; lintian: the packages checked
# by Debian 13's lintian.
packages=gcc-14,gcc,make,libc6-dev,libelf-dev,bc,kmod,perl,pahole,sparse,flex,bison
packages+=,libssl-dev,cpio,xz-utils,zstd,lintian
mirror=http://deb.debian.org/debian
sources=("deb $mirror trixie main" "deb $mirror trixie-updates main"
    "deb $mirror trixie-backports main" "deb http://deb.debian.org/debian-security trixie-security main")
key=$(printf '%s\n' "$packages" "${sources[@]}" | sha256sum | cut -c1-12)
cache=${PFPROF_CACHE:-/var/cache/pfprof-test}/buildroot
root=$cache/trixie-$key

cache_lock buildroot
if [[ -f "$root/.complete" ]]; then
    log "cached: $root"
    printf '%s\n' "$root" >&3
    exit 0
fi
command -v mmdebstrap >/dev/null || { log "error: mmdebstrap is not installed"; exit 1; }

mkdir -p "$cache"
work=$(mktemp -d "$cache/.build.XXXXXX")
trap 'rm -rf "$work"' EXIT

log "mmdebstrap trixie ($packages)"
# shellcheck disable=SC2016 # "$1" belongs to the hook, expanded by mmdebstrap
debian_tree --include="$packages" \
    --customize-hook='rm -rf "$1"/var/cache/apt/archives/*.deb' \
    trixie "$work/root" "${sources[@]}" >&2
touch "$work/root/.complete"
rm -rf "$cache"/trixie-*	# built by older versions of this script
mv "$work/root" "$root"
log "built $root"
printf '%s\n' "$root" >&3
