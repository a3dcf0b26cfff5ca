#!/bin/bash
# Usage: tests/lib/promtool.sh
#
# Prints the path of a promtool: the one on PATH, or the one in Debian 12's
# prometheus package, extracted into the test cache
# (PFPROF_CACHE, default /var/cache/pfprof-test) on first use. The package is
# not installed: that would start a Prometheus server on the host.
set -euo pipefail

command -v promtool && exit 0
top=$(cd "$(dirname "$0")/../.." && pwd)
# shellcheck source=tests/lib/cache.sh
. "$top/tests/lib/cache.sh"
cache=${PFPROF_CACHE:-/var/cache/pfprof-test}
version=$(apt-cache policy prometheus | awk '/Candidate:/ { print $2 }')
[[ -n "$version" && "$version" != "(none)" ]] ||
	{ echo "promtool: no prometheus package in the apt archive (apt-get update?)" >&2; exit 1; }
dir=$cache/promtool/${version//[:~]/_}
cache_lock "promtool"
if [[ ! -x "$dir/usr/bin/promtool" ]]; then
	echo "promtool: fetching prometheus $version" >&2
	tmp=$(mktemp -d)
	trap 'rm -rf "$tmp"' EXIT
	(cd "$tmp" && apt-get -q -o APT::Sandbox::User=root download "prometheus=$version" >&2)
	rm -rf "$dir"
	mkdir -p "$dir"
	dpkg-deb -x "$tmp"/prometheus_*.deb "$tmp/x"
	install -D -m 0755 "$tmp/x/usr/bin/promtool" "$dir/usr/bin/promtool"
fi
echo "$dir/usr/bin/promtool"
