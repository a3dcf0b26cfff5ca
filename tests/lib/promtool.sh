#!/bin/bash
# Usage: tests/lib/promtool.sh
#
# Prints the path of a promtool: the one on PATH, or the one in Debian 12's
# prometheus package (Debian 13's has none), fetched by the apt of Debian
# 12's build root (tests/vm/buildroot.sh), whatever the host runs, and
# extracted into the test cache (PFPROF_CACHE, default /var/cache/pfprof-test)
# on first use. The package is not installed: that would start a Prometheus
# server. Progress on stderr; tests/warm-cache.sh calls it first, so that no
# suite downloads.
set -euo pipefail

command -v promtool && exit 0
top=$(cd "$(dirname "$0")/../.." && pwd)
# shellcheck source=tests/lib/kernels.sh
. "$top/tests/lib/kernels.sh"
cache=${PFPROF_CACHE:-/var/cache/pfprof-test}
KERNEL_BUILDROOT=$("$top/tests/vm/buildroot.sh" bookworm)
candidate() {
	in_buildroot apt-cache policy prometheus | awk '/Candidate:/ { print $2 }'
}
# A build root just made has read the archive's lists; an older one may not
# have them any more.
version=$(candidate)
if [[ -z "$version" || "$version" == "(none)" ]]; then
	echo "promtool: reading the apt archive's lists" >&2
	buildroot_apt_update
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
	# shellcheck disable=SC2016 # expanded in the build root
	in_buildroot --bind "$tmp" sh -c 'cd /build && exec apt-get -q -o APT::Sandbox::User=root download "$1"' \
		sh "prometheus=$version" >&2
	rm -rf "$dir"
	mkdir -p "$dir"
	dpkg-deb -x "$tmp"/prometheus_*.deb "$tmp/x"
	install -D -m 0755 "$tmp/x/usr/bin/promtool" "$dir/usr/bin/promtool"
fi
echo "$dir/usr/bin/promtool"
