#!/usr/bin/env bash
# Builds the Debian packages, boots Debian's kernel with systemd as init on a
# Debian 12 root file system in QEMU, installs them there with apt and runs
# tests/systemd/run. Ends with "N passed, N failed"; non-zero if anything failed.
# Environment: KVER, PFPROF_CACHE, BUILD as for tests/check.sh.
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=tests/lib/tally.sh
. "$top/tests/lib/tally.sh"
build=${BUILD:-$top/build}
out=$build/systemd

KVER=$(KVER=${KVER:-} "$top/tests/vm/prepare-host.sh")
export KVER
missing=()
for p in mmdebstrap e2fsprogs dpkg-dev debhelper dh-dkms dkms fakeroot lintian rsync; do
	[ "$(dpkg-query -W -f='${db:Status-Status}' "$p" 2>/dev/null)" = installed ] || missing+=("$p")
done
if ((${#missing[@]})); then
	echo "check-packages: installing ${missing[*]}" >&2
	DEBIAN_FRONTEND=noninteractive apt-get -q install -y --no-install-recommends \
		-o Dpkg::Use-Pty=0 "${missing[@]}" </dev/null >&2
fi

# Build from a copy, so that dpkg-buildpackage's ../ outputs land in build/.
rm -rf "$out"
mkdir -p "$out/src" "$out/share/debs" "$out/log"
rsync -a --exclude=/build --exclude=.git "$top/" "$out/src/pfprof/"
echo "check-packages: building the packages" >&2
(cd "$out/src/pfprof" && make -s clean >/dev/null 2>&1; dpkg-buildpackage -us -uc -b) \
	> "$out/log/dpkg-buildpackage.log" 2>&1 ||
	{ tail -n 30 "$out/log/dpkg-buildpackage.log" >&2; echo "0 passed, 1 failed"; exit 1; }
cp "$out"/src/*.deb "$out/share/debs/"
# A tree built with the default paths, for `make install` in the guest.
rsync -a --exclude=/build --exclude=.git "$top/" "$out/share/src/"
make -s -C "$out/share/src" clean >/dev/null 2>&1
make -s -C "$out/share/src" tools daemon > "$out/log/make.log" 2>&1 ||
	{ tail -n 30 "$out/log/make.log" >&2; echo "0 passed, 1 failed"; exit 1; }
install -m 0755 "$top/tests/systemd/run" "$out/share/run"

image=$("$top/tests/vm/rootfs.sh" "$KVER")
vmlinux=$("$top/tests/vm/vmlinux.sh" "$KVER")
"$top/tests/vm/mkinitramfs-root.sh" "$KVER" "$out/initrd.cpio"

status=0
"$top/tests/vm/boot.sh" --mem 2048 --timeout 1500 --drive "$image" --share "$out/share" \
	"$vmlinux" "$out/initrd.cpio" "$out/log" || status=$?

guest_tally "$out/log" "$status" "systemd guest"
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ] && [ "$status" -eq 0 ]
