#!/bin/bash
# Usage: tests/lib/promtool.sh
#
# Prints the path of a promtool: the one on PATH, or the one in Debian 12's
# prometheus package, extracted into the test cache
# (PFPROF_CACHE, default /var/cache/pfprof-test) on first use. The package is
# not installed: that would start a Prometheus server on the host. Progress
# on stderr; tests/warm-cache.sh calls it first, so that no suite downloads.
set -euo pipefail

command -v promtool && exit 0
top=$(cd "$(dirname "$0")/../.." && pwd)
# shellcheck source=tests/lib/cache.sh
. "$top/tests/lib/cache.sh"
cache=${PFPROF_CACHE:-/var/cache/pfprof-test}
candidate() {
	apt-cache policy prometheus | awk '/Candidate:/ { print $2 }'
}
# A machine whose packages are all present may never have read the archive's
# lists (prepare-host.sh updates them only to install).
version=$(candidate)
if [[ -z "$version" || "$version" == "(none)" ]]; then
	echo "promtool: reading the apt archive's lists" >&2
	apt-get -q update </dev/null >&2
	version=$(candidate)
fi
[[ -n "$version" && "$version" != "(none)" ]] ||
	{ echo "promtool: no prometheus package in the apt archive" >&2; exit 1; }
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
