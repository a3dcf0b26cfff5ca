#!/bin/bash
# Usage: tests/lib/promtool.sh
#
# Prints the path of a promtool: the one on PATH, or the one in Debian 12's
# prometheus package (Debian 13's has none), fetched by this system's apt on
# Debian 12 (a host, or the build root where dpkg-buildpackage runs the unit
# tests), else by the apt of Debian 12's build root (tests/vm/buildroot.sh),
# and extracted into the test cache (PFPROF_CACHE, default
# /var/cache/pfprof-test) on first use. The package is not installed: that
# would start a Prometheus server. Progress on stderr; tests/warm-cache.sh
# calls it first, so that no suite downloads.
set -euo pipefail

command -v promtool && exit 0
top=$(cd "$(dirname "$0")/../.." && pwd)
# shellcheck source=tests/lib/kernels.sh
. "$top/tests/lib/kernels.sh"
cache=${PFPROF_CACHE:-/var/cache/pfprof-test}
if [[ $(host_release) == bookworm ]]; then
	in_debian12() { "$@"; }
	debian12_apt_update() { apt-get -q update </dev/null >&2; }
	# download DIR PACKAGE: PACKAGE's .deb into DIR.
	download() { (cd "$1" && exec apt-get -q -o APT::Sandbox::User=root download "$2"); }
else
	KERNEL_BUILDROOT=$("$top/tests/vm/buildroot.sh" bookworm)
	in_debian12() { in_buildroot "$@"; }
	debian12_apt_update() { buildroot_apt_update; }
	download() { kernel_download "$@"; }
fi
candidate() {
	in_debian12 apt-cache policy prometheus | awk '/Candidate:/ { print $2 }'
}
# A machine whose packages are all present may never have read the archive's
# lists.
version=$(candidate)
if [[ -z "$version" || "$version" == "(none)" ]]; then
	echo "promtool: reading the apt archive's lists" >&2
	debian12_apt_update
	version=$(candidate)
fi
[[ -n "$version" && "$version" != "(none)" ]] ||
	{ echo "promtool: no prometheus package in Debian 12's archive" >&2; exit 1; }
dir=$cache/promtool/${version//[:~]/_}
cache_lock "promtool"
if [[ ! -x "$dir/usr/bin/promtool" ]]; then
	echo "promtool: fetching prometheus $version" >&2
	tmp=$(mktemp -d)
	trap 'rm -rf "$tmp"' EXIT
	download "$tmp" "prometheus=$version" >&2
	rm -rf "$dir"
	mkdir -p "$dir"
	dpkg-deb -x "$tmp"/prometheus_*.deb "$tmp/x"
	install -D -m 0755 "$tmp/x/usr/bin/promtool" "$dir/usr/bin/promtool"
fi
echo "$dir/usr/bin/promtool"
