#!/bin/bash
# Usage: tests/vm/boot.sh [--mem MB] [--smp N] [--timeout SEC] [--idle SEC] [--append "ARGS"] [--drive IMG] [--share DIR] [--icount] KERNEL INITRD LOGDIR
#
# Boots KERNEL (vmlinux.sh) + INITRD (mkinitramfs.sh) under QEMU/TCG, console live
# on stdout. QEMU is trixie-backports' (11.1), from the trixie build root
# (buildroot.sh), on any host; each virtual CPU runs on a host thread of its
# own (multi-threaded TCG), so that the module's lock-free paths run truly
# side by side. Debian 12's QEMU 7.2 and Debian 13's 10.0 cannot be trusted
# with that: a vCPU there can execute an int3 that text_poke_bp() already
# took back, when a module load or unload switches a tracepoint another vCPU
# is passing ("Oops: int3"; the guest test load_beside_activity crashes 7.2
# within a second; 600 cycles of its loads crashed 10.0 after 3 minutes). 11.1
# does it too, rarely: once in CI's run of 51d7a32 (the trixie guest, while
# the module was being unloaded). A guest that died of it boots
# again, three boots at most (stale-int3.sh tells that death from the
# module's own). Writes to LOGDIR: console.log
# (ttyS0), result.txt (ttyS1, raw), payload.txt and dmesg.txt (sections of
# result.txt). Verdict on stderr. Needs root (a mount namespace, chroot).
# --drive IMG: a raw disk as /dev/vda (-snapshot: the image is never written);
# --share DIR: DIR as the 9p share with mount tag "host".
# --timeout SEC: the guest is stopped SEC s after it started (0: never;
#   default 600). --idle SEC: stopped once its console has been silent for
#   SEC s: a test suite that keeps printing is slow, not hung, however long
#   it takes (tests/harness/runner.h prints a line at least every 30 s).
#   Either way it is reported as hung with where it was: the test it had
#   started and not finished ("START name" lines), the tests that finished
#   and how long each took ("PASS name (N.N s)"), its last lines.
# --icount: the guest's clock counts instructions, 1 ns each (QEMU -icount
#   shift=0): a time measured in the guest is the number of instructions run,
#   the same from one run and machine to the next.  Only with --smp 1, on
#   one host thread: QEMU refuses icount with multi-threaded TCG.
# Kernel args: console=ttyS0 panic=-1 oops=panic quiet loglevel=4 printk.time=1
#   log_buf_len=8M rdinit=/init + --append (8M: a chatty payload must not push
#   early-boot splats out of the 128K default ring buffer before dmesg is read).
# PFPROF_GUEST_LOCK=FILE: one guest at a time among the boot.sh runs that
#   name the same FILE (make check's lanes run theirs side by side without
#   it: tests/README.md says what each costs); the wait for it is said and
#   not counted in the guest's wall time.
# Exit: 0 payload rc=0 and no kernel splat
#       1 payload rc!=0 (no splat)
#       2 kernel splat (WARNING/BUG/Oops/lockdep/KASAN/...) in dmesg or console, whatever rc
#       3 guest hung (timeout), panicked or died (no RESULT line)
#      64 usage error
set -euo pipefail

usage() { sed -n '2s/^# //p' "$0" >&2; exit 64; }
log() { printf 'boot.sh: %s\n' "$*" >&2; }

here=$(cd "$(dirname "$0")" && pwd)
mem=512 smp=2 timeout_s=600 idle_s=0 extra=""
devices=() accel=(-accel "tcg,thread=multi")
# in_qemu_root PATH: PATH as QEMU sees it (the host's / is /host there).
in_qemu_root() { printf '/host%s' "$(realpath -m "$1")"; }
while (($#)); do
    case $1 in
        --mem | --smp | --timeout | --idle | --append | --drive | --share)
            (($# >= 2)) || usage
            case $1 in
                --mem) mem=$2 ;;
                --smp) smp=$2 ;;
                --timeout) timeout_s=$2 ;;
                --idle) idle_s=$2 ;;
                --append) extra=$2 ;;
                --drive) path=$(in_qemu_root "$2")
                    devices+=(-snapshot -drive "file=${path//,/,,},if=virtio,format=raw,cache=unsafe") ;;
                --share) path=$(in_qemu_root "$2")
                    devices+=(-virtfs "local,path=${path//,/,,},mount_tag=host,security_model=none") ;;
            esac
            shift 2 ;;
        --icount) accel=(-accel "tcg,thread=single" -icount "shift=0,sleep=on"); shift ;;
        -h | --help) usage ;;
        --) shift; break ;;
        -*) log "unknown option $1"; usage ;;
        *) break ;;
    esac
done
(($# == 3)) || usage
kernel=$1 initrd=$2 logdir=$3
for n in "$mem" "$smp"; do
    [[ "$n" =~ ^[1-9][0-9]*$ ]] || { log "not a positive number: $n"; usage; }
done
for n in "$timeout_s" "$idle_s"; do
    [[ "$n" =~ ^[0-9]+$ ]] || { log "not a number of seconds: $n"; usage; }
done
((timeout_s || idle_s)) || { log "--timeout 0 needs --idle: a hung guest must end"; usage; }
[[ "${accel[*]}" != *-icount* ]] || ((smp == 1)) || { log "--icount needs --smp 1"; usage; }
for f in "$kernel" "$initrd"; do
    [[ -f "$f" ]] || { log "no such file: $f"; exit 64; }
done
((EUID == 0)) || { log "needs root (QEMU runs in the build root)"; exit 64; }
qemu_root=$("$here/buildroot.sh" trixie) || { log "no trixie build root, so no QEMU"; exit 3; }
mkdir -p "$qemu_root/host"

mkdir -p "$logdir"
console=$logdir/console.log result=$logdir/result.txt
rm -f "$console" "$result" "$logdir/dmesg.txt" "$logdir/payload.txt" "$logdir"/console-*boot*.log

# printk.time=1: kernel lines on the console get a "[ secs]" prefix, which is
# how the console scan tells them from the payload's own output.
cmdline="console=ttyS0 panic=-1 oops=panic quiet loglevel=4 printk.time=1 log_buf_len=8M rdinit=/init${extra:+ $extra}"
# make check runs builds beside guests (tests/check-all.sh): a guest's virtual
# CPUs come first, so that a compiler sharing their cores does not slow its
# timing tests.
priority=(nice -n -10)
boot() {
    local size last_size=-1 quiet_since=$SECONDS

    silent=0
    set +e
    # --foreground keeps QEMU in our process group, so Ctrl-C or a CI runner
    # killing the group also stops QEMU (plain timeout would setpgid it away).
    # In a mount namespace of its own, QEMU in the build root with the host's
    # / at /host there; each exec keeps the PID, so the timeout's signal
    # reaches QEMU itself.
    # shellcheck disable=SC2016 # expanded by the inner shell
    {
        timeout --foreground -k 10 "$timeout_s" "${priority[@]}" unshare --mount sh -c '
            root=$1
            shift
            mount --rbind / "$root/host"
            mount --rbind /dev "$root/dev"
            mount -t proc proc "$root/proc"
            exec chroot "$root" "$@"' sh "$qemu_root" qemu-system-x86_64 \
            "${accel[@]}" -M pc -cpu max -m "$mem" -smp "$smp" \
            -nodefaults -no-user-config -display none -no-reboot \
            -serial stdio -serial "file:$(in_qemu_root "$result" | sed 's/,/,,/g')" \
            -device isa-debug-exit,iobase=0xf4,iosize=0x04 \
            -kernel "$(in_qemu_root "$kernel")" -initrd "$(in_qemu_root "$initrd")" \
            -append "$cmdline" "${devices[@]}" \
            </dev/null | tee "$console"
        echo "${PIPESTATUS[0]}" >"$logdir/.qemu-rc"
    } &
    pipeline=$!
    # The silence watch: timeout passes our SIGTERM on to QEMU (and its
    # SIGKILL 10 s later), as it does its own.
    while kill -0 "$pipeline" 2>/dev/null; do
        sleep 1
        if ((!idle_s || silent)); then
            continue
        fi
        size=$(stat -c %s "$console" 2>/dev/null || echo 0)
        if [[ "$size" != "$last_size" ]]; then
            last_size=$size quiet_since=$SECONDS
        elif ((SECONDS - quiet_since >= idle_s)); then
            silent=1
            pkill -TERM -x timeout -P "$pipeline"
        fi
    done
    wait "$pipeline"
    qemu_rc=$(cat "$logdir/.qemu-rc" 2>/dev/null || echo 137)
    rm -f "$logdir/.qemu-rc"
    ((!silent)) || qemu_rc=124
    set -e
}

# where_it_was: for a guest stopped for time, the test it was in and how
# long the finished ones took (tests/harness/runner.h's lines), else its
# last console lines.
where_it_was() {
    tr -d '\r' <"$console" | awk '
        /^START / { current = $2; next }
        /^(PASS|FAIL) [^ ]+ \([0-9.]+ s\)/ {
            name = $2; took = $3; sub(/^\(/, "", took)
            if (name == current) current = ""
            n++; total += took
            if (took + 0 >= 1) slow = slow sprintf("  %s %s s\n", name, took)
        }
        { last[NR % 10] = $0 }
        END {
            if (n || current != "") {
                printf "%d tests finished in %.0f s", n, total
                if (current != "") printf "; it was in test %s", current
                printf "\n"
                if (slow != "") printf "finished tests of 1 s or more:\n%s", slow
            }
            print "its last console lines:"
            for (i = NR - 9; i <= NR; i++) if (i > 0) print "    " last[i % 10]
        }'
}

# why_boot_again: says why the guest that just ran deserves another boot, or
# nothing. Each reason is TCG's, not the guest's: vCPUs can execute code
# another vCPU has just patched (stale-int3.sh), and a guest stopped for
# silence whose kernel never printed a line had not run anything of ours.
why_boot_again() {
    local where
    if ((qemu_rc == 124 || qemu_rc == 137)); then
        # Seen once, beside five other guests on two cores (7.3.4).
        [[ -s "$console" ]] || echo "the kernel printed nothing"
        return 0
    fi
    if ! grep -aq 'init: user space started' "$console"; then
        # Nothing of ours ran yet (seen once: an int3 oops in sched_clock_cpu
        # at 2 s on 7.3.4).
        echo "the kernel died during boot, before user space"
    elif ! tr -d '\r' <"$result" 2>/dev/null | grep -aqE '^RESULT rc=[0-9]+$' &&
        where=$("$here/stale-int3.sh" "$console"); then
        echo "the guest died of an int3 text patching had taken back ($where): QEMU's fault, see stale-int3.sh"
    fi
}

# A boot.sh stopped while a guest runs stops the guest.
pipeline=
trap '[[ -z "$pipeline" ]] || pkill -TERM -x timeout -P "$pipeline" 2>/dev/null || :' EXIT
trap 'exit 130' INT TERM
if [[ -n "${PFPROF_GUEST_LOCK:-}" ]]; then
    exec 8>>"$PFPROF_GUEST_LOCK"
    waited=$SECONDS
    flock 8
    log "waited $((SECONDS - waited)) s for another guest to end"
fi
t0=$(date +%s%N)
# Up to boots_max boots, each again said aloud; the earlier consoles are kept
# (console-first-boot.log, console-boot-2.log, ...). Two in a row were seen
# once, on a host running five guests on two cores.
boots_max=3
for ((boots = 1; ; boots++)); do
    boot
    again=$(why_boot_again)
    if [[ -z "$again" ]] || ((boots == boots_max)); then
        break
    fi
    kept="console-boot-$boots.log"
    ((boots > 1)) || kept="console-first-boot.log"
    mv "$console" "$logdir/$kept"
    log "$again (see $kept): booting again"
done
t1=$(date +%s%N)
wall=$(awk -v ns=$((t1 - t0)) 'BEGIN { printf "%.1f", ns / 1e9 }')
log "boot wall time ${wall} s (qemu exit $qemu_rc)"
touch "$console" "$result"

section() { # section NAME < result.txt: lines of one section, CRs stripped
    awk -v want="$1" '{ sub(/\r$/, "") }
        /^=== PAYLOAD OUTPUT ===$/ { s = "payload"; next }
        /^=== DMESG ===$/          { s = "dmesg"; next }
        /^=== END ===$/            { s = ""; next }
        s == want' "$result"
}
section payload >"$logdir/payload.txt"
section dmesg >"$logdir/dmesg.txt"

if ((qemu_rc == 124 || qemu_rc == 137)); then
    where_it_was >&2
    if ((silent)); then
        log "FAIL: guest hung (no console output for ${idle_s} s; ${wall} s in all)"
    else
        log "FAIL: guest stopped at its time limit (${timeout_s} s)"
    fi
    exit 3
fi

rc_line=$(tr -d '\r' <"$result" | grep -aE '^RESULT rc=[0-9]+$' | tail -n1 || true)
if [[ -z "$rc_line" ]]; then
    log "last 40 console lines:"
    tail -n 40 "$console" | tr -d '\r' | sed 's/^/    /' >&2
    log "FAIL: guest kernel panicked or died (no RESULT line; qemu exit $qemu_rc)"
    exit 3
fi
rc=${rc_line#RESULT rc=}

splat_re='WARNING:|BUG:|Oops|general protection fault|Kernel panic|Call Trace|KASAN|UBSAN'
splat_re+='|possible circular locking|possible recursive locking|inconsistent lock state'
splat_re+='|suspicious RCU usage|rcu: INFO|INFO: task .* blocked|kmemleak'
splat_re+='|sleeping function called from invalid context|list_add corruption|list_del corruption'
splat_re+='|refcount_t:|segfault at'
# Known harmless lines (none of them is a splat).
noise_re='loading out-of-tree module taints kernel|module verification failed: signature and/or required key missing'
noise_re+='|kmemleak: Kernel memory leak detector (initialized|disabled)|kmemleak: Automatic memory scanning thread'
# apt's own warning when a script runs apt (the README's lines, as written).
noise_re+='|WARNING: apt does not have a stable CLI interface'

# dmesg hits, with 10 lines of context either side (">>" marks the hits).
dmesg_hits=$(awk -v pat="$splat_re" -v noise="$noise_re" '
    { line[NR] = $0; if ($0 ~ pat && $0 !~ noise) hit[NR] = 1 }
    END {
        last = 0
        for (i = 1; i <= NR; i++) {
            if (!hit[i]) continue
            lo = i - 10; if (lo < 1) lo = 1; if (lo <= last) lo = last + 1
            hi = i + 10; if (hi > NR) hi = NR
            if (last && lo > last + 1) print "    --"
            for (j = lo; j <= hi; j++) printf "%s %s\n", (hit[j] ? ">>" : "  "), line[j]
            last = hi
        }
    }' "$logdir/dmesg.txt")
# Console: only kernel lines ("[ secs] ..."), not the payload's echoed output.
console_hits=$(tr -d '\r' <"$console" | grep -aE '^\[ *[0-9]+\.[0-9]+\] ' \
    | grep -aE "$splat_re" | grep -avE "$noise_re" || true)

if [[ -n "$dmesg_hits" || -n "$console_hits" ]]; then
    if [[ -n "$dmesg_hits" ]]; then
        log "kernel splat in dmesg ($logdir/dmesg.txt):"
        printf '%s\n' "$dmesg_hits" >&2
    fi
    if [[ -n "$console_hits" ]]; then
        log "kernel splat on console ($logdir/console.log):"
        while IFS= read -r l; do printf '>> %s\n' "$l"; done <<<"$console_hits" >&2
    fi
    log "FAIL: kernel splat (payload rc=$rc)"
    exit 2
fi

if ((rc == 0)); then
    log "PASS: payload rc=0, no kernel splats in dmesg or console"
    exit 0
fi
log "FAIL: payload rc=$rc (no kernel splats in dmesg or console)"
exit 1
