#!/bin/bash
# Usage: tests/vm/kmods.sh [-d MODROOT] KVER ROOT MODULE...
#
# Copies MODROOT/lib/modules/KVER/.../MODULE.ko of every MODULE and of what it
# depends on (MODROOT: the host's "/" unless given; modules under
# MODROOT/usr/lib/modules, merged /usr, are found too) into ROOT at
# /lib/modules/KVER/..., and writes ROOT/load-modules: one "insmod PATH" line
# per module, in load order, each once. Compressed modules (.ko.xz, .ko.zst,
# .ko.gz, as Debian 13 ships them) are decompressed on the way: busybox's
# insmod reads plain .ko files only.
set -euo pipefail

usage() { sed -n '2s/^# //p' "$0" >&2; exit 64; }
modroot=/
if [[ ${1:-} == -d ]]; then
    [[ $# -ge 2 ]] || usage
    modroot=$2
    shift 2
fi
[[ $# -ge 3 ]] || usage
kver=$1
root=$2
shift 2

moddir=
for d in "$modroot/lib/modules/$kver" "$modroot/usr/lib/modules/$kver"; do
    [[ -d "$d/kernel" ]] && { moddir=$d; break; }
done
[[ -n "$moddir" ]] || { echo "kmods: no lib/modules/$kver under $modroot" >&2; exit 1; }

# modprobe -d wants DIR/lib/modules/KVER with a modules.dep: without one, or
# with the modules under usr/, work on a hard-linked copy (depmod writes new
# files there and changes none of the originals).
tree=$modroot
tmp=
if [[ "$moddir" != "$modroot/lib/modules/$kver" || ! -f "$moddir/modules.dep" ]]; then
    tmp=$(mktemp -d "${TMPDIR:-/tmp}/pfprof-kmods.XXXXXX")
    trap 'rm -rf "$tmp"' EXIT
    mkdir -p "$tmp/lib/modules"
    cp -al "$moddir" "$tmp/lib/modules/$kver" 2>/dev/null ||
        { rm -rf "${tmp:?}/lib/modules/$kver"; cp -a "$moddir" "$tmp/lib/modules/$kver"; }
    rm -f "$tmp/lib/modules/$kver"/modules.{dep,dep.bin,alias,alias.bin,symbols,symbols.bin,softdep,devname}
    depmod -b "$tmp" "$kver"
    tree=$tmp
fi
prefix=${tree%/}

for m in "$@"; do
    modprobe -d "$tree" -S "$kver" --show-depends "$m" | awk '$1 == "insmod" { print $2 }'
done | awk '!seen[$0]++' > "$root/load-modules.list"
: > "$root/load-modules"
while read -r ko; do
    rel=${ko#"$prefix"}
    while [[ $rel == //* ]]; do rel=${rel#/}; done	# modprobe -d / prints //lib/...
    case $rel in
        *.ko.xz) dst=${rel%.xz}; unpack=(xz -dc) ;;
        *.ko.zst) dst=${rel%.zst}; unpack=(zstd -qdc) ;;
        *.ko.gz) dst=${rel%.gz}; unpack=(gzip -dc) ;;
        *) dst=$rel; unpack=(cat) ;;
    esac
    mkdir -p "$root$(dirname "$dst")"
    "${unpack[@]}" < "$ko" > "$root$dst"
    echo "insmod $dst" >> "$root/load-modules"
done < "$root/load-modules.list"
rm "$root/load-modules.list"
