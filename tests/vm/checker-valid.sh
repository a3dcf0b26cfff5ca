#!/bin/sh
# Usage: checker-valid.sh CHECKER [FLAG...]
#
# Stands in for the kernel's scripts/checker-valid.sh, which Debian's
# linux-kbuild-7.x packages do not ship: 7.x's Makefile runs it with the
# checker's command line before C=1 or C=2 and, unless it prints 1, turns the
# check off with a warning, and the build passes unchecked. Prints 1 if the
# checker parses __typeof_unqual__, which the kernel's headers use, else 0.
# tests/lib/kernels.sh (kernel_fetch) puts it where the Makefile looks.
src=$(mktemp --suffix=.c)
trap 'rm -f "$src"' EXIT
printf 'static inline int u(const int *q) { __typeof_unqual__(*q) v = *q; return v; }\n' > "$src"
if command -v "$1" > /dev/null && ! "$@" "$src" 2>&1 | grep -q error; then
	echo 1
else
	echo 0
fi
