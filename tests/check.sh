#!/usr/bin/env bash
# Builds mp3.ko, the tools, pfprofd/pfprofctl and the guest test suite, runs
# the daemon's host unit tests (not with PFPROF_KERNEL=debug), boots Debian's
# kernel in QEMU with the rest and runs the guest suite there. Ends with
# "N passed, N failed" and exits non-zero if anything failed, including a
# kernel splat in the guest.
#   tests/check.sh [TEST...]     TEST names limit the guest suite (see
#                                 tests/guest/mp3-tests --list)
# Environment: KVER (guest kernel, default: Debian's linux-image-amd64),
# PFPROF_KERNEL=debug (the debug kernel of tests/debug-kernel/ instead, with
# the module built against it in build/debug-module/),
# PFPROF_CACHE (default /var/cache/pfprof-test), BUILD (default ./build).
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=tests/lib/tally.sh
. "$top/tests/lib/tally.sh"
build=${BUILD:-$top/build}
flavour=${PFPROF_KERNEL:-debian}
guest=$build/guest-$flavour
mem=512
timeout_s=600

KVER=$(KVER=${KVER:-} "$top/tests/vm/prepare-host.sh")
export KVER
case $flavour in
debian)
	echo "check: guest kernel $KVER" >&2
	make -s -C "$top/module" KVER="$KVER"
	module=$top/module/mp3.ko
	vmlinux=$("$top/tests/vm/vmlinux.sh" "$KVER") ;;
debug)
	tree=$("$top/tests/debug-kernel/build.sh")
	echo "check: debug guest kernel $tree" >&2
	# A copy: the objects must not mix with those built for Debian's kernel.
	rm -rf "$build/debug-module"
	mkdir -p "$build/debug-module"
	cp -r "$top/module" "$top/include" "$build/debug-module/"
	make -s -C "$build/debug-module/module" clean KDIR="$tree" >/dev/null
	make -s -C "$build/debug-module/module" KDIR="$tree"
	module=$build/debug-module/module/mp3.ko
	vmlinux=$tree/arch/x86/boot/bzImage
	# KASAN's shadow and the checkers' bookkeeping need memory and time.
	mem=1024
	timeout_s=2400 ;;
*)
	echo "check: PFPROF_KERNEL must be debian or debug" >&2
	exit 64 ;;
esac

make -s -C "$top/tools" STATIC=1
make -s -C "$top/daemon"
make -s -C "$top/tests/guest"

# The daemon's host unit tests first; their tally joins the guest's. They do
# not depend on the kernel: the debug kernel's run leaves them to the other.
host_passed=0
host_failed=0
host_status=0
if [ "$flavour" = debian ]; then
	host_log=$build/host-tests.log
	mkdir -p "$build"
	make -s -C "$top/daemon" test > "$host_log" || host_status=$?
	grep -v -E '^[0-9]+ passed, [0-9]+ failed$' "$host_log" || true
	tally_of "$host_log" || echo "FAIL host unit tests did not report a result"
	host_passed=$passed
	host_failed=$failed
fi

rm -rf "$guest"
mkdir -p "$guest/payload" "$guest/log"
install -m 0644 "$module" "$guest/payload/"
install -m 0755 "$top/tools/work" "$top/tools/monitor" \
	"$top/daemon/pfprofd" "$top/daemon/pfprofctl" \
	"$top/tests/guest/mp3-tests" "$top/tests/guest/run" "$guest/payload/"
printf '%s\n' "$@" > "$guest/payload/tests.list"

"$top/tests/vm/mkinitramfs.sh" "$guest/test.cpio" "$guest/payload"

status=0
"$top/tests/vm/boot.sh" --mem "$mem" --timeout "$timeout_s" "$vmlinux" "$guest/test.cpio" \
	"$guest/log" || status=$?

guest_tally "$guest/log" "$status" "$flavour guest"
passed=$((passed + host_passed))
failed=$((failed + host_failed))
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ] && [ "$status" -eq 0 ] && [ "$host_status" -eq 0 ]
