#!/bin/bash
# Usage: tests/vm/selftest.sh
#
# Self-test of the VM harness: boots three tiny payloads and checks boot.sh's
# exit-code contract.  (1) prints "hello from guest" + uname -r, exits 7 -> 1;
# (2) crashes the kernel via sysrq -> 3; (2b) prints a stale int3 oops, then
# crashes -> booted three times, 3; (3) logs a fake WARNING to /dev/kmsg
# and exits 0 -> 2; (4) with --idle 20 and no time limit, a suite that prints
# a line every 5 s for 40 s finishes -> 0, and (5) one that stops printing in
# a test is stopped -> 3, named.  Exits 0 if all pass.  Logs are kept only on failure
# (or with PFPROF_KEEP_LOGS=1). PFPROF_KERNEL as for plots/case-studies.sh.
set -euo pipefail

here=$(cd "$(dirname -- "$0")" && pwd)
log() { printf 'selftest: %s\n' "$*" >&2; }

# shellcheck source=tests/lib/kernels.sh
. "$here/../lib/kernels.sh"
"$here/prepare-host.sh" --guests
kernel_prepare "${PFPROF_KERNEL:-$(host_kernel)}"
kver=$KVER
kernel=$("$here/vmlinux.sh" "$kver" "$KERNEL_IMAGE")

work=$(mktemp -d "${TMPDIR:-/tmp}/pfprof-selftest.XXXXXX")
failed=0
cleanup() {
    if ((failed)) || [[ "${PFPROF_KEEP_LOGS:-}" == 1 ]]; then
        log "logs kept in $work"
    else
        rm -rf "$work"
    fi
}
trap cleanup EXIT

# run_case NAME EXPECTED_EXIT RUN_SCRIPT_BODY: boots the payload, checks the exit.
# boot.sh's limits: $limits (default --timeout 120).
run_case() {
    local name=$1 want=$2 body=$3 dir=$work/$1 got=0
    local -a limits=(--timeout 120)
    [[ -z "${limits_override:-}" ]] || read -ra limits <<<"$limits_override"
    mkdir -p "$dir/payload"
    printf '#!/bin/sh\n%s\n' "$body" >"$dir/payload/run"
    chmod 755 "$dir/payload/run"
    "$here/mkinitramfs.sh" "$dir/initrd.cpio" "$dir/payload"
    "$here/boot.sh" "${limits[@]}" "$kernel" "$dir/initrd.cpio" "$dir/log" \
        >"$dir/stdout" 2>"$dir/stderr" || got=$?
    if ((got != want)); then
        log "FAIL $name: boot.sh exited $got, expected $want; its stderr:"
        sed 's/^/    /' "$dir/stderr" >&2
        failed=1
        return 1
    fi
    log "ok   $name: exit $got; $(grep -h 'wall time' "$dir/stderr" | sed 's/^boot.sh: //')"
}

run_case hello 1 'echo "hello from guest"; uname -r; exit 7' || true
if ! grep -qx 'hello from guest' "$work/hello/log/payload.txt" 2>/dev/null \
    || ! grep -qx "$kver" "$work/hello/log/payload.txt"; then
    log "FAIL hello: payload.txt lacks 'hello from guest' or '$kver'"
    failed=1
fi

run_case crash 3 'echo c > /proc/sysrq-trigger; sleep 30; exit 0' || true

# A console that shows QEMU's stale int3 (stale-int3.sh), then dies: booted
# three times, then the death is reported.
run_case stale_int3 3 "printf '[ 1.0] Oops: int3: 0000 [#1] SMP\\n[ 1.0] RIP: 0010:fake+0x1/0x2\\n[ 1.0] Code: 0f <1f> 44\\n' > /dev/console; echo c > /proc/sysrq-trigger; sleep 30" || true
if ! grep -q 'booting again' "$work/stale_int3/stderr" 2>/dev/null \
    || [[ ! -s "$work/stale_int3/log/console-first-boot.log" ]] \
    || [[ ! -s "$work/stale_int3/log/console-boot-2.log" ]] \
    || [[ -e "$work/stale_int3/log/console-boot-3.log" ]]; then
    log "FAIL stale_int3: boot.sh did not boot three times"
    failed=1
fi

run_case warning 2 "echo 'WARNING: fake splat' > /dev/kmsg; exit 0" || true
if ! grep -q 'WARNING: fake splat' "$work/warning/log/dmesg.txt" 2>/dev/null; then
    log "FAIL warning: dmesg.txt lacks the fake splat"
    failed=1
fi

limits_override="--timeout 0 --idle 20"
# shellcheck disable=SC2016 # expanded in the guest
run_case slow 0 'for i in 1 2 3 4 5 6 7 8; do echo "RUNNING slow for $((i * 5)) s"; sleep 5; done' || true
run_case silent 3 'echo "START quick"; echo "PASS quick (1.5 s)"; echo "START stuck"; sleep 600' || true
if ! grep -q 'it was in test stuck' "$work/silent/stderr" 2>/dev/null \
    || ! grep -q 'quick 1.5 s' "$work/silent/stderr" \
    || ! grep -q 'no console output for 20 s' "$work/silent/stderr"; then
    log "FAIL silent: boot.sh did not say where the guest stopped"
    failed=1
fi
unset limits_override

if ((failed)); then
    log "FAILED"
    exit 1
fi
log "all harness checks passed (kernel $kver, $kernel)"
