#!/usr/bin/env bash
# Usage: tests/debug-kernel/source.sh
#
# Prints the (host) path of Debian 13's (trixie) linux-source-6.12, unpacked
# and left pristine: the debug kernel is built from it out of tree (O=, by
# tests/debug-kernel/build.sh) and tests/static.sh runs its checkpatch.pl and
# Coccinelle scripts. The package is fetched by the trixie build root's apt
# (tests/vm/buildroot.sh); the host's apt sources are never touched.
# Cached under ${PFPROF_CACHE:-/var/cache/pfprof-test}/src/<version>/, the
# version being the one apt would fetch today; unpacked when missing.
# Progress goes to stderr.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=tests/lib/cache.sh
. "$here/../lib/cache.sh"
# shellcheck source=tests/lib/kernels.sh
. "$here/../lib/kernels.sh"
cache=${PFPROF_CACHE:-/var/cache/pfprof-test}/src
package=linux-source-6.12
exec 3>&1 1>&2
log() { printf 'kernel-source: %s\n' "$*"; }

KERNEL_BUILDROOT=$("$here/../vm/buildroot.sh" trixie)
export KERNEL_BUILDROOT

# The package lists are refreshed only when they do not know the package
# (or, below, when its .deb is gone from the mirror).
candidate() {
	in_buildroot apt-cache policy "$package" | awk '$1 == "Candidate:" && $2 != "(none)" { print $2 }'
}
version=$(candidate)
if [ -z "$version" ]; then
	buildroot_apt_update
	version=$(candidate)
fi
if [ -z "$version" ]; then
	log "no $package in the build root's apt sources"
	exit 1
fi
cache_lock src
if [ -f "$cache/$version/.complete" ]; then
	echo "$cache/$version/$package" >&3
	exit 0
fi

work=$cache/.build.$$
rm -rf "$work"
mkdir -p "$work/deb"
trap 'rm -rf "$work"' EXIT
chmod 1777 "$work/deb"	# apt downloads as the build root's _apt
download() {
	# shellcheck disable=SC2016 # expanded by the build root's shell
	in_buildroot --bind "$work" sh -c 'cd /build/deb && apt-get -q download "$1"' sh "$package=$version"
}
log "downloading $package $version"
if ! download; then
	buildroot_apt_update
	version=$(candidate)
	download
fi

# The tarball is xz in many blocks: xz -T0 decompresses them on every core.
log "unpacking $package $version"
# shellcheck disable=SC2016 # expanded by the build root's shell
in_buildroot --bind "$work" sh -c '
	set -e
	cd /build
	dpkg-deb --fsys-tarfile deb/"$1"_*.deb | tar -xO "./usr/src/$1.tar.xz" | xz -T0 -dc | tar -x
	rm -rf deb' sh "$package"
touch "$work/.complete"
rm -rf "${cache:?}"/[0-9]*	# older versions
mv "$work" "$cache/$version"
trap - EXIT
log "unpacked $cache/$version/$package"
echo "$cache/$version/$package" >&3
