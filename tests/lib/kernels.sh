# shellcheck shell=bash
# Sourced by the test drivers: the kernels the suite runs on, and how to
# build the module for each with that kernel's own headers and compiler.
#
#   bookworm          Debian 12: linux-image-amd64 (6.1), gcc-12
#   trixie            Debian 13: linux-image-amd64 (6.12), gcc-14
#   trixie-backports  the newest: trixie-backports' linux-image-amd64 (7.x), gcc-14
#   trixie-rt         Debian 13's PREEMPT_RT kernel: linux-image-rt-amd64 (6.12),
#                     gcc-14; the module builds there and refuses to load
#
# Versions are derived from the archive at run time. Each kernel's image and
# modules are unpacked under $PFPROF_CACHE/kernels/<version>/, never
# installed: what the host boots does not change. Each kernel's headers go
# into the build root of its release (tests/vm/buildroot.sh), so the host
# may be Debian 12 or 13: its own headers and apt sources are never used.

# shellcheck source=tests/lib/cache.sh
. "$(dirname "${BASH_SOURCE[0]}")/cache.sh"
# shellcheck source=tests/lib/host.sh
. "$(dirname "${BASH_SOURCE[0]}")/host.sh"

# shellcheck disable=SC2034 # read by the scripts that source this file
PFPROF_ALL_KERNELS="bookworm trixie trixie-backports trixie-rt"

# kernel_prepare NAME: sets
#   KVER             the kernel's version (uname -r), e.g. 6.12.48+deb13-amd64
#   KERNEL_IMAGE     its bzImage (vmlinuz)
#   KERNEL_ROOT      the directory holding lib/modules/$KVER or usr/lib/modules/$KVER
#   KERNEL_BUILDROOT the chroot that builds for it: its release's build root
kernel_prepare() {
	local name=$1 tests_dir
	tests_dir=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)

	case $name in
	bookworm | trixie | trixie-backports | trixie-rt) ;;
	*)
		echo "kernels: unknown kernel '$name' (one of: $PFPROF_ALL_KERNELS)" >&2
		return 64 ;;
	esac
	# The rest of what the build root's users need, prepare-host.sh installed.
	host_install mmdebstrap
	KERNEL_BUILDROOT=$("$tests_dir/vm/buildroot.sh" "${name%%-*}") &&
		KVER=$(kernel_version_in "$name") &&
		kernel_fetch "$name" || return 1
	export KVER KERNEL_IMAGE KERNEL_ROOT KERNEL_BUILDROOT
}

# host_kernel: the kernel of those above that the host builds for and
# boots guests with: its own release's (make demo, make bench).
host_kernel() {
	case $(host_release) in
	bookworm | trixie) host_release ;;
	*)
		echo "kernels: this host is $(host_release); Debian 12 (bookworm) or 13 (trixie) is needed" >&2
		return 1 ;;
	esac
}

# in_buildroot [--bind DIR[:PATH]]... CMD...: CMD in the build root, in a
# mount namespace of its own with /proc mounted (7.x's objtool reads it),
# /dev bound from the host and each DIR at PATH (default /build). Its / is a
# mount point, as on a machine (the unit tests that dpkg-buildpackage runs
# make it private). Nothing stays mounted.
in_buildroot() {
	local binds=''

	while [ "$1" = --bind ]; do
		case $2 in
		*:*) binds+="$2 " ;;
		*) binds+="$2:/build " ;;
		esac
		shift 2
	done
	# shellcheck disable=SC2016 # expanded by the inner shell
	unshare --mount --pid --fork --mount-proc="$KERNEL_BUILDROOT/proc" sh -c '
		root=$1 binds=$2
		shift 2
		mount --rbind "$root" "$root"
		mount --rbind /dev "$root/dev"
		for bind in $binds; do
			mkdir -p "$root${bind#*:}"
			mount --bind "${bind%%:*}" "$root${bind#*:}"
		done
		exec chroot "$root" env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root \
			LC_ALL=C.UTF-8 "$@"' sh "$KERNEL_BUILDROOT" "$binds" "$@"
}

# buildroot_apt_update: apt-get update in $KERNEL_BUILDROOT, one process at
# a time.
buildroot_apt_update() {
	(
		cache_lock buildroot-apt
		in_buildroot apt-get -q update
	) >&2
}

# kernel_apt_update: apt-get update in $KERNEL_BUILDROOT, unless
# apt_lists_recent there.
kernel_apt_update() {
	apt_lists_recent "$KERNEL_BUILDROOT" || buildroot_apt_update
}

# kernel_version_in SUITE: the version whose image SUITE's linux-image-amd64
# depends on (bookworm and trixie count their -security's and -updates' too);
# trixie-rt: trixie's linux-image-rt-amd64.
kernel_version_in() {
	local suite=$1 meta=linux-image-amd64 pattern version

	if [ "$suite" = trixie-rt ]; then
		suite=trixie meta=linux-image-rt-amd64
	fi
	case $suite in
	bookworm | trixie) pattern=" $suite(-security|-updates)?/main " ;;
	*) pattern=" $suite/main " ;;
	esac
	kernel_apt_update
	version=$(in_buildroot apt-cache madison "$meta" |
		awk -F'|' -v re="$pattern" '$3 ~ re { gsub(/ /, "", $2); print $2 }' |
		sort -V | tail -n 1)
	if [ -z "$version" ]; then
		echo "kernels: no $meta in $suite" >&2
		return 1
	fi
	package_depends "$meta=$version" 'linux-image-[0-9]' | awk '{
		sub(/^linux-image-/, "", $1); print $1 }'
}

# kernel_fetch: $KVER's image and modules unpacked into the cache, its
# headers into the build root, each when missing there (a build root is made
# again when its packages change; the kernels stay). Unpacked, not
# installed: trixie's headers package depends on the image, whose
# installation would build an initramfs for nothing. 7.x splits the image
# into linux-binary-* (the kernel, in /usr/lib/modules/$KVER/vmlinuz) and
# linux-modules-*.
kernel_fetch() {
	local dir kver_re=${KVER//./\\.}

	dir=${PFPROF_CACHE:-/var/cache/pfprof-test}/kernels/$KVER
	# shellcheck disable=SC2046 # one package per word
	kernel_unpack "kernels-$KVER" "$dir/.complete" "$dir/root" "$guest_files" \
		"linux-image-$KVER" $(package_depends "linux-image-$KVER" \
		"linux-(binary|modules)-${kver_re//+/\\+}") || return 1
	# shellcheck disable=SC2046 # one package per word
	kernel_unpack "headers-$KVER-${KERNEL_BUILDROOT##*/}" \
		"$KERNEL_BUILDROOT/usr/src/linux-headers-$KVER/Makefile" "$KERNEL_BUILDROOT" '' \
		"linux-headers-$KVER" $(package_depends "linux-headers-$KVER" 'linux-(headers|kbuild)-') ||
		return 1
	kbuild_checker_fill || return 1
	KERNEL_ROOT=$dir/root
	for KERNEL_IMAGE in "$dir/root/boot/vmlinuz-$KVER" "$dir/root/usr/lib/modules/$KVER/vmlinuz" ''; do
		[ -z "$KERNEL_IMAGE" ] || [ ! -f "$KERNEL_IMAGE" ] || break
	done
	if [ -z "$KERNEL_IMAGE" ]; then
		echo "kernels: no vmlinuz in linux-image-$KVER" >&2
		return 1
	fi
}

# kbuild_checker_fill: tests/vm/checker-valid.sh into $KVER's kbuild scripts
# in the build root when its Makefile asks for scripts/checker-valid.sh and
# Debian's linux-kbuild package lacks it (7.x): without it, 7.x's Makefile
# turns sparse (C=2) off and the module's sparse check would pass unchecked.
kbuild_checker_fill() {
	local headers=$KERNEL_BUILDROOT/usr/src/linux-headers-$KVER scripts

	grep -qs 'scripts/checker-valid\.sh' "$headers"/Makefile "${headers%-*}"-common/Makefile ||
		return 0
	scripts=$(readlink -f "$headers/scripts")
	[ -f "$scripts/checker-valid.sh" ] ||
		install -m 0755 "$(dirname "${BASH_SOURCE[0]}")/../vm/checker-valid.sh" "$scripts/"
}

# kernel_unpack LOCK DONE ROOT REGEX PACKAGE...: unless the file DONE exists,
# PACKAGEs downloaded and their files matching REGEX (unpack_debs) unpacked
# into ROOT, under the cache lock LOCK; DONE must exist afterwards (a
# .complete marker is touched then; any other file must be one of theirs).
kernel_unpack() {
	local lock=$1 done=$2 root=$3 regex=$4
	shift 4
	(
		set -e
		cache_lock "$lock"
		[ ! -f "$done" ] || exit 0
		debs=$(mktemp -d "${PFPROF_CACHE:-/var/cache/pfprof-test}/.debs.XXXXXX")
		trap 'rm -rf "$debs"' EXIT
		mkdir -p "$root"
		echo "kernels: downloading $* into $root" >&2
		kernel_download "$debs" "$@" >&2
		unpack_debs "$debs" "$root" "$regex" "$@"
		[ "${done##*/}" != .complete ] || touch "$done"
		[ -f "$done" ] || { echo "kernels: $* gave no $done" >&2; exit 1; }
	)
}

# kernel_download DIR PACKAGE...: PACKAGEs' .debs downloaded into DIR by the
# apt of $KERNEL_BUILDROOT. As root: the directory is not apt's sandbox user's.
kernel_download() {
	local dir=$1
	shift
	in_buildroot --bind "$dir" sh -c 'cd /build && exec apt-get -q -o APT::Sandbox::User=root download "$@"' \
		sh "$@"
}

# package_depends PACKAGE REGEX: what PACKAGE depends on that matches REGEX,
# on one line. (No head(1) in these pipelines: under pipefail the SIGPIPE of
# what writes into it would fail them.)
package_depends() {
	in_buildroot apt-cache show "$1" | awk -v re="^$2" '
		/^Depends: / && !done {
			done = 1
			sub(/^Depends: /, "")
			n = split($0, alternatives, /[,|]/)
			for (i = 1; i <= n; i++) {
				split(alternatives[i], words, " ")
				if (words[1] ~ re && !seen[words[1]]++)
					printf "%s ", words[1]
			}
		}'
}

# What the guests use of an image package: the kernel, and the modules the
# systemd guest copies (tests/vm/rootfs.sh), not the 400 MB of drivers.
guest_files='/vmlinuz[^/]*$|/modules\.[a-z.]+$'
guest_files+='|/kernel/(arch|block|crypto|fs|lib|mm|virt|net/9p)/.*[^/]$'
guest_files+='|/kernel/drivers/(virtio|block|char|input|hid)/.*[^/]$'

# unpack_debs DIR ROOT REGEX PACKAGE...: the files of PACKAGEs' .debs in DIR
# whose path matches REGEX (all of them if REGEX is empty), unpacked in ROOT.
# A directory of ROOT that is a symbolic link stays one: in a merged-/usr
# build root, /lib is one, and Debian 12's headers package has files in it.
unpack_debs() {
	local dir=$1 root=$2 regex=$3 p deb
	shift 3

	for p in "$@"; do
		for deb in "$dir/${p}"_*.deb; do
			if [ -z "$regex" ]; then
				dpkg-deb --fsys-tarfile "$deb" | tar -x --keep-directory-symlink -C "$root"
			else
				dpkg-deb --fsys-tarfile "$deb" | tar -t | { grep -E "$regex" || :; } |
					tar -x --keep-directory-symlink -C "$root" -T - -f <(dpkg-deb --fsys-tarfile "$deb")
			fi
		done
	done
}

# debug_kernel_prepare: as kernel_prepare, for the debug kernel that
# tests/debug-kernel/build.sh builds in the build root, plus KERNEL_SOURCE
# and KERNEL_TREE, the source and the objects modules are built against.
debug_kernel_prepare() {
	local tests_dir
	tests_dir=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)

	KERNEL_BUILDROOT=$("$tests_dir/vm/buildroot.sh" trixie)
	KERNEL_TREE=$("$tests_dir/debug-kernel/build.sh")
	KERNEL_SOURCE=$("$tests_dir/debug-kernel/source.sh")
	KERNEL_IMAGE=$KERNEL_TREE/arch/x86/boot/bzImage
	KERNEL_ROOT=''
	KVER=$(cat "$KERNEL_TREE/include/config/kernel.release")
	export KVER KERNEL_IMAGE KERNEL_ROOT KERNEL_BUILDROOT KERNEL_TREE KERNEL_SOURCE
}

# module_build DIR [MAKE ARGUMENTS...]: a copy of module/ and include/ in
# DIR, built for $KVER with its own headers and compiler: DIR/module/mp3.ko.
module_build() {
	local dir=$1 top
	shift
	top=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)

	rm -rf "$dir"
	mkdir -p "$dir/module"
	cp -r "$top/include" "$dir/"
	# The sources only: objects of another kernel's build must not mix in.
	cp "$top/module/Kbuild" "$top/module/Makefile" "$top"/module/*.h "$dir/module/"
	find "$top/module" -maxdepth 1 -name '*.c' ! -name '*.mod.c' -exec cp -t "$dir/module/" {} +
	if [ -n "${KERNEL_TREE:-}" ]; then
		# Where tests/debug-kernel/build.sh built it.
		in_buildroot --bind "$KERNEL_SOURCE:/usr/src/linux-source-6.12" \
			--bind "$KERNEL_TREE" --bind "$dir:/module-build" \
			make -s -C /module-build/module KDIR=/build "$@"
	else
		in_buildroot --bind "$dir" make -s -C /build/module KVER="$KVER" "$@"
	fi
}
