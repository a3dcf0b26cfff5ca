#!/usr/bin/env bash
# Usage: tests/fresh-machine.sh [--keep] [--release SUITE] [--command CMD] [COMMIT]
#
# Runs CI's command (.ci/run, which is `make check`; or CMD, e.g. "make
# demo") the way a newcomer meets it: in a fresh Debian system of the host's
# release (or SUITE, e.g. trixie) made with mmdebstrap (minbase, plus git and
# make, the two commands the README starts from), with the host's apt
# sources (their suites renamed for SUITE) and apt settings copied in,
# /proc, /sys and /dev mounted, an empty test cache, no stdin and CI=true,
# on a fresh clone of COMMIT (default HEAD: uncommitted changes are not in
# it). QEMU runs under TCG there as on the host. Not part of make check: it
# takes as long as a cold make check plus about two minutes to make the
# system.
#
# Prints the fresh run's stage times and its tally (or the last lines of
# CMD's output), then one line with the wall time of the whole and CMD's exit
# status, which is also its own. The full log is in
# $BUILD/fresh-machine/ci.log. The system is made in
# $BUILD/fresh-machine/root and removed at the end (--keep keeps it).
# Needs root.
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
keep=false
# shellcheck source=/dev/null # the system's
host=$(. /etc/os-release && echo "$VERSION_CODENAME")
release=$host
command='bash .ci/run'
while [ $# -gt 0 ]; do
	case $1 in
	--keep) keep=true; shift ;;
	--release) release=$2; shift 2 ;;
	--command) command=$2; shift 2 ;;
	-*) sed -n '2s/^# //p' "$0" >&2; exit 64 ;;
	*) break ;;
	esac
done
commit=$(git -C "$top" rev-parse --verify "${1:-HEAD}^{commit}")
out=${BUILD:-$top/build}/fresh-machine
root=$out/root

log() { printf 'fresh-machine: %s\n' "$*" >&2; }
[ "$(id -u)" -eq 0 ] || { log "needs root (mmdebstrap, chroot, mounts)"; exit 1; }
if ! command -v mmdebstrap >/dev/null; then
	log "installing mmdebstrap"
	DEBIAN_FRONTEND=noninteractive apt-get -q install -y --no-install-recommends \
		mmdebstrap </dev/null >&2
fi

start=$SECONDS
rm -rf "$root" "$out/sources"
mkdir -p "$out"
trap '$keep || rm -rf "$root"' EXIT

# The host's apt configuration, as a fresh machine of the same place has it:
# its sources (whatever proxy or snapshot they name; bookworm-updates becomes
# trixie-updates for --release trixie) and its apt settings.
sources=()
for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list /etc/apt/sources.list.d/*.sources; do
	[ -f "$f" ] || continue
	mkdir -p "$out/sources"
	sed "s/\b$host\b/$release/g" "$f" > "$out/sources/${f##*/}"
	sources+=("$out/sources/${f##*/}")
done
((${#sources[@]})) || { log "the host has no apt sources to copy"; exit 1; }
log "mmdebstrap $release into $root (sources: the host's ${sources[*]##*/})"
# shellcheck disable=SC2016 # "$1" belongs to the hooks, expanded by mmdebstrap
mmdebstrap --variant=minbase --include=git,make,ca-certificates \
	--setup-hook='mkdir -p "$1"/etc/apt/apt.conf.d' \
	--setup-hook='cp -a /etc/apt/apt.conf.d/. "$1"/etc/apt/apt.conf.d/' \
	--customize-hook='cp /etc/resolv.conf "$1"/etc/resolv.conf' \
	"$release" "$root" "${sources[@]}" >&2
git clone -q --no-checkout "$top" "$root/root/pfprof"
git -C "$root/root/pfprof" checkout -q "$commit"
setup=$((SECONDS - start))
log "system made in ${setup} s; running $command on $(git -C "$top" log -1 --format='%h %s' "$commit")"

# A mount namespace of its own: the mounts go when the run ends. The root is
# a mount point, as on a machine (the tests' own namespaces make it private).
status=0
# shellcheck disable=SC2016 # expanded by the inner shell
unshare --mount --pid --fork sh -c '
	root=$1
	mount --make-rprivate /
	mount --bind "$root" "$root"
	mount -t proc proc "$root/proc"
	mount --rbind /dev "$root/dev"
	mount -t sysfs sysfs "$root/sys"
	mount -t tmpfs tmpfs "$root/tmp"
	exec chroot "$root" env -i PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
		HOME=/root LC_ALL=C.UTF-8 CI=true \
		sh -c "cd /root/pfprof && exec $2"' sh "$root" "$command" \
	</dev/null >"$out/ci.log" 2>&1 || status=$?

if grep -q '^Time taken by each stage:' "$out/ci.log"; then
	sed -n '/^Time taken by each stage:/,$p' "$out/ci.log"
	grep -E '^FAIL ' "$out/ci.log" || :
else
	tail -n 25 "$out/ci.log"
fi
took=$((SECONDS - start))
printf 'fresh-machine: %dm%02ds in all (%dm%02ds making the %s system); %s exited %d; log: %s\n' \
	$((took / 60)) $((took % 60)) $((setup / 60)) $((setup % 60)) "$release" "$command" "$status" \
	"$out/ci.log"
exit "$status"
