#!/bin/bash
# Usage: tests/vm/prepare-host.sh [--guests] [PACKAGE...]
#
# Installs (only if missing) what make check needs (with --guests: only what
# building the programs, booting guests and plotting need, as make demo and
# make case-studies do), and PACKAGEs. No kernel: tests/lib/kernels.sh
# fetches the guests' kernels into the test cache, so that what the host
# boots does not change. Prints nothing on stdout; progress goes to stderr.
# Safe to run with no stdin and CI=true.
set -euo pipefail

# shellcheck source=tests/lib/host.sh
. "$(dirname "$0")/../lib/host.sh"

# The guests and builds; static analysis (tests/static.sh); the build root
# and root file systems (mmdebstrap, e2fsprogs); the packages and Debian 12's
# lintian (tests/check-packages.sh; dpkg-buildpackage refuses to build
# without build-essential, which minimal systems lack). All in one apt run.
pkgs=(qemu-system-x86 busybox-static kmod cpio xz-utils zstd gcc make libc6-dev binutils
      libsystemd-dev pkg-config gnuplot-nox)
case ${1:-} in
--guests) shift ;;
-*) sed -n '2s/^# //p' "$0" >&2; exit 64 ;;
*) pkgs+=(sparse coccinelle cppcheck shellcheck
          mmdebstrap e2fsprogs build-essential dpkg-dev debhelper dh-dkms dkms fakeroot
          lintian rsync) ;;
esac
host_install "${pkgs[@]}" "$@"
