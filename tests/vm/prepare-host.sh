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

# The programs built on the host and packed into the guests; mmdebstrap for
# the build roots (tests/vm/buildroot.sh: QEMU, the kernels' compilers, the
# Debian packages' build and lintian are theirs, so the host may be Debian 12
# or 13); static analysis (tests/static.sh, python3 for its check of the
# module's layers) and man (the unit tests render
# the man pages); the packaging guests' root file systems (e2fsprogs) and
# their shares (rsync); jq, which the unit tests read --json with. All in one
# apt run.
pkgs=(busybox-static kmod cpio xz-utils zstd gcc make libc6-dev binutils
      libsystemd-dev libjson-c-dev pkg-config gnuplot-nox mmdebstrap)
case ${1:-} in
--guests) shift ;;
-*) sed -n '2s/^# //p' "$0" >&2; exit 64 ;;
*) pkgs+=(coccinelle cppcheck shellcheck python3 man-db e2fsprogs rsync jq) ;;
esac
host_install "${pkgs[@]}" "$@"
