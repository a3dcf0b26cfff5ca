#!/bin/bash
# Usage: tests/vm/kmods.sh KVER ROOT MODULE...
#
# Copies the host's /lib/modules/KVER/.../MODULE.ko of every MODULE and of
# what it depends on into ROOT at the same paths, and writes ROOT/load-modules:
# one "insmod PATH" line per module, in load order, each once.
set -euo pipefail

[[ $# -ge 3 ]] || { sed -n '2s/^# //p' "$0" >&2; exit 64; }
kver=$1
root=$2
shift 2

for m in "$@"; do
    modprobe -S "$kver" --show-depends "$m" | awk '$1 == "insmod" { print $2 }'
done | awk '!seen[$0]++' > "$root/load-modules.list"
while read -r ko; do
    mkdir -p "$root$(dirname "$ko")"
    cp "$ko" "$root$ko"
done < "$root/load-modules.list"
sed 's|^|insmod |' "$root/load-modules.list" > "$root/load-modules"
rm "$root/load-modules.list"
