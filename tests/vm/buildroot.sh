#!/bin/bash
# Usage: tests/vm/buildroot.sh bookworm|trixie
#
# Prints the path of a build root of Debian 12 (bookworm) or Debian 13
# (trixie): a chroot made with mmdebstrap holding that release's compiler
# and what is built or run with it, with the release's -updates and
# -security (and trixie-backports, the newest kernels) in its own apt
# sources. The host's apt sources are never touched, and the host may be
# either release: everything of a release is fetched by its build root's apt.
#   bookworm  gcc-12: Debian 12's kernel's module, sparse on it; the Debian
#             packages (the README's build lines), the programs installed from
#             source in the packaging guests, Debian 12's lintian.
#   trixie    gcc-14: the module for Debian 13's and the newest kernels,
#             sparse on it (sid's: sparse-from-sid.sh), the debug kernel;
#             Debian 13's lintian; and QEMU 11.1 (trixie-backports'), which
#             boots every guest (boot.sh).
# Kernel headers are added by tests/lib/kernels.sh. Cached under
# ${PFPROF_CACHE:-/var/cache/pfprof-test}/buildroot/, keyed by what it is made
# of (suite, sources and packages); built when missing. Progress goes to stderr.
set -euo pipefail

# shellcheck source=tests/lib/cache.sh
. "$(dirname "$0")/../lib/cache.sh"
# shellcheck source=tests/lib/debian-tree.sh
. "$(dirname "$0")/../lib/debian-tree.sh"
log() { printf 'buildroot: %s\n' "$*" >&2; }
usage() { sed -n '2s/^# //p' "$0" >&2; exit 64; }
exec 3>&1 1>&2

(($# == 1)) || usage
suite=$1
mirror=http://deb.debian.org/debian
# Both: what building a module with W=1 (perl: kernel-doc) and sparse need,
# and the release's lintian.
packages=gcc,make,libc6-dev,libelf-dev,bc,kmod,perl,sparse,lintian
# Scripts of this folder run as customize hooks, with the tree as argument.
hook_scripts=()
case $suite in
bookworm)
	# The README's build lines install these; here they are already, as the
	# lines run with no one to answer apt.
	packages+=,gcc-12,build-essential,debhelper,dh-dkms,libsystemd-dev,libjson-c-dev,pkg-config
	packages+=,gnuplot-nox,jq
	sources=("deb $mirror bookworm main" "deb $mirror bookworm-updates main"
		"deb http://deb.debian.org/debian-security bookworm-security main") ;;
trixie)
	# pahole: 6.12+ headers run the BTF step; flex, bison, libssl-dev, cpio:
	# the debug kernel. QEMU from trixie-backports (11.1), with the parts that
	# must be as new: with a thread per vCPU, trixie's 10.0 let a vCPU run an
	# int3 text_poke_bp() had taken back (600 cycles of the guest test
	# load_beside_activity's loads on 6.12: after about 3 minutes); 11.1 ran
	# all 600.
	packages+=,gcc-14,pahole,flex,bison,libssl-dev,cpio,xz-utils,zstd,qemu-system-x86/trixie-backports
	packages+=,qemu-system-common/trixie-backports,qemu-system-data/trixie-backports,seabios/trixie-backports
	sources=("deb $mirror trixie main" "deb $mirror trixie-updates main"
		"deb $mirror trixie-backports main" "deb http://deb.debian.org/debian-security trixie-security main")
	hook_scripts=(sparse-from-sid.sh) ;;
*) log "unknown suite '$suite'"; usage ;;
esac
hooks=()
for script in "${hook_scripts[@]}"; do
	hooks+=("--customize-hook=$(cd "$(dirname "$0")" && pwd)/$script \"\$1\"")
done
key=$( (printf '%s\n' "$packages" "${sources[@]}"
	for script in "${hook_scripts[@]}"; do cat "$(dirname "$0")/$script"; done) |
	sha256sum | cut -c1-12)
cache=${PFPROF_CACHE:-/var/cache/pfprof-test}/buildroot
root=$cache/$suite-$key

cache_lock "buildroot-$suite"
if [[ -f "$root/.complete" ]]; then
	log "cached: $root"
	printf '%s\n' "$root" >&3
	exit 0
fi
command -v mmdebstrap >/dev/null || { log "error: mmdebstrap is not installed"; exit 1; }

mkdir -p "$cache"
work=$(mktemp -d "$cache/.build.XXXXXX")
trap 'rm -rf "$work"' EXIT

log "mmdebstrap $suite ($packages)"
# shellcheck disable=SC2016 # "$1" belongs to the hook, expanded by mmdebstrap
debian_tree --include="$packages" \
	--customize-hook='rm -rf "$1"/var/cache/apt/archives/*.deb' "${hooks[@]}" \
	"$suite" "$work/root" "${sources[@]}" >&2
touch "$work/root/.complete"
rm -rf "$cache/$suite"-*	# built by older versions of this script
mv "$work/root" "$root"
log "built $root"
printf '%s\n' "$root" >&3
