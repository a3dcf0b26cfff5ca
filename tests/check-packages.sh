#!/usr/bin/env bash
# Builds the Debian packages once, in the Debian 12 build root
# (tests/vm/buildroot.sh: the .debs are the oldest release's, so that both
# install them, whatever the host runs), checks them with the lintian of each
# release (in its build root), then, for each release, boots that release's kernel with systemd
# as init on that release's root file system in QEMU, installs the same .debs
# there with apt and runs tests/systemd/run. Every PASS/FAIL line names its
# release. Ends with one "N passed, N failed" for all releases; non-zero if
# anything failed.
# Environment:
#   PFPROF_RELEASES  the releases to test, in order (default "bookworm trixie"):
#                    bookworm = Debian 12 (6.1), trixie = Debian 13 (6.12)
#   PFPROF_CACHE, BUILD as for tests/check.sh.
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=tests/lib/tally.sh
. "$top/tests/lib/tally.sh"
# shellcheck source=tests/lib/kernels.sh
. "$top/tests/lib/kernels.sh"
build=${BUILD:-$top/build}
out=$build/systemd

read -r -a releases <<<"${PFPROF_RELEASES:-bookworm trixie}"
((${#releases[@]})) || { echo "check-packages: PFPROF_RELEASES names no release" >&2; exit 64; }
for r in "${releases[@]}"; do
	case $r in
	bookworm | trixie) ;;
	*) echo "check-packages: unknown release '$r' (bookworm or trixie)" >&2; exit 64 ;;
	esac
done

"$top/tests/vm/prepare-host.sh"

# in_release_root RELEASE [--bind DIR[:PATH]]... CMD...: CMD in RELEASE's build root.
in_release_root() {
	local KERNEL_BUILDROOT
	KERNEL_BUILDROOT=$("$top/tests/vm/buildroot.sh" "$1") || return 1
	shift
	in_buildroot "$@"
}

# Build from a copy, so that dpkg-buildpackage's ../ outputs land in build/,
# with the README's own lines (the build root has what they install).
rm -rf "$out"
mkdir -p "$out/src" "$out/share/debs" "$out/log"
rsync -a --exclude=/build --exclude=.git "$top/" "$out/src/pfprof/"
echo "check-packages: building the packages as README.md says, in Debian 12" >&2
readme_build=$("$top/tests/lib/readme-block.sh" build) ||
	{ echo "check-packages: README.md has no 'tested: build' block"; echo "0 passed, 1 failed"; exit 1; }
# shellcheck disable=SC2016 # expanded in the build root
in_release_root bookworm --bind "$out/src" sh -c \
	'cd /build/pfprof && make -s clean >/dev/null 2>&1; exec bash -ex -c "$1"' sh "$readme_build" \
	< /dev/null > "$out/log/dpkg-buildpackage.log" 2>&1 ||
	{ tail -n 30 "$out/log/dpkg-buildpackage.log" >&2; echo "0 passed, 1 failed"; exit 1; }
cp "$out"/src/*.deb "$out/share/debs/"
# A tree built with the default paths, for `make install` in the guests.
rsync -a --exclude=/build --exclude=.git "$top/" "$out/share/src/"
in_release_root bookworm --bind "$out/share/src" sh -c \
	'make -s -C /build clean >/dev/null 2>&1; exec make -s -C /build tools daemon pfprofctl' \
	> "$out/log/make.log" 2>&1 ||
	{ tail -n 30 "$out/log/make.log" >&2; echo "0 passed, 1 failed"; exit 1; }
install -m 0755 "$top/tests/systemd/run" "$out/share/run"

total_passed=0
total_failed=0
pass() { echo "PASS $1"; total_passed=$((total_passed + 1)); }
fail() { echo "FAIL $1"; total_failed=$((total_failed + 1)); }

# lintian RELEASE CMD...: the packages checked by that release's lintian (CMD
# runs it), which must report no error and no warning. Info tags are logged,
# not failed on.
lintian_check() {
	local release=$1 log=$out/log/lintian-$1.log
	shift
	if "$@" > "$log" 2>&1; then
		pass "$release: lintian ($(grep -m1 -io 'lintian v[^ ]*' "$log" || echo lintian)) reports no error or warning"
	else
		fail "$release: lintian reports errors or warnings (see $log):"
		grep -E '^[EW]: ' "$log" | sed 's/^/    /' || tail -n 20 "$log" | sed 's/^/    /'
	fi
	grep -E '^I: ' "$log" | sed 's/^/    info: /' || :
}
lintian_opts=(--fail-on 'error,warning' --display-info --tag-display-limit 0)

# guest RELEASE: tests/systemd/run in a booted RELEASE guest, with a copy of
# the share of its own (the .debs are the same files for every release).
guest() {
	local release=$1 share=$out/$1/share log=$out/log/$1 image vmlinux status t0
	shift

	kernel_prepare "$release" || { fail "$release: no kernel to boot"; return; }
	echo "check-packages: $release guest, kernel $KVER" >&2
	# shellcheck disable=SC2016 # expanded in the build root
	lintian_check "$release" in_buildroot --bind "$out/share/debs" \
		sh -c 'lintian -V && exec lintian "$@" /build/*.deb' sh "${lintian_opts[@]}"
	image=$("$top/tests/vm/rootfs.sh" "$release" "$KVER" "$KERNEL_ROOT") ||
		{ fail "$release: no root file system image (tests/vm/rootfs.sh)"; return; }
	vmlinux=$("$top/tests/vm/vmlinux.sh" "$KVER" "$KERNEL_IMAGE") || {
		echo "check-packages: no vmlinux for $KVER; booting $KERNEL_IMAGE" >&2
		vmlinux=$KERNEL_IMAGE
	}
	mkdir -p "$out/$release" "$log"
	"$top/tests/vm/mkinitramfs-root.sh" "$KVER" "$out/$release/initrd.cpio" "$KERNEL_ROOT" ||
		{ fail "$release: no initramfs (tests/vm/mkinitramfs-root.sh)"; return; }
	rm -rf "$share"
	cp -a "$out/share" "$share"

	status=0
	t0=$SECONDS
	# Hung only once silent: a DKMS build in the guest prints nothing for
	# minutes (over 380 s once on a loaded host), the rest a line a check.
	"$top/tests/vm/boot.sh" --mem 2048 --timeout 0 --idle 900 --drive "$image" --share "$share" \
		"$vmlinux" "$out/$release/initrd.cpio" "$log" || status=$?
	echo "check-packages: $release guest took $((SECONDS - t0)) s" >&2
	guest_tally "$log" "$status" "$release: systemd guest"
	total_passed=$((total_passed + passed))
	total_failed=$((total_failed + failed))
}

for r in "${releases[@]}"; do
	guest "$r"
done
stage_time "packages: build, lintian, ${releases[*]} guests"

echo "$total_passed passed, $total_failed failed"
[ "$total_failed" -eq 0 ]
