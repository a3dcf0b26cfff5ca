#!/usr/bin/env bash
# Usage: tests/debug-kernel/build.sh
#
# Prints the path of a kernel tree built from Debian's linux-source-6.1 with
# tinyconfig plus tests/debug-kernel/debug.config: a small guest kernel with
# KASAN, lockdep, DEBUG_ATOMIC_SLEEP, DEBUG_OBJECTS, kmemleak and UBSAN: its
# arch/x86/boot/bzImage for QEMU, and the tree to build mp3.ko against (M=).
# Cached under ${PFPROF_CACHE:-/var/cache/pfprof-test}/debug-kernel/, keyed
# by the source package's version and debug.config; built when missing.
# Progress goes to stderr.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
cache=${PFPROF_CACHE:-/var/cache/pfprof-test}/debug-kernel
exec 3>&1 1>&2
log() { printf 'debug-kernel: %s\n' "$*"; }

missing=()
for p in linux-source-6.1 flex bison bc libelf-dev libssl-dev gcc make; do
	[ "$(dpkg-query -W -f='${db:Status-Status}' "$p" 2>/dev/null)" = installed ] || missing+=("$p")
done
if ((${#missing[@]})); then
	log "installing ${missing[*]}"
	DEBIAN_FRONTEND=noninteractive apt-get -q install -y --no-install-recommends \
		-o Dpkg::Use-Pty=0 "${missing[@]}" </dev/null
fi

version=$(dpkg-query -W -f='${Version}' linux-source-6.1)
key=$(sha256sum < "$here/debug.config" | cut -c1-12)
tree=$cache/$version-$key/linux-source-6.1
if [ -f "$tree/arch/x86/boot/bzImage" ] && [ -f "$tree/Module.symvers" ]; then
	log "cached: $tree"
	echo "$tree" >&3
	exit 0
fi

work=$cache/.build.$$
rm -rf "$work"
mkdir -p "$work"
trap 'rm -rf "$work"' EXIT
log "unpacking linux-source-6.1 $version"
tar -C "$work" -xf /usr/src/linux-source-6.1.tar.xz
cd "$work/linux-source-6.1"
make -s tinyconfig
scripts/kconfig/merge_config.sh -m .config "$here/debug.config" >/dev/null
make -s olddefconfig
# Every option asked for must have made it: a checker silently left out
# would make the whole run meaningless.
missing_options=$(grep -E '^CONFIG_[A-Z0-9_]+=' "$here/debug.config" | while read -r line; do
	grep -qx "$line" .config || { [ "${line#*=}" = n ] && ! grep -q "^${line%%=*}=" .config; } ||
		echo "$line"
done)
if [ -n "$missing_options" ]; then
	log "options the configuration did not take: $(echo "$missing_options" | tr '\n' ' ')"
	exit 1
fi
log "building (make -j$(nproc) bzImage modules)"
make -s -j"$(nproc)" bzImage modules
rm -rf "$cache/$version-"*
mkdir -p "$cache/$version-$key"
mv "$work/linux-source-6.1" "$tree"
log "built $tree"
echo "$tree" >&3
