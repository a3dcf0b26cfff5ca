#!/bin/bash
# Usage: tests/vm/vmlinux.sh KVER VMLINUZ
#
# Prints the path of an uncompressed ELF vmlinux for KVER (boots ~2x faster
# under TCG than the bzImage: no in-guest decompression), taken from VMLINUZ
# (tests/lib/kernels.sh's KERNEL_IMAGE), whose payload may be XZ (Debian 12) or zstd
# (Debian 13 and later) compressed.  Cached at
# ${PFPROF_CACHE:-/var/cache/pfprof-test}/kernel/KVER/vmlinux, re-extracted
# when missing, not ELF, or older than VMLINUZ.
# If extraction is impossible, warns on stderr and prints VMLINUZ (a bzImage
# boots too, just slower).  Exit 1 only if VMLINUZ is absent.
set -euo pipefail

log() { printf 'vmlinux: %s\n' "$*" >&2; }

[[ $# -eq 2 && -n "$1" ]] || { sed -n '2s/^# //p' "$0" >&2; exit 64; }
kver=$1
vmlinuz=$2
[[ -f "$vmlinuz" ]] || { log "error: $vmlinuz not found"; exit 1; }

cache_dir=${PFPROF_CACHE:-/var/cache/pfprof-test}/kernel/$kver
out=$cache_dir/vmlinux

is_elf() { [[ "$(head -c4 "$1" 2>/dev/null | od -An -tx1 | tr -d ' \n')" == 7f454c46 ]]; }

fallback() {
    log "warning: $*; falling back to the compressed $vmlinuz (slower boot)"
    printf '%s\n' "$vmlinuz"
    exit 0
}

if [[ -f "$out" && "$out" -nt "$vmlinuz" ]] && is_elf "$out"; then
    printf '%s\n' "$out"
    exit 0
fi

if ! mkdir -p "$cache_dir" 2>/dev/null || [[ ! -w "$cache_dir" ]]; then
    fallback "cache dir $cache_dir not writable"
fi

tmp=$(mktemp "$cache_dir/.vmlinux.XXXXXX")
trap 'rm -f "$tmp"' EXIT

# try FORMAT MAGIC DECOMPRESSOR...: every offset of MAGIC in the image (it may
# also occur by chance in the setup code) until one decompresses to an ELF
# image. The payload is followed by other data, which zstd reports as an
# error after writing the whole frame: the ELF check is the verdict. xz stops
# at the end of its stream (tail then gets SIGPIPE), so it reads from a
# process substitution.
try() {
    local format=$1 magic=$2 off
    shift 2
    command -v "$1" >/dev/null || { log "$1 not installed, $format payloads not tried"; return 1; }
    for off in $(LC_ALL=C grep -obUaP "$magic" "$vmlinuz" | cut -d: -f1 || true); do
        "$@" < <(tail -c +"$((off + 1))" "$vmlinuz") >"$tmp" 2>/dev/null || true
        if is_elf "$tmp" && LC_ALL=C readelf -h "$tmp" >/dev/null 2>&1; then
            chmod 0644 "$tmp"
            mv -f "$tmp" "$out"
            log "extracted $out from $vmlinuz ($format at offset $off)"
            printf '%s\n' "$out"
            exit 0
        fi
    done
    return 1
}

try xz '\xfd\x37\x7a\x58\x5a\x00' xz -dqc --single-stream ||
    try zstd '\x28\xb5\x2f\xfd' zstd -dqc ||
    fallback "no XZ- or zstd-compressed ELF found in $vmlinuz"
