#!/bin/bash
# Usage: tests/vm/prepare-host.sh [--guests]
#
# Installs (only if missing) what make check needs (with --guests: only what
# building the programs, booting guests and plotting need, as make demo and
# make case-studies do), then prints the
# guest kernel version (e.g. 6.1.0-56-amd64) on stdout -- nothing else goes to
# stdout; progress goes to stderr.  Safe to run with no stdin and CI=true.
#
# Without KVER: installs linux-image-amd64 + linux-headers-amd64 too and derives
# the version from the linux-image-amd64 metapackage's Depends.
# With KVER=x.y.z-flavour in the environment: does not install the amd64 kernel
# metapackages, only checks that /boot/vmlinuz-$KVER and
# /lib/modules/$KVER/build exist, and prints $KVER.
set -euo pipefail

log() { printf 'prepare-host: %s\n' "$*" >&2; }
die() { log "error: $*"; exit 1; }

# The guests and builds; static analysis (tests/static.sh); the build root
# and root file systems (mmdebstrap, e2fsprogs); the packages and Debian 12's
# lintian (tests/check-packages.sh; dpkg-buildpackage refuses to build
# without build-essential, which minimal systems lack). All in one apt run.
pkgs=(qemu-system-x86 busybox-static kmod cpio xz-utils zstd gcc make libc6-dev binutils
      libsystemd-dev pkg-config gnuplot-nox)
case ${1:-} in
--guests) ;;
"") pkgs+=(sparse coccinelle cppcheck shellcheck
           mmdebstrap e2fsprogs build-essential dpkg-dev debhelper dh-dkms dkms fakeroot
           lintian rsync) ;;
*) sed -n '2s/^# //p' "$0" >&2; exit 64 ;;
esac
if [[ -z "${KVER:-}" ]]; then
    pkgs+=(linux-image-amd64 linux-headers-amd64)
fi

missing=()
for p in "${pkgs[@]}"; do
    status=$(dpkg-query -W -f='${db:Status-Status}' "$p" 2>/dev/null || true)
    [[ "$status" == installed ]] || missing+=("$p")
done

if ((${#missing[@]})); then
    log "installing: ${missing[*]}"
    sudo=()
    if ((EUID != 0)); then
        command -v sudo >/dev/null || die "not root and no sudo; cannot install ${missing[*]}"
        sudo=(sudo -n)
    fi
    "${sudo[@]}" apt-get -q update </dev/null >&2
    "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive INITRD=No \
        apt-get -q install -y --no-install-recommends -o Dpkg::Use-Pty=0 \
        "${missing[@]}" </dev/null >&2
else
    log "all packages present"
fi

kver=${KVER:-}
if [[ -z "$kver" ]]; then
    depends=$(dpkg-query -W -f='${Depends}' linux-image-amd64)
    kver=$(grep -oE 'linux-image-[0-9][^ ,|]*' <<<"$depends" | head -n1 || true)
    kver=${kver#linux-image-}
    [[ -n "$kver" ]] || die "cannot derive kernel version from Depends: '$depends'"
fi

[[ -f /boot/vmlinuz-$kver ]] || die "/boot/vmlinuz-$kver not found"
[[ -d /lib/modules/$kver/build ]] || die "/lib/modules/$kver/build not found (headers missing?)"
log "guest kernel: $kver"
printf '%s\n' "$kver"
