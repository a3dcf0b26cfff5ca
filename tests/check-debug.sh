#!/usr/bin/env bash
# `make check-debug`: the guest suite of tests/check.sh on the debug kernel of
# tests/debug-kernel/ (built, or taken from the cache), then a kmemleak scan.
#   tests/check-debug.sh [TEST...]
exec env PFPROF_KERNELS=debug "$(dirname "$0")/check.sh" "$@"
