#!/bin/bash
# Usage: tests/vm/stale-int3.sh CONSOLE
#
# Whether the guest kernel whose serial console is CONSOLE died of an int3
# that text patching had already taken back: QEMU's multi-threaded TCG lets a
# vCPU execute an int3 that text_poke_bp() wrote and removed again while that
# vCPU was passing the patched instruction (a static key or ftrace site
# switched by a module load, unload or probe; see boot.sh). On hardware the
# sync IPIs of text_poke_bp() rule that out.
#
# The sign: the kernel's first oops is an int3 one ("int3: 0000 [#1]", with
# "Oops: " before it since 6.9), and in its "Code:" line the byte
# before the marked one (the instruction pointer is just past the int3) is no
# longer 0xcc. An int3 still in the text (BUG(), a kprobe left armed, a
# genuine stray breakpoint) keeps its 0xcc and is not matched.
# Exit: 0 it is that, and one line on stdout says where; 1 it is not; 64 usage.
set -euo pipefail

if (($# != 1)) || [[ ! -r "$1" ]]; then
    sed -n '2s/^# //p' "$0" >&2
    exit 64
fi

# awk reads to the end rather than exiting at its answer: under pipefail, a
# grep still writing to an awk that had exited died of SIGPIPE, and a match
# read as none (a guest of CI's kind lost that way where it should have been
# booted again).
tr -d '\r' <"$1" | grep -aE '^\[ *[0-9]+\.[0-9]+\] ' | awk '
    done { next }
    !oops && /(Oops|BUG:|general protection fault|Kernel panic|int3: [0-9a-f]+ \[#)/ {
        if ($0 !~ /int3: [0-9a-f]+ \[#/) done = 1
        oops = 1
        next
    }
    oops && /RIP: [0-9a-f]+:/ && !rip { rip = $0; sub(/.*RIP: [0-9a-f]+:/, "", rip) }
    oops && /Code: / {
        done = 1
        for (i = 2; i <= NF; i++)
            if ($i ~ /^<[0-9a-f][0-9a-f]>$/ && $(i - 1) ~ /^[0-9a-f][0-9a-f]$/ && $(i - 1) != "cc") {
                printf "int3 oops at %s, where the text holds %s again\n", rip, $(i - 1)
                found = 1
            }
    }
    END { exit !found }'
